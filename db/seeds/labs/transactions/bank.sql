-- Transactions and locks: a small bank.
--
--   accounts   4 rows   one row per account, with its owner and balance
--
-- Each learner's two sessions work on a copy of their own, so what one learner locks or changes no one else sees.

CREATE TABLE accounts (
  account_id integer       PRIMARY KEY,
  owner      text          NOT NULL,
  balance    numeric(10,2) NOT NULL CHECK (balance >= 0)
);

INSERT INTO accounts (account_id, owner, balance) VALUES
  (1, 'Ada',    500.00),
  (2, 'Grace',  250.00),
  (3, 'Edsger', 125.00),
  (4, 'Barbara', 80.00);

-- SQL Fundamentals: a small online bookshop.
--
--   authors      12 rows   who wrote the books (country and birth year are not always known)
--   books        30 rows   the catalogue; pages is unknown for a few books
--   customers    24 rows   people with an account; some gave no e-mail or no city
--   orders       90 rows   one row per order; shipped_on is empty until the order ships
--   order_items ~180 rows  the books in each order, with the price paid at the time
--
-- Orders and their items are generated from simple arithmetic, so every build holds the same rows.

CREATE TABLE authors (
  author_id  integer PRIMARY KEY,
  name       text    NOT NULL,
  country    text,             -- NULL: not known
  born_year  integer           -- NULL: not known
);

INSERT INTO authors (author_id, name, country, born_year) VALUES
  (1,  'Ada Lindqvist',      'Sweden',         1968),
  (2,  'Tomas Herrera',      'Spain',          1975),
  (3,  'Margaret Oduya',     'United Kingdom', 1959),
  (4,  'Hiroshi Tanaka',     'Japan',          1981),
  (5,  'Claire Dubois',      'France',         1972),
  (6,  'Samuel Okafor',      'Nigeria',        1985),
  (7,  'Priya Raman',        'India',          1979),
  (8,  'Jonas Becker',       'Germany',        NULL),
  (9,  'Eleanor Whitby',     'United Kingdom', 1948),
  (10, 'Lucas Moreau',       'France',         1990),
  (11, 'Quiet Press Collective', NULL,         NULL),
  (12, 'Grace Holloway',     'United States',  1964);

CREATE TABLE books (
  book_id         integer      PRIMARY KEY,
  title           text         NOT NULL,
  author_id       integer      NOT NULL REFERENCES authors,
  category        text         NOT NULL,
  price           numeric(6,2) NOT NULL CHECK (price > 0),
  published_year  integer      NOT NULL,
  pages           integer                -- NULL: not known
);

INSERT INTO books (book_id, title, author_id, category, price, published_year, pages) VALUES
  (1,  'The Glass Orchard',              1,  'Fiction',  12.99, 2015, 320),
  (2,  'Northern Lights Over Uppsala',   1,  'Fiction',  14.50, 2019, 288),
  (3,  'Salt and Saffron',               2,  'Cooking',  24.00, 2017, 240),
  (4,  'Tapas at Home',                  2,  'Cooking',  19.99, 2021, NULL),
  (5,  'A Short History of Tea',         3,  'History',  18.75, 2008, 356),
  (6,  'The Railway Age',                3,  'History',  22.00, 2012, 412),
  (7,  'Empire of Cotton Mills',         3,  'History',  27.50, 2020, 498),
  (8,  'Quantum Gardens',                4,  'Science',  29.99, 2015, 384),
  (9,  'The Patient Universe',           4,  'Science',  24.99, 2022, 302),
  (10, 'Cells and Circuits',             4,  'Science',  34.00, 2011, 455),
  (11, 'Rain in Lyon',                   5,  'Fiction',   9.99, 2005, 210),
  (12, 'The Last Bookbinder',            5,  'Fiction',  16.99, 2018, 344),
  (13, 'Market Day',                     5,  'Children',  7.99, 2014, 32),
  (14, 'The River Knows',                6,  'Fiction',  13.99, 2021, 298),
  (15, 'Lagos After Dark',               6,  'Fiction',  15.50, 2023, NULL),
  (16, 'Spice Routes',                   7,  'Cooking',  21.50, 2013, 260),
  (17, 'Monsoon Kitchen',                7,  'Cooking',  24.00, 2019, 230),
  (18, 'Numbers Are Everywhere',         7,  'Children',  8.99, 2020, 48),
  (19, 'Engines of Change',              8,  'History',  19.50, 2009, 390),
  (20, 'The Hidden Atom',                8,  'Science',  31.25, 2018, 360),
  (21, 'Climate Machines',               8,  'Science',  27.00, 2024, 330),
  (22, 'The Tin Soldier Returns',        9,  'Children',  6.50, 1998, 40),
  (23, 'Letters from Whitby',            9,  'Fiction',  11.25, 2001, 276),
  (24, 'Paris in Twelve Meals',          10, 'Cooking',  26.50, 2022, 198),
  (25, 'The Cartographer''s Daughter',   10, 'Fiction',  14.50, 2024, 402),
  (26, 'Stars for Beginners',            11, 'Children',  9.50, 2016, 64),
  (27, 'Field Guide to Garden Birds',    11, 'Science',  12.00, 2010, NULL),
  (28, 'Rivers of the Ancient World',    11, 'History',  34.00, 2019, 520),
  (29, 'Bread, Simply',                  2,  'Cooking',  17.25, 2024, 176),
  (30, 'The Moon Has a Garden',          12, 'Children',  7.99, 2023, 36);

CREATE TABLE customers (
  customer_id  integer PRIMARY KEY,
  first_name   text    NOT NULL,
  last_name    text    NOT NULL,
  email        text,            -- NULL: no e-mail on file
  city         text,            -- NULL: not given
  joined_on    date    NOT NULL
);

INSERT INTO customers (customer_id, first_name, last_name, email, city, joined_on) VALUES
  (1,  'Olivia',  'Smith',    'olivia.smith@example.com',   'Leeds',      '2023-02-14'),
  (2,  'Noah',    'Patel',    'noah.patel@example.com',     'Manchester', '2023-03-02'),
  (3,  'Amelia',  'Jones',    NULL,                         'Bristol',    '2023-04-19'),
  (4,  'Liam',    'Brown',    'liam.b@example.com',         'Leeds',      '2023-05-07'),
  (5,  'Isla',    'Taylor',   'isla.taylor@example.com',    'Glasgow',    '2023-06-21'),
  (6,  'Ethan',   'Wilson',   'ethan.wilson@example.com',   'Manchester', '2023-07-30'),
  (7,  'Ava',     'Evans',    NULL,                         NULL,         '2023-08-12'),
  (8,  'Mason',   'Thomas',   'mason.thomas@example.com',   'Cardiff',    '2023-09-03'),
  (9,  'Sophia',  'Roberts',  'sophia.r@example.com',       'York',       '2023-10-10'),
  (10, 'Lucas',   'Smith',    'lucas.smith@example.com',    'Manchester', '2023-11-25'),
  (11, 'Mia',     'Walker',   'mia.walker@example.com',     'Bristol',    '2024-01-08'),
  (12, 'Oscar',   'Patel',    NULL,                         'Leeds',      '2024-02-16'),
  (13, 'Grace',   'Hughes',   'grace.hughes@example.com',   'Glasgow',    '2024-03-09'),
  (14, 'Leo',     'Edwards',  'leo.edwards@example.com',    'Manchester', '2024-04-27'),
  (15, 'Freya',   'Green',    'freya.green@example.com',    'York',       '2024-05-18'),
  (16, 'Jack',    'Hall',     NULL,                         'Cardiff',    '2024-06-02'),
  (17, 'Emily',   'Wood',     'emily.wood@example.com',     'Leeds',      '2024-07-14'),
  (18, 'Harry',   'Clarke',   'harry.clarke@example.com',   NULL,         '2024-08-20'),
  (19, 'Poppy',   'Lewis',    'poppy.lewis@example.com',    'Bristol',    '2024-09-11'),
  (20, 'George',  'Young',    'george.young@example.com',   'Manchester', '2024-10-05'),
  (21, 'Ruby',    'King',     'ruby.king@example.com',      'Glasgow',    '2025-01-19'),
  (22, 'Alfie',   'Wright',   NULL,                         'Leeds',      '2025-02-23'),
  (23, 'Evie',    'Scott',    'evie.scott@example.com',     'Norwich',    '2025-03-15'),
  (24, 'Henry',   'Baker',    'henry.baker@example.com',    NULL,         '2025-04-01');

CREATE TABLE orders (
  order_id     integer PRIMARY KEY,
  customer_id  integer NOT NULL REFERENCES customers,
  ordered_on   date    NOT NULL,
  shipped_on   date,            -- NULL: not shipped (yet)
  status       text    NOT NULL CHECK (status IN ('shipped', 'pending', 'cancelled'))
);

-- 90 orders in 2025 from customers 1 to 20 (customers 21 to 24 have not ordered yet). Every 15th order
-- was cancelled; the other orders from number 85 on are still pending. Shipped orders left 1 to 3 days
-- after they were placed.
INSERT INTO orders (order_id, customer_id, ordered_on, shipped_on, status)
SELECT o,
       (o * 7) % 20 + 1,
       date '2025-01-02' + (o - 1) * 4 + o % 3,
       CASE WHEN o % 15 = 0 OR o > 84 THEN NULL
            ELSE date '2025-01-02' + (o - 1) * 4 + o % 3 + 1 + o % 3 END,
       CASE WHEN o % 15 = 0 THEN 'cancelled' WHEN o > 84 THEN 'pending' ELSE 'shipped' END
FROM generate_series(1, 90) AS o;

CREATE TABLE order_items (
  order_id    integer      NOT NULL REFERENCES orders,
  book_id     integer      NOT NULL REFERENCES books,
  quantity    integer      NOT NULL CHECK (quantity > 0),
  unit_price  numeric(6,2) NOT NULL,
  PRIMARY KEY (order_id, book_id)
);

-- Each order holds 1 to 3 different books out of books 1 to 27, bought at the catalogue price, except
-- in the July sale: 20 % off. Of books 28 to 30, only book 28 was ever ordered, in an order that was
-- then cancelled (order 90).
INSERT INTO order_items (order_id, book_id, quantity, unit_price)
SELECT o.order_id,
       b.book_id,
       1 + (o.order_id + n) % 3,
       CASE WHEN extract(month FROM o.ordered_on) = 7 THEN round(b.price * 0.8, 2) ELSE b.price END
FROM orders AS o
CROSS JOIN generate_series(1, 3) AS n
JOIN books AS b ON b.book_id = (o.order_id * 11 + n * 7) % 27 + 1
WHERE n <= 1 + o.order_id % 3;

INSERT INTO order_items (order_id, book_id, quantity, unit_price) VALUES (90, 28, 1, 34.00);

CREATE INDEX ON books (author_id);
CREATE INDEX ON orders (customer_id);
CREATE INDEX ON order_items (book_id);

import type { MigrationFn } from '#db/migration.ts'

// Sign-in events replace login_failures (ADR 027): one row per attempt, with what came of it, both the
// record admins read and what throttling counts. A row is 'checking' from the moment the attempt takes
// its place in line until its password has been checked. `account` is what throttling counts by:
// `user:<id>` for an account that exists, `name:<what was typed, lower-case>` for one that does not.
//
// ended_sessions: the sessions (token ids) ended by a logout, until their token would have expired anyway.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE sign_in_events (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      at timestamptz NOT NULL DEFAULT now(),
      account text NOT NULL,
      user_id uuid REFERENCES users (id) ON DELETE SET NULL,
      address text,
      outcome text NOT NULL DEFAULT 'checking'
        CHECK (outcome IN ('checking', 'success', 'wrong_password', 'throttled', 'password_changed'))
    );
    CREATE INDEX sign_in_events_account_idx ON sign_in_events (account, at);
    CREATE INDEX sign_in_events_address_idx ON sign_in_events ((coalesce(address, '')), at);
    CREATE INDEX sign_in_events_user_idx ON sign_in_events (user_id, id) WHERE user_id IS NOT NULL;
    CREATE INDEX sign_in_events_at_idx ON sign_in_events (at);
    DROP TABLE login_failures;

    CREATE TABLE ended_sessions (
      session_id text PRIMARY KEY,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX ended_sessions_expires_idx ON ended_sessions (expires_at);
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP TABLE IF EXISTS ended_sessions;
    DROP TABLE IF EXISTS sign_in_events;
    CREATE TABLE login_failures (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      account text NOT NULL,
      address text,
      failed_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX login_failures_account_idx ON login_failures (account, failed_at);
    CREATE INDEX login_failures_address_idx ON login_failures (address, failed_at) WHERE address IS NOT NULL;
  `)
}

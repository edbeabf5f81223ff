import type { MigrationFn } from '#db/migration.ts'

// Failed sign-ins, for throttling per account and per address: kept in the database
// so every app process and a restart see the same counts. Rows older than a day are dropped.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
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

export const down: MigrationFn = async ({ context: sql }) => {
  await sql('DROP TABLE IF EXISTS login_failures')
}

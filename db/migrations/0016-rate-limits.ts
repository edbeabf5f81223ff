import type { MigrationFn } from '#db/migration.ts'

// The counters of rate-limiter-flexible's PostgreSQL store (db/rate-limits.ts), shared by every process and
// instance: sign-in failures and attempts being checked (ADR 027), contact-form messages (ADR 023). The
// columns are the ones the library reads and writes; `expire` is in epoch milliseconds, NULL for never.
// The limiters are told the table exists, so they never create it at run time.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE rate_limits (
      key varchar(255) PRIMARY KEY,
      points integer NOT NULL DEFAULT 0,
      expire bigint
    );
    CREATE INDEX rate_limits_expire_idx ON rate_limits (expire);
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql('DROP TABLE IF EXISTS rate_limits;')
}

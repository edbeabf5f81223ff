import type { MigrationFn } from '#db/migration.ts'

// Disabled accounts (docs/product.md#disabled-accounts): an admin can turn an account off without deleting it,
// and on again; everything the account owns stays.
//
// users: `disabled_at` is when the account was disabled, NULL while it is enabled; `disabled_by` is who disabled
// it (NULL for an operator at the command line, or once that account is deleted). Who is only kept with when.
//
// sign_in_events: the outcome `disabled`, a sign-in with the right password refused because the account is
// disabled.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE users
      ADD COLUMN disabled_at timestamptz,
      ADD COLUMN disabled_by uuid REFERENCES users (id) ON DELETE SET NULL,
      ADD CONSTRAINT users_disabled_by_check CHECK (disabled_by IS NULL OR disabled_at IS NOT NULL);
    ALTER TABLE sign_in_events
      DROP CONSTRAINT sign_in_events_outcome_check,
      ADD CONSTRAINT sign_in_events_outcome_check
        CHECK (outcome IN ('checking', 'success', 'wrong_password', 'throttled', 'password_changed', 'disabled'));
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DELETE FROM sign_in_events WHERE outcome = 'disabled';
    ALTER TABLE sign_in_events
      DROP CONSTRAINT sign_in_events_outcome_check,
      ADD CONSTRAINT sign_in_events_outcome_check
        CHECK (outcome IN ('checking', 'success', 'wrong_password', 'throttled', 'password_changed'));
    ALTER TABLE users DROP CONSTRAINT users_disabled_by_check, DROP COLUMN disabled_by, DROP COLUMN disabled_at;
  `)
}

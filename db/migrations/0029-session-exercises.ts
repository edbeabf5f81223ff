import type { MigrationFn } from '#db/migration.ts'

// Two-session exercises: an exercise on transactions and locks is graded by what two sessions side by side did.
//
// lab_exercises: check_kind may be `sessions` (beside `result`, `state` and `plan`); steps holds what the log of
// such an exercise must show, in order, as lab.yaml lists them, and only such an exercise has steps. The check is
// replaced whole by its name, whichever kinds it listed before.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE lab_exercises
      DROP CONSTRAINT IF EXISTS lab_exercises_check_kind_check,
      ADD CONSTRAINT lab_exercises_check_kind_check CHECK (check_kind IN ('result', 'state', 'plan', 'sessions')),
      ADD COLUMN steps jsonb,
      ADD CONSTRAINT lab_exercises_steps_check CHECK ((check_kind = 'sessions') = (steps IS NOT NULL));
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DELETE FROM lab_exercises WHERE check_kind = 'sessions';
    ALTER TABLE lab_exercises
      DROP CONSTRAINT lab_exercises_steps_check,
      DROP COLUMN steps,
      DROP CONSTRAINT lab_exercises_check_kind_check,
      ADD CONSTRAINT lab_exercises_check_kind_check CHECK (check_kind IN ('result', 'state', 'plan'));
  `)
}

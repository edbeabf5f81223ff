import type { MigrationFn } from '#db/migration.ts'

// Query-plan exercises (`check: plan`, docs/labs.md#query-plan-exercises, ADR 043).
//
// lab_exercises: `check_kind` may be `plan`. `plan_rules` holds the exercise's rules as lab.yaml gives them
// (has, lacks, cost), present exactly for plan exercises. `plan_cost` is the total estimated cost of the
// solution's plan, taken at import, which the cost factor is measured against; `plan_expected` is the solution's
// plan summary, kept for showing next to the learner's.
//
// lab_attempts: `plan` keeps the learner's plan summary and the rules' outcomes, so admins see them with the
// learner's attempts.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE lab_exercises
      DROP CONSTRAINT lab_exercises_check_kind_check,
      ADD CONSTRAINT lab_exercises_check_kind_check CHECK (check_kind IN ('result', 'state', 'plan')),
      ADD COLUMN plan_rules jsonb,
      ADD COLUMN plan_cost double precision CHECK (plan_cost >= 0),
      ADD COLUMN plan_expected jsonb,
      ADD CONSTRAINT lab_exercises_plan_fields_check CHECK (
        (check_kind = 'plan' AND plan_rules IS NOT NULL AND plan_cost IS NOT NULL)
        OR (check_kind <> 'plan' AND plan_rules IS NULL AND plan_cost IS NULL AND plan_expected IS NULL));

    ALTER TABLE lab_attempts ADD COLUMN plan jsonb;
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DELETE FROM lab_exercises WHERE check_kind = 'plan';
    ALTER TABLE lab_attempts DROP COLUMN plan;
    ALTER TABLE lab_exercises
      DROP CONSTRAINT lab_exercises_plan_fields_check,
      DROP COLUMN plan_rules,
      DROP COLUMN plan_cost,
      DROP COLUMN plan_expected,
      DROP CONSTRAINT lab_exercises_check_kind_check,
      ADD CONSTRAINT lab_exercises_check_kind_check CHECK (check_kind IN ('result', 'state'));
  `)
}

import type { MigrationFn } from '#db/migration.ts'

// A scenario that learners submitted assessments against cannot be deleted with their work: the
// database refuses, whatever race the service's own check loses (ADR 007).
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE assessment_uploads DROP CONSTRAINT assessment_uploads_scenario_id_course_id_fkey;
    ALTER TABLE assessment_uploads ADD CONSTRAINT assessment_uploads_scenario_id_course_id_fkey
      FOREIGN KEY (scenario_id, course_id) REFERENCES content_entries (id, course_id) ON DELETE RESTRICT;
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE assessment_uploads DROP CONSTRAINT assessment_uploads_scenario_id_course_id_fkey;
    ALTER TABLE assessment_uploads ADD CONSTRAINT assessment_uploads_scenario_id_course_id_fkey
      FOREIGN KEY (scenario_id, course_id) REFERENCES content_entries (id, course_id) ON DELETE CASCADE;
  `)
}

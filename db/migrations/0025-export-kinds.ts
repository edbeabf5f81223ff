import type { MigrationFn } from '#db/migration.ts'

// Scheduled exports of more than the access log: a schedule's kind says what it writes.
//
// export_schedules: kind `access-log` (what every schedule wrote until now: a range of days, some courses or
// all) or `assignments` (every assignment as it stands when the run runs, its due date, status and percent;
// no range, optionally only some courses and one status).
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE export_schedules
      ADD COLUMN kind text NOT NULL DEFAULT 'access-log' CHECK (kind IN ('access-log', 'assignments')),
      ADD COLUMN status text CHECK (status IN ('completed', 'overdue', 'in-progress', 'not-started')),
      ALTER COLUMN range DROP NOT NULL,
      ADD CONSTRAINT export_schedules_kind_fields_check CHECK (
        (kind = 'access-log' AND range IS NOT NULL AND status IS NULL) OR (kind = 'assignments' AND range IS NULL));
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DELETE FROM export_schedules WHERE kind <> 'access-log';
    ALTER TABLE export_schedules DROP CONSTRAINT export_schedules_kind_fields_check;
    ALTER TABLE export_schedules DROP COLUMN kind, DROP COLUMN status, ALTER COLUMN range SET NOT NULL;
  `)
}

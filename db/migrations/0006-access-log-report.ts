import type { MigrationFn } from '#db/migration.ts'

// The access-log report reads viewing by date, for all courses or some (/admin/accesslog).
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE INDEX video_progress_updated_idx ON video_progress (updated_at);
    CREATE INDEX video_progress_course_updated_idx ON video_progress (course_id, updated_at);
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql('DROP INDEX IF EXISTS video_progress_course_updated_idx; DROP INDEX IF EXISTS video_progress_updated_idx;')
}

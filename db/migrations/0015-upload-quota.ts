import type { MigrationFn } from '#db/migration.ts'

// The quota of unattached uploads sums a user's files that nothing refers to on every upload: their
// files by uploader, and the images' references (content entries and assessments have theirs).
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE INDEX files_uploaded_by_idx ON files (uploaded_by) WHERE uploaded_by IS NOT NULL;
    CREATE INDEX courses_image_key_idx ON courses (image_key) WHERE image_key IS NOT NULL;
    CREATE INDEX programs_image_key_idx ON programs (image_key) WHERE image_key IS NOT NULL;
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP INDEX IF EXISTS programs_image_key_idx;
    DROP INDEX IF EXISTS courses_image_key_idx;
    DROP INDEX IF EXISTS files_uploaded_by_idx;
  `)
}

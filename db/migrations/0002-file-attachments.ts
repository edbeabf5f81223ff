import type { MigrationFn } from '#db/migration.ts'

// A stored file belongs to at most one content entry (deleting the entry deletes the file), and
// uploads that were never attached to anything can be found by age and swept away.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE UNIQUE INDEX content_entries_file_key_unique ON content_entries (file_key) WHERE file_key IS NOT NULL;
    CREATE INDEX files_created_idx ON files (created_at);
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP INDEX IF EXISTS files_created_idx;
    DROP INDEX IF EXISTS content_entries_file_key_unique;
  `)
}

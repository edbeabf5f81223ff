import type { MigrationFn } from '#db/migration.ts'

// Two more kinds of stored file, both for the Import users page: the CSV an admin uploads (kept between
// the dry run and the confirmed import) and the error CSV of an import. Neither is ever attached to
// anything, so the sweep of unattached files removes whichever is left behind.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE files DROP CONSTRAINT files_purpose_check;
    ALTER TABLE files ADD CONSTRAINT files_purpose_check CHECK (purpose IN
      ('course_image', 'program_image', 'document', 'assessment', 'user_import', 'import_errors'));
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DELETE FROM files WHERE purpose IN ('user_import', 'import_errors');
    ALTER TABLE files DROP CONSTRAINT files_purpose_check;
    ALTER TABLE files ADD CONSTRAINT files_purpose_check CHECK (purpose IN
      ('course_image', 'program_image', 'document', 'assessment'));
  `)
}

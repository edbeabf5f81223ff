import type { MigrationFn } from '#db/migration.ts'

// Certificates (0022), two corrections.
//
// certificate_due_add: a completion could be lost while the job was at work. The job takes its rows with
// `DELETE … WHERE ctid IN (SELECT … FOR UPDATE SKIP LOCKED)` and then, in the same transaction, asks the
// tallies who is complete. The trigger wrote its row with ON CONFLICT DO NOTHING, which neither writes nor
// locks the row already there: a learner's completion whose transaction was still open while the job
// took that (committed, unlocked) row had its work deleted, and the job, not seeing the completion yet,
// gave nothing; no row was left for the notification to find. Now the trigger's insert, on conflict,
// updates the row (to the same created_at, so it keeps its place in the queue) and so holds its lock until
// the completing transaction commits:
//   - the row is there and unlocked: the trigger locks it; the job's SKIP LOCKED passes it over, and takes it
//     on a later run, when the completion is committed and visible;
//   - the job has taken (deleted) the row and not yet committed: the trigger's insert waits for the job, then
//     finds no conflict and writes a new row, which the next run takes.
// The job never waits on a learner's transaction (it skips locked rows), so this adds no deadlock; two
// transactions writing the same row of work now take turns, as they already did on the tallies.
// The unique constraint is NULLS NOT DISTINCT (0022), so a row with no learner (a sweep) conflicts too.
//
// certificates.signature_key: the signature image a certificate was issued with, as its issuer name already
// is. The PDF draws this one, so a course's new signature does not change certificates issued before; the
// files sweep counts a file a certificate names as attached. Existing certificates take their course's or
// program's signature as it is now: what they were issued with is not known.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE OR REPLACE FUNCTION certificate_due_add(p_user uuid, p_course uuid, p_program uuid) RETURNS void
      LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO certificate_due AS d (user_id, course_id, program_id) VALUES (p_user, p_course, p_program)
      ON CONFLICT (user_id, course_id, program_id) DO UPDATE SET created_at = d.created_at;
      PERFORM pg_notify('certificates_due', '');
    END $$;

    ALTER TABLE certificates ADD COLUMN signature_key text REFERENCES files (key) ON DELETE SET NULL;
    UPDATE certificates x SET signature_key = COALESCE(c.certificate_signature_key, p.certificate_signature_key)
      FROM certificates y
      LEFT JOIN courses c ON c.id = y.course_id
      LEFT JOIN programs p ON p.id = y.program_id
     WHERE y.id = x.id AND COALESCE(c.certificate_signature_key, p.certificate_signature_key) IS NOT NULL;
    CREATE INDEX certificates_signature_key_idx ON certificates (signature_key) WHERE signature_key IS NOT NULL;
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE certificates DROP COLUMN signature_key;
    CREATE OR REPLACE FUNCTION certificate_due_add(p_user uuid, p_course uuid, p_program uuid) RETURNS void
      LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO certificate_due (user_id, course_id, program_id) VALUES (p_user, p_course, p_program)
      ON CONFLICT DO NOTHING;
      PERFORM pg_notify('certificates_due', '');
    END $$;
  `)
}

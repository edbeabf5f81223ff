import type { MigrationFn } from '#db/migration.ts'

// Certificates of completion (docs/certificates.md).
//
// courses, programs: certificates are switched on per course and per program, with the issuer's name and
// an optional signature image (a file, like a course's image).
//
// certificates: one row per certificate given, holding what it states as it was when issued (the learner's
// name, the title, the hours, the issuer), its random code, its place in the revocation list and the signed
// credential. A learner holds at most one valid certificate per course or program (a partial unique index:
// two issues racing give one); a revoked one stays, with its reason. A learner's account removed takes their
// certificates with it; a course or program removed leaves them standing, with their title.
//
// certificate_keys: the public half of every key a credential was ever signed with, so a credential signed
// before the key was changed still verifies against the published key set.
//
// certificate_due: work for the job runner, written by triggers wherever a learner may have completed:
//   (learner, course)     a learner's tally of a course moved while it says complete (a video watched to the
//                         end, a lab passed, the course assigned), for a course that issues certificates;
//                         (learner, program) for each program of that course that issues and is assigned to
//                         them, and a program assigned
//   (no learner, course)  the course's content changed so that learners may now be complete without any
//                         tally moving (a video or lab hidden, removed; an exercise removed)
//   (no learner, program) a course taken out of a program
// The job (app/modules/certificates/issue.server.ts) takes these rows, issues to whoever is complete and has
// no certificate for it yet, and removes them, in one transaction. The triggers only write a row (and, at
// commit, wake the workers with a notification on `certificates_due`): no certificate is made inside a
// heartbeat's request. A learner complete before certificates were switched on gets one only by a backfill
// (`portal certificates issue`) or when a content change sweeps the course.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE files DROP CONSTRAINT files_purpose_check;
    ALTER TABLE files ADD CONSTRAINT files_purpose_check CHECK (purpose IN
      ('course_image', 'program_image', 'document', 'assessment', 'user_import', 'import_errors',
       'certificate_signature'));

    ALTER TABLE courses
      ADD COLUMN certificates boolean NOT NULL DEFAULT false,
      ADD COLUMN certificate_issuer text NOT NULL DEFAULT '',
      ADD COLUMN certificate_signature_key text REFERENCES files (key) ON DELETE SET NULL,
      ADD CONSTRAINT courses_certificate_issuer_check CHECK (NOT certificates OR length(btrim(certificate_issuer)) > 0);
    ALTER TABLE programs
      ADD COLUMN certificates boolean NOT NULL DEFAULT false,
      ADD COLUMN certificate_issuer text NOT NULL DEFAULT '',
      ADD COLUMN certificate_signature_key text REFERENCES files (key) ON DELETE SET NULL,
      ADD CONSTRAINT programs_certificate_issuer_check CHECK (NOT certificates OR length(btrim(certificate_issuer)) > 0);

    CREATE TABLE certificate_keys (
      kid text PRIMARY KEY,
      public_jwk jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE SEQUENCE certificate_status_index AS integer MINVALUE 0 START 0;

    CREATE TABLE certificates (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      code text NOT NULL UNIQUE CHECK (code ~ '^[0-9A-HJKMNP-TV-Z]{26}$'),
      kind text NOT NULL CHECK (kind IN ('course', 'program')),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      course_id uuid REFERENCES courses (id) ON DELETE SET NULL,
      program_id uuid REFERENCES programs (id) ON DELETE SET NULL,
      title text NOT NULL,
      description text NOT NULL DEFAULT '',
      learner_name text NOT NULL,
      issuer_name text NOT NULL,
      minutes integer NOT NULL CHECK (minutes >= 0),
      issued_at timestamptz NOT NULL DEFAULT now(),
      issued_by uuid REFERENCES users (id) ON DELETE SET NULL,
      status_index integer NOT NULL UNIQUE DEFAULT nextval('certificate_status_index'),
      credential text NOT NULL,
      key_id text NOT NULL REFERENCES certificate_keys (kid),
      revoked_at timestamptz,
      revoked_reason text,
      revoked_by uuid REFERENCES users (id) ON DELETE SET NULL,
      CHECK (kind = 'course' OR course_id IS NULL),
      CHECK (kind = 'program' OR program_id IS NULL),
      CHECK ((revoked_at IS NULL) = (revoked_reason IS NULL))
    );
    ALTER SEQUENCE certificate_status_index OWNED BY certificates.status_index;
    CREATE UNIQUE INDEX certificates_course_valid_idx ON certificates (user_id, course_id)
      WHERE revoked_at IS NULL AND course_id IS NOT NULL;
    CREATE UNIQUE INDEX certificates_program_valid_idx ON certificates (user_id, program_id)
      WHERE revoked_at IS NULL AND program_id IS NOT NULL;
    CREATE INDEX certificates_course_idx ON certificates (course_id, user_id);
    CREATE INDEX certificates_program_idx ON certificates (program_id, user_id);
    CREATE INDEX certificates_user_idx ON certificates (user_id, issued_at DESC);
    CREATE INDEX certificates_recent_idx ON certificates (issued_at DESC, id);

    CREATE TABLE certificate_due (
      user_id uuid REFERENCES users (id) ON DELETE CASCADE,
      course_id uuid REFERENCES courses (id) ON DELETE CASCADE,
      program_id uuid REFERENCES programs (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      CHECK (num_nonnulls(course_id, program_id) = 1),
      UNIQUE NULLS NOT DISTINCT (user_id, course_id, program_id)
    );

    -- a row of work; the workers hear of it when the transaction commits (one notification however many)
    CREATE FUNCTION certificate_due_add(p_user uuid, p_course uuid, p_program uuid) RETURNS void
      LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO certificate_due (user_id, course_id, program_id) VALUES (p_user, p_course, p_program)
      ON CONFLICT DO NOTHING;
      PERFORM pg_notify('certificates_due', '');
    END $$;

    -- a learner's tally moved: complete now, for a course (or its programs) that issues, and no certificate yet
    CREATE FUNCTION certificate_tally_due() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      r record;
    BEGIN
      IF EXISTS (SELECT 1 FROM courses c WHERE c.id = NEW.course_id AND c.certificates)
         AND NOT EXISTS (SELECT 1 FROM certificates x
                          WHERE x.user_id = NEW.user_id AND x.course_id = NEW.course_id)
         AND course_done(NEW.completed_videos, NEW.completed_labs,
                         course_visible_videos(NEW.course_id), course_visible_labs(NEW.course_id)) THEN
        PERFORM certificate_due_add(NEW.user_id, NEW.course_id, NULL);
      END IF;
      FOR r IN SELECT p.id FROM program_courses pc
                 JOIN programs p ON p.id = pc.program_id AND p.certificates
                 JOIN program_assignments pa ON pa.program_id = p.id AND pa.user_id = NEW.user_id
                WHERE pc.course_id = NEW.course_id
                  AND NOT EXISTS (SELECT 1 FROM certificates x WHERE x.user_id = NEW.user_id AND x.program_id = p.id)
      LOOP
        IF course_done(NEW.completed_videos, NEW.completed_labs,
                       course_visible_videos(NEW.course_id), course_visible_labs(NEW.course_id)) THEN
          PERFORM certificate_due_add(NEW.user_id, NULL, r.id);
        END IF;
      END LOOP;
      RETURN NULL;
    END $$;
    CREATE TRIGGER course_completion_tally_certificate AFTER INSERT OR UPDATE OF completed_videos, completed_labs, assigned
      ON course_completion_tallies FOR EACH ROW WHEN (NEW.assigned) EXECUTE FUNCTION certificate_tally_due();

    -- a course's content changed: sweep the course and its programs that issue (nothing when the course is
    -- going: its rows are not there to see)
    CREATE FUNCTION certificate_course_sweep(p_course uuid) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      r record;
    BEGIN
      IF EXISTS (SELECT 1 FROM courses c WHERE c.id = p_course AND c.certificates) THEN
        PERFORM certificate_due_add(NULL, p_course, NULL);
      END IF;
      FOR r IN SELECT p.id FROM program_courses pc JOIN programs p ON p.id = pc.program_id AND p.certificates
                WHERE pc.course_id = p_course LOOP
        PERFORM certificate_due_add(NULL, NULL, r.id);
      END LOOP;
    END $$;
    CREATE FUNCTION certificate_content_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM certificate_course_sweep(CASE WHEN TG_OP = 'DELETE' THEN OLD.course_id ELSE NEW.course_id END);
      RETURN NULL;
    END $$;
    CREATE TRIGGER content_entry_certificate_changed AFTER UPDATE OF visibility, kind ON content_entries
      FOR EACH ROW WHEN (OLD.visibility IS DISTINCT FROM NEW.visibility OR OLD.kind IS DISTINCT FROM NEW.kind)
      EXECUTE FUNCTION certificate_content_changed();
    CREATE TRIGGER content_entry_certificate_deleted AFTER DELETE ON content_entries
      FOR EACH ROW WHEN (OLD.kind = 'video' AND OLD.visibility) EXECUTE FUNCTION certificate_content_changed();
    CREATE TRIGGER lab_certificate_changed AFTER UPDATE OF visibility ON labs
      FOR EACH ROW WHEN (OLD.visibility IS DISTINCT FROM NEW.visibility) EXECUTE FUNCTION certificate_content_changed();
    CREATE TRIGGER lab_certificate_deleted AFTER DELETE ON labs
      FOR EACH ROW WHEN (OLD.visibility) EXECUTE FUNCTION certificate_content_changed();

    -- an exercise removed may complete its lab for some: sweep the lab's course
    CREATE FUNCTION certificate_exercise_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM certificate_course_sweep(l.course_id) FROM labs l WHERE l.id = OLD.lab_id AND l.visibility;
      RETURN NULL;
    END $$;
    CREATE TRIGGER lab_exercise_certificate_deleted AFTER DELETE ON lab_exercises
      FOR EACH ROW EXECUTE FUNCTION certificate_exercise_removed();

    -- a program assigned, or a course taken out of one
    CREATE FUNCTION certificate_program_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_TABLE_NAME = 'program_assignments' THEN
        IF EXISTS (SELECT 1 FROM programs p WHERE p.id = NEW.program_id AND p.certificates) THEN
          PERFORM certificate_due_add(NEW.user_id, NULL, NEW.program_id);
        END IF;
      ELSIF EXISTS (SELECT 1 FROM programs p WHERE p.id = OLD.program_id AND p.certificates) THEN
        PERFORM certificate_due_add(NULL, NULL, OLD.program_id);
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER program_assignment_certificate AFTER INSERT ON program_assignments
      FOR EACH ROW EXECUTE FUNCTION certificate_program_changed();
    CREATE TRIGGER program_course_certificate_removed AFTER DELETE ON program_courses
      FOR EACH ROW EXECUTE FUNCTION certificate_program_changed();
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP TRIGGER program_course_certificate_removed ON program_courses;
    DROP TRIGGER program_assignment_certificate ON program_assignments;
    DROP TRIGGER lab_exercise_certificate_deleted ON lab_exercises;
    DROP TRIGGER lab_certificate_deleted ON labs;
    DROP TRIGGER lab_certificate_changed ON labs;
    DROP TRIGGER content_entry_certificate_deleted ON content_entries;
    DROP TRIGGER content_entry_certificate_changed ON content_entries;
    DROP TRIGGER course_completion_tally_certificate ON course_completion_tallies;
    DROP FUNCTION certificate_program_changed();
    DROP FUNCTION certificate_exercise_removed();
    DROP FUNCTION certificate_content_changed();
    DROP FUNCTION certificate_course_sweep(uuid);
    DROP FUNCTION certificate_tally_due();
    DROP FUNCTION certificate_due_add(uuid, uuid, uuid);
    DROP TABLE certificate_due;
    DROP TABLE certificates;
    DROP TABLE certificate_keys;
    ALTER TABLE programs DROP COLUMN certificates, DROP COLUMN certificate_issuer, DROP COLUMN certificate_signature_key;
    ALTER TABLE courses DROP COLUMN certificates, DROP COLUMN certificate_issuer, DROP COLUMN certificate_signature_key;
    DELETE FROM files WHERE purpose = 'certificate_signature';
    ALTER TABLE files DROP CONSTRAINT files_purpose_check;
    ALTER TABLE files ADD CONSTRAINT files_purpose_check CHECK (purpose IN
      ('course_image', 'program_image', 'document', 'assessment', 'user_import', 'import_errors'));
  `)
}

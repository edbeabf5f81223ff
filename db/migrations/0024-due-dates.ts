import type { MigrationFn } from '#db/migration.ts'

// Due dates on assignments, learners' time zones, and the reminders sent about them (docs/product.md#due-dates).
//
// course_assignments, program_assignments: an assignment may be due on a calendar day (due_date: due at the
// end of that day in the learner's time zone) or at an exact time (due_at), never both. reminder_plan, when
// set, replaces the portal's plan for that one assignment ({"before": [days…], "after": [days…]}; two empty
// lists send none).
//
// users: time_zone (an IANA name; NULL is the portal's DEFAULT_TIME_ZONE) and reminder_mails (a learner's
// own "no reminder mails", which counts only where the admins allow learners to turn them off).
//
// courses, programs: reminders, off to send none about that course or program whatever its assignments say.
//
// assignment_reminders: one row per reminder sent, under its key (learner, course or program, the due date as
// it was set, the step of the plan such as before-7 or after-3). The sweep inserts the row and the mail that
// carries it in one transaction, ON CONFLICT DO NOTHING: two sweeps, a restart or a re-run never queue a second
// mail for one key, and a moved due date has a new key, so its reminders are sent again. The mail is queued
// in mail_queue (kind reminder, subject_id the reminder) and sent by the mail queue's workers.
//
// assignment_due_at(): when an assignment is due, as an instant, for a learner in a time zone: the end of
// the due day there (midnight after it), or the exact time.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE users
      ADD COLUMN time_zone text,
      ADD COLUMN reminder_mails boolean NOT NULL DEFAULT true;

    ALTER TABLE course_assignments
      ADD COLUMN due_date date,
      ADD COLUMN due_at timestamptz,
      ADD COLUMN reminder_plan jsonb,
      ADD CONSTRAINT course_assignments_due_check CHECK (due_date IS NULL OR due_at IS NULL),
      ADD CONSTRAINT course_assignments_plan_check CHECK (reminder_plan IS NULL OR jsonb_typeof(reminder_plan) = 'object');
    ALTER TABLE program_assignments
      ADD COLUMN due_date date,
      ADD COLUMN due_at timestamptz,
      ADD COLUMN reminder_plan jsonb,
      ADD CONSTRAINT program_assignments_due_check CHECK (due_date IS NULL OR due_at IS NULL),
      ADD CONSTRAINT program_assignments_plan_check CHECK (reminder_plan IS NULL OR jsonb_typeof(reminder_plan) = 'object');
    -- the assignments with a due date, found by it (the sweep, the overdue filters, the dashboard)
    CREATE INDEX course_assignments_due_idx ON course_assignments ((COALESCE(due_date, (due_at AT TIME ZONE 'UTC')::date)), user_id)
      WHERE due_date IS NOT NULL OR due_at IS NOT NULL;
    CREATE INDEX program_assignments_due_idx ON program_assignments ((COALESCE(due_date, (due_at AT TIME ZONE 'UTC')::date)), user_id)
      WHERE due_date IS NOT NULL OR due_at IS NOT NULL;

    ALTER TABLE courses ADD COLUMN reminders boolean NOT NULL DEFAULT true;
    ALTER TABLE programs ADD COLUMN reminders boolean NOT NULL DEFAULT true;

    CREATE FUNCTION assignment_due_at(p_due_date date, p_due_at timestamptz, p_zone text)
      RETURNS timestamptz LANGUAGE sql STABLE AS $$
      SELECT COALESCE(p_due_at, ((p_due_date + 1)::timestamp AT TIME ZONE p_zone))
    $$;
    -- the due date as it was set, the same text however the learner's time zone changes
    CREATE FUNCTION assignment_due_key(p_due_date date, p_due_at timestamptz)
      RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT COALESCE(to_char(p_due_date, 'YYYY-MM-DD'), to_char(p_due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
    $$;

    CREATE TABLE assignment_reminders (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      course_id uuid REFERENCES courses (id) ON DELETE CASCADE,
      program_id uuid REFERENCES programs (id) ON DELETE CASCADE,
      due text NOT NULL,
      step text NOT NULL CHECK (step ~ '^(before|after)-[0-9]+$'),
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT assignment_reminders_subject_check CHECK ((course_id IS NULL) <> (program_id IS NULL)),
      CONSTRAINT assignment_reminders_key UNIQUE NULLS NOT DISTINCT (user_id, course_id, program_id, due, step)
    );
    CREATE INDEX assignment_reminders_course_idx ON assignment_reminders (course_id) WHERE course_id IS NOT NULL;
    CREATE INDEX assignment_reminders_program_idx ON assignment_reminders (program_id) WHERE program_id IS NOT NULL;

    ALTER TABLE mail_queue DROP CONSTRAINT mail_queue_kind_check;
    ALTER TABLE mail_queue ADD CONSTRAINT mail_queue_kind_check CHECK (kind IN ('invitation', 'backup-failed', 'reminder'));
    ALTER TABLE mail_queue DROP CONSTRAINT mail_queue_subject_check;
    ALTER TABLE mail_queue ADD CONSTRAINT mail_queue_subject_check CHECK ((kind <> 'invitation') = (subject_id IS NOT NULL));
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DELETE FROM mail_queue WHERE kind = 'reminder';
    ALTER TABLE mail_queue DROP CONSTRAINT mail_queue_subject_check;
    ALTER TABLE mail_queue ADD CONSTRAINT mail_queue_subject_check CHECK ((kind = 'backup-failed') = (subject_id IS NOT NULL));
    ALTER TABLE mail_queue DROP CONSTRAINT mail_queue_kind_check;
    ALTER TABLE mail_queue ADD CONSTRAINT mail_queue_kind_check CHECK (kind IN ('invitation', 'backup-failed'));
    DROP TABLE assignment_reminders;
    DROP FUNCTION assignment_due_key(date, timestamptz);
    DROP FUNCTION assignment_due_at(date, timestamptz, text);
    ALTER TABLE programs DROP COLUMN reminders;
    ALTER TABLE courses DROP COLUMN reminders;
    ALTER TABLE program_assignments DROP COLUMN due_date, DROP COLUMN due_at, DROP COLUMN reminder_plan;
    ALTER TABLE course_assignments DROP COLUMN due_date, DROP COLUMN due_at, DROP COLUMN reminder_plan;
    ALTER TABLE users DROP COLUMN time_zone, DROP COLUMN reminder_mails;
  `)
}

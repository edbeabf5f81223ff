import type { MigrationFn } from '#db/migration.ts'

// Scheduled backups, kept like the scheduled exports (0008).
//
// backup_schedules: where to write an archive (an s3://bucket/prefix/ or a server folder ending in /), on a
// cron schedule read in the schedule's time zone, and how many to keep: the newest of each of the last
// keep_daily days and of each of the last keep_weekly weeks. Schedules never include the secrets.
//
// backup_runs: one row per run, written (with its job) before the run starts. A scheduled run carries its
// slot and (schedule_id, slot) is unique, so each slot is claimed by exactly one process. A run keeps what
// its archive holds (bytes, tables, rows, files), when it was verified by reading it back, and when
// retention removed its archive: the row stays. Removing a schedule keeps its history under its name.
//
// mail_queue: a failed backup mails the super admins. Such a mail is about a record (subject_id, the run),
// so one user may have several waiting; an invitation is still one per user at a time.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE backup_schedules (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name citext NOT NULL UNIQUE,
      cron text NOT NULL,
      time_zone text NOT NULL DEFAULT 'UTC',
      destination text NOT NULL,
      keep_daily integer NOT NULL DEFAULT 7 CHECK (keep_daily >= 0),
      keep_weekly integer NOT NULL DEFAULT 4 CHECK (keep_weekly >= 0),
      compression text NOT NULL DEFAULT 'zstd' CHECK (compression IN ('zstd', 'gzip')),
      created_at timestamptz NOT NULL DEFAULT now(),
      created_by uuid REFERENCES users (id) ON DELETE SET NULL
    );

    CREATE TABLE backup_runs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      schedule_id uuid REFERENCES backup_schedules (id) ON DELETE SET NULL,
      schedule_name text NOT NULL,
      trigger text NOT NULL CHECK (trigger IN ('schedule', 'manual')),
      slot timestamptz,
      started_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
      location text,
      bytes bigint,
      duration_ms integer,
      tables integer,
      rows bigint,
      files integer,
      verified_at timestamptz,
      removed_at timestamptz,
      error text,
      CHECK ((trigger = 'schedule') = (slot IS NOT NULL)),
      UNIQUE (schedule_id, slot)
    );
    CREATE INDEX backup_runs_recent_idx ON backup_runs (started_at DESC);
    CREATE INDEX backup_runs_kept_idx ON backup_runs (schedule_id) WHERE location IS NOT NULL AND removed_at IS NULL;

    ALTER TABLE mail_queue DROP CONSTRAINT mail_queue_kind_check;
    ALTER TABLE mail_queue ADD CONSTRAINT mail_queue_kind_check CHECK (kind IN ('invitation', 'backup-failed'));
    ALTER TABLE mail_queue ADD COLUMN subject_id uuid;
    ALTER TABLE mail_queue ADD CONSTRAINT mail_queue_subject_check CHECK ((kind = 'backup-failed') = (subject_id IS NOT NULL));
    DROP INDEX mail_queue_open_idx;
    CREATE UNIQUE INDEX mail_queue_open_idx ON mail_queue (kind, user_id)
      WHERE status IN ('pending', 'sending') AND subject_id IS NULL;
    CREATE UNIQUE INDEX mail_queue_subject_idx ON mail_queue (kind, user_id, subject_id) WHERE subject_id IS NOT NULL;
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DELETE FROM mail_queue WHERE kind = 'backup-failed';
    DROP INDEX mail_queue_subject_idx;
    DROP INDEX mail_queue_open_idx;
    CREATE UNIQUE INDEX mail_queue_open_idx ON mail_queue (kind, user_id) WHERE status IN ('pending', 'sending');
    ALTER TABLE mail_queue DROP CONSTRAINT mail_queue_subject_check;
    ALTER TABLE mail_queue DROP COLUMN subject_id;
    ALTER TABLE mail_queue DROP CONSTRAINT mail_queue_kind_check;
    ALTER TABLE mail_queue ADD CONSTRAINT mail_queue_kind_check CHECK (kind IN ('invitation'));
    DROP TABLE IF EXISTS backup_runs;
    DROP TABLE IF EXISTS backup_schedules;
  `)
}

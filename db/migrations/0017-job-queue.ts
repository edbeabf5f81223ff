import type { MigrationFn } from '#db/migration.ts'

// Background work moves onto the job library (its tables live in the schema `pgboss`, installed after
// the portal's own migrations by app/modules/jobs/install.server.ts). The records of that work stay
// here, and each one that waits on work gets a job with the record's id, which the install gives to
// the rows this migration leaves waiting: queued and half-sent mail, running imports, running runs.
//
// - mail_queue: when to try again is the job's (the library's retry delays), so next_attempt_at goes;
//   claimed_at stays, since the sending rate is counted from the claims of the last minute.
// - import_jobs: a confirmed import is `queued` until a worker takes it; the job's heartbeat replaces
//   the row's lease (heartbeat_at); the delimiter chosen on the page is kept, since the import no
//   longer runs in the request that confirmed it (imports confirmed before this read it as `auto`).
// - export_runs: a claimed slot is `queued` until a worker takes it, and `queued` again while a failed
//   try waits for the next; rows counts the rows written so far while it runs.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP INDEX mail_queue_due_idx;
    ALTER TABLE mail_queue DROP COLUMN next_attempt_at;

    ALTER TABLE import_jobs DROP CONSTRAINT import_jobs_status_check;
    ALTER TABLE import_jobs DROP CONSTRAINT import_jobs_check;
    DROP INDEX import_jobs_running_upload_idx;
    ALTER TABLE import_jobs
      ADD CONSTRAINT import_jobs_status_check CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
      ADD CONSTRAINT import_jobs_finished_check CHECK ((status IN ('queued', 'running')) = (finished_at IS NULL)),
      ALTER COLUMN status SET DEFAULT 'queued',
      ADD COLUMN delimiter text NOT NULL DEFAULT 'auto' CHECK (delimiter IN ('auto', ',', ';')),
      DROP COLUMN heartbeat_at;
    CREATE UNIQUE INDEX import_jobs_open_upload_idx ON import_jobs (upload_key) WHERE status IN ('queued', 'running');

    ALTER TABLE export_runs DROP CONSTRAINT export_runs_status_check;
    ALTER TABLE export_runs
      ADD CONSTRAINT export_runs_status_check CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
      ALTER COLUMN status SET DEFAULT 'queued';
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    UPDATE export_runs SET status = 'running' WHERE status = 'queued';
    ALTER TABLE export_runs DROP CONSTRAINT export_runs_status_check;
    ALTER TABLE export_runs
      ADD CONSTRAINT export_runs_status_check CHECK (status IN ('running', 'succeeded', 'failed')),
      ALTER COLUMN status SET DEFAULT 'running';

    DROP INDEX import_jobs_open_upload_idx;
    UPDATE import_jobs SET status = 'running' WHERE status = 'queued';
    ALTER TABLE import_jobs DROP CONSTRAINT import_jobs_status_check;
    ALTER TABLE import_jobs DROP CONSTRAINT import_jobs_finished_check;
    ALTER TABLE import_jobs
      ADD CONSTRAINT import_jobs_status_check CHECK (status IN ('running', 'succeeded', 'failed')),
      ADD CONSTRAINT import_jobs_check CHECK ((status = 'running') = (finished_at IS NULL)),
      ALTER COLUMN status SET DEFAULT 'running',
      DROP COLUMN delimiter,
      ADD COLUMN heartbeat_at timestamptz NOT NULL DEFAULT now();
    CREATE UNIQUE INDEX import_jobs_running_upload_idx ON import_jobs (upload_key) WHERE status = 'running';

    ALTER TABLE mail_queue ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now();
    CREATE INDEX mail_queue_due_idx ON mail_queue (next_attempt_at) WHERE status = 'pending';
  `)
}

import type { MigrationFn } from '#db/migration.ts'

// The confirmed imports of the Import users page, run in the background by the web process and watched
// from the page.
//
// A job row is written before the import starts and holds its progress (bytes of the file read, the
// counts so far), brought up to date after every batch. `heartbeat_at` is a lease the running process
// renews every few seconds: a running job whose lease is a couple of minutes old belongs to a process that
// died, and is read (and recorded) as failed. Only one running job per uploaded file (the partial unique
// index), so confirming twice watches the same import. The upload and the error CSV are stored files; when
// the sweep removes them the job keeps its counts and loses only the link.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE import_jobs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      started_by uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      file_name text NOT NULL,
      upload_key text REFERENCES files (key) ON DELETE SET NULL,
      on_existing text NOT NULL CHECK (on_existing IN ('skip', 'update', 'fail')),
      invite boolean NOT NULL DEFAULT false,
      status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'failed')),
      bytes_total bigint NOT NULL CHECK (bytes_total >= 0),
      bytes_read bigint NOT NULL DEFAULT 0 CHECK (bytes_read >= 0),
      rows integer NOT NULL DEFAULT 0,
      created integer NOT NULL DEFAULT 0,
      updated integer NOT NULL DEFAULT 0,
      skipped integer NOT NULL DEFAULT 0,
      assigned integer NOT NULL DEFAULT 0,
      failed integer NOT NULL DEFAULT 0,
      errors_key text REFERENCES files (key) ON DELETE SET NULL,
      message text,
      started_at timestamptz NOT NULL DEFAULT now(),
      heartbeat_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      CHECK ((status = 'running') = (finished_at IS NULL))
    );
    CREATE UNIQUE INDEX import_jobs_running_upload_idx ON import_jobs (upload_key) WHERE status = 'running';
    CREATE INDEX import_jobs_started_by_idx ON import_jobs (started_by, started_at DESC);
    -- the sweep removing a stored file finds the jobs that name it
    CREATE INDEX import_jobs_upload_key_idx ON import_jobs (upload_key);
    CREATE INDEX import_jobs_errors_key_idx ON import_jobs (errors_key);
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql('DROP TABLE IF EXISTS import_jobs;')
}

import type { MigrationFn } from '#db/migration.ts'

// Scheduled access-log exports.
//
// export_schedules: what to export (a range of days named relative to the run, some courses or all, a
// format) and where to (an s3://bucket/prefix/ or a server folder ending in /), on a cron schedule read in
// the schedule's time zone.
//
// export_runs: one row per run, written before the run starts. A scheduled run carries its slot (the
// cron time it stands for) and (schedule_id, slot) is unique, so however many processes look for due
// work on one database, each slot is claimed by exactly one of them. A manual run has no slot. Removing
// a schedule keeps its history: the run keeps the schedule's name and loses only the link.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE export_schedules (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name citext NOT NULL UNIQUE,
      cron text NOT NULL,
      time_zone text NOT NULL DEFAULT 'UTC',
      range text NOT NULL CHECK (range IN ('yesterday', 'last-7-days', 'last-month', 'month-to-date')),
      courses uuid[] NOT NULL DEFAULT '{}',
      format text NOT NULL DEFAULT 'csv' CHECK (format IN ('csv', 'jsonl')),
      destination text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      created_by uuid REFERENCES users (id) ON DELETE SET NULL
    );

    CREATE TABLE export_runs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      schedule_id uuid REFERENCES export_schedules (id) ON DELETE SET NULL,
      schedule_name text NOT NULL,
      trigger text NOT NULL CHECK (trigger IN ('schedule', 'manual')),
      slot timestamptz,
      started_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'failed')),
      rows bigint,
      bytes bigint,
      location text,
      error text,
      CHECK ((trigger = 'schedule') = (slot IS NOT NULL)),
      UNIQUE (schedule_id, slot)
    );
    CREATE INDEX export_runs_recent_idx ON export_runs (started_at DESC);
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql('DROP TABLE IF EXISTS export_runs; DROP TABLE IF EXISTS export_schedules;')
}

import type { MigrationFn } from '#db/migration.ts'

// Heartbeats spend a per-video credit of seconds that refills with wall-clock time at 2× speed and
// holds at most a minute (ADR 008): many small heartbeats can no longer add up faster than viewing.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql('ALTER TABLE video_progress ADD COLUMN credit real NOT NULL DEFAULT 60')
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql('ALTER TABLE video_progress DROP COLUMN IF EXISTS credit')
}

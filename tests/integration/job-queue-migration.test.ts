import { randomBytes } from 'node:crypto'
import { mkdtemp, readdir, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { Sequelize } from 'sequelize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { listSchedules } from '#app/modules/exports/service.server.ts'
import { storage } from '#app/modules/files/storage.server.ts'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { disconnect } from '#db/client.ts'
import { migrate } from '#db/migrate.ts'
import { eventually, jobOf, startWorkers, stopWorkers } from '#tests/jobs.ts'
import { databaseAt } from '#tests/old-shape.ts'
import { readOutbox } from '#tests/outbox.ts'

// The move onto the job queue, from a database of the shape before it (migrations up to 0016) holding
// rows in every state the three loops left: queued, half-sent, sent, failed and cancelled mail; running,
// finished and failed imports; schedules with running, finished and failed runs. After the migration
// every row is still there as it was, each one that waited on work has its job (with the row's id), and
// the workers do that work.

let database: Awaited<ReturnType<typeof databaseAt>>
let old: Sequelize
const rows = <T extends object>(text: string, bind: unknown[] = []) => database.rows<T>(text, bind)

const ids: Record<string, string> = {}
let folder = ''

beforeAll(async () => {
  database = await databaseAt('0016-rate-limits')
  old = database.sequelize
  // this file's services and workers use the old database
  await disconnect()
  process.env.DATABASE_URL = database.url
  resetEnvCache()

  const [adminUser, ...learners] = await rows<{ id: string }>(
    `INSERT INTO users (first_name, last_name, user_name, email, role_id, password_hash)
     SELECT 'Old', 'Row', 'old' || g, 'old' || g || '@example.com', CASE WHEN g = 0 THEN 3 ELSE 2 END,
            CASE WHEN g IN (3, 4) THEN 'x' END
       FROM generate_series(0, 5) g ORDER BY g RETURNING id`,
  )
  // mail in every state: due, half-sent by a process that died, sent, failed for good, cancelled
  const mail = async (status: string, userId: string, extra = '') =>
    (
      await rows<{ id: string }>(
        `INSERT INTO mail_queue (kind, user_id, status, attempts, last_error, sent_at, claimed_at, claimed_by)
         VALUES ('invitation', $1, $2, ${extra || `0, NULL, NULL, NULL, NULL`}) RETURNING id`,
        [userId, status],
      )
    )[0].id
  ids.pending = await mail('pending', learners[0].id)
  ids.sending = await mail(
    'sending',
    learners[1].id,
    `1, NULL, NULL, now() - interval '20 minutes', 'old-host:41:dead'`,
  )
  ids.sent = await mail('sent', learners[2].id, `1, NULL, now() - interval '1 day', now() - interval '1 day', NULL`)
  ids.failed = await mail(
    'failed',
    learners[3].id,
    `8, '535 Authentication failed', NULL, now() - interval '2 days', NULL`,
  )
  ids.cancelled = await mail('cancelled', learners[4].id, `1, 'The account already has a password.', NULL, NULL, NULL`)

  // imports: one running when its process went away (its file still stored), one done, one failed
  const key = `old-import-${randomBytes(4).toString('hex')}`
  const csv = 'firstName,lastName,email,userName\nMiriam,Moved,mia.moved@example.com,miamoved\n'
  await storage().put(key, Buffer.from(csv), 'text/csv')
  await rows(
    `INSERT INTO files (key, purpose, name, content_type, size, uploaded_by) VALUES ($1, 'user_import', 'old.csv', 'text/csv', $2, $3) RETURNING key`,
    [key, Buffer.byteLength(csv), adminUser.id],
  )
  const job = async (status: string, uploadKey: string | null) =>
    (
      await rows<{ id: string }>(
        `INSERT INTO import_jobs (started_by, file_name, upload_key, on_existing, status, bytes_total, rows, created,
           heartbeat_at, finished_at, message)
         VALUES ($1, 'old.csv', $2, 'skip', $3, 100, 7, 7, now() - interval '5 minutes',
           CASE WHEN $3 = 'running' THEN NULL ELSE now() END, CASE WHEN $3 = 'failed' THEN 'It broke.' END)
         RETURNING id`,
        [adminUser.id, uploadKey, status],
      )
    )[0].id
  ids.importRunning = await job('running', key)
  ids.importDone = await job('succeeded', null)
  ids.importFailed = await job('failed', null)

  // a schedule with a run that was running when its process went away, one done, one failed
  folder = `${await mkdtemp(path.join(os.tmpdir(), 'portal-old-exports-'))}/`
  const [schedule] = await rows<{ id: string }>(
    `INSERT INTO export_schedules (name, cron, time_zone, range, courses, format, destination, created_at)
     VALUES ('nightly', '0 2 * * *', 'UTC', 'yesterday', '{}', 'csv', $1, '2026-01-01') RETURNING id`,
    [folder],
  )
  const exportRun = async (status: string, slot: string) =>
    (
      await rows<{ id: string }>(
        `INSERT INTO export_runs (schedule_id, schedule_name, trigger, slot, status, finished_at, rows, error)
         VALUES ($1, 'nightly', 'schedule', $2, $3, CASE WHEN $3 = 'running' THEN NULL ELSE now() END,
                 CASE WHEN $3 = 'succeeded' THEN 3 END, CASE WHEN $3 = 'failed' THEN 'The bucket does not exist.' END)
         RETURNING id`,
        [schedule.id, slot, status],
      )
    )[0].id
  ids.runDone = await exportRun('succeeded', '2026-11-22T02:00:00Z')
  ids.runFailed = await exportRun('failed', '2026-11-23T02:00:00Z')
  ids.runRunning = await exportRun('running', '2026-11-24T02:00:00Z')
  await writeFile(path.join(folder, '.keep'), '')
})

afterAll(async () => {
  await stopWorkers()
  await disconnect()
  await database?.drop()
})

describe('the migration onto the job queue', () => {
  it('keeps every row as it was and gives a job to each that waits on work, once however often it runs', async () => {
    const applied = await migrate(old)
    // this migration first, then any that came after it
    expect(applied[0]).toBe('0017-job-queue')
    // a second migration (a restart, another instance) changes nothing
    expect(await migrate(old)).toEqual([])

    const mail = await rows<{ id: string; status: string; attempts: number; last_error: string | null }>(
      'SELECT id, status, attempts, last_error FROM mail_queue',
    )
    expect(Object.fromEntries(mail.map((m) => [m.id, [m.status, m.attempts, m.last_error]]))).toEqual({
      [ids.pending]: ['pending', 0, null],
      [ids.sending]: ['sending', 1, null],
      [ids.sent]: ['sent', 1, null],
      [ids.failed]: ['failed', 8, '535 Authentication failed'],
      [ids.cancelled]: ['cancelled', 1, 'The account already has a password.'],
    })
    const imports = await rows<{ id: string; status: string; rows: number; delimiter: string; message: string | null }>(
      'SELECT id, status, rows, delimiter, message FROM import_jobs',
    )
    expect(Object.fromEntries(imports.map((j) => [j.id, [j.status, j.rows, j.delimiter, j.message]]))).toEqual({
      [ids.importRunning]: ['running', 7, 'auto', null],
      [ids.importDone]: ['succeeded', 7, 'auto', null],
      [ids.importFailed]: ['failed', 7, 'auto', 'It broke.'],
    })
    const runs = await rows<{ id: string; status: string; error: string | null }>(
      'SELECT id, status, error FROM export_runs',
    )
    expect(Object.fromEntries(runs.map((r) => [r.id, [r.status, r.error]]))).toEqual({
      [ids.runDone]: ['succeeded', null],
      [ids.runFailed]: ['failed', 'The bucket does not exist.'],
      [ids.runRunning]: ['running', null],
    })
    expect(await listSchedules(SYSTEM)).toMatchObject([
      { name: 'nightly', cron: '0 2 * * *', nextRun: expect.any(String) },
    ])

    // a job for what waits, under the row's own id; none for what has ended
    for (const waiting of ['pending', 'sending'])
      expect(await jobOf(ids[waiting]), waiting).toMatchObject({ name: 'mail', state: 'created' })
    expect(await jobOf(ids.importRunning)).toMatchObject({ name: 'user-import', state: 'created' })
    expect(await jobOf(ids.runRunning)).toMatchObject({ name: 'export-run', state: 'created' })
    for (const ended of ['sent', 'failed', 'cancelled', 'importDone', 'importFailed', 'runDone', 'runFailed'])
      expect(await jobOf(ids[ended]), ended).toBeUndefined()
    const [{ n }] = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM pgboss.job WHERE name NOT LIKE '\\_\\_%'`)
    expect(n).toBe(4)
  })

  it('leaves the waiting work to the workers, which do it', async () => {
    await startWorkers(['mail', 'user-import', 'export-run'])
    await eventually(async () => {
      const open = await rows<{ n: number }>(
        `SELECT (SELECT count(*) FROM mail_queue WHERE status IN ('pending', 'sending'))
              + (SELECT count(*) FROM import_jobs WHERE status IN ('queued', 'running'))
              + (SELECT count(*) FROM export_runs WHERE status IN ('queued', 'running')) AS n`,
      )
      return Number(open[0].n) === 0
    }, 60_000)

    expect(
      await rows<{ status: string; attempts: number }>(
        'SELECT status, attempts FROM mail_queue WHERE id = ANY($1::uuid[]) ORDER BY attempts',
        [[ids.pending, ids.sending]],
      ),
    ).toEqual([
      { status: 'sent', attempts: 1 },
      { status: 'sent', attempts: 2 },
    ])
    const outbox = await readOutbox(process.env.DATA_DIR!)
    for (const n of [1, 2])
      expect(outbox.filter((m) => JSON.stringify(m.to).includes(`old${n}@example.com`))).toHaveLength(1)
    expect(await rows('SELECT status, created FROM import_jobs WHERE id = $1', [ids.importRunning])).toEqual([
      { status: 'succeeded', created: 1 },
    ])
    expect(await rows('SELECT email FROM users WHERE email = $1', ['mia.moved@example.com'])).toHaveLength(1)
    expect(await rows('SELECT status FROM export_runs WHERE id = $1', [ids.runRunning])).toEqual([
      { status: 'succeeded' },
    ])
    expect((await readdir(folder)).sort()).toEqual(['.keep', 'nightly_2026-11-23_2026-11-23.csv'])
  })
})

import { spawn } from 'node:child_process'
import { createReadStream, existsSync } from 'node:fs'
import { mkdir, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { QueryTypes, UniqueConstraintError, type Transaction } from 'sequelize'
import { getEnv } from '#app/utils/env.server.ts'
import { errorLine } from '#app/utils/redact.server.ts'
import { databaseUrl, sequelize, transaction as inTransaction } from '#db/client.ts'
import { can, requirePermission } from '../auth/permissions.ts'
import { SYSTEM, type Actor } from '../auth/roles.ts'
import { conflict, invalid, isServiceError, notFound } from '../errors.ts'
import { allowedS3Targets, refusedFromAdminArea, requireWritableFolder } from '../files/destinations.server.ts'
import { isUuid } from '../ids.ts'
import { enqueueJob } from '../jobs/connection.server.ts'
import { cronOf, latestSlot } from '../jobs/cron-slots.ts'
import type { JobHandler, RunningJob } from '../jobs/job.ts'
import { enqueueBackupFailedMails } from '../mail/queue.server.ts'
import { archivesToRemove } from './retention.ts'
import { BackupHistorySchema, BackupScheduleSchema, type BackupSchedule } from './schedules-schema.ts'
import { openArchive } from './source.server.ts'
import { verifyArchive } from './verify.server.ts'

// Scheduled backups, run like the scheduled exports (app/modules/exports): schedules kept in the database;
// each run is a job (queue `backup-run`, the job's id the run's) that a worker runs, and a job of the queue
// `backup-look`, once a minute, claims each schedule's latest due slot exactly once (the slot rule of
// app/modules/jobs/cron-slots.ts, with UNIQUE (schedule_id, slot)).
//
// A run's try: the run is marked running; `portal backup` runs in a child process (the same command and
// environment an operator would use, so the archive's tar and compression work stays off the worker's event
// loop, and the child is stopped with the job); the new archive is then read back whole and checked
// (verifyArchive), and only a verified archive lets retention remove older ones (retention.ts). A failed try
// is tried once more; the last one fails the run and, in the same transaction, queues a mail to each super
// admin. Schedules never put the secrets in their archives.

type BackupScheduleView = {
  id: string
  name: string
  cron: string
  timeZone: string
  destination: string
  keepDaily: number
  keepWeekly: number
  compression: BackupSchedule['compression']
  createdAt: string
  createdBy: string | null
  /** the next slot after now, in UTC */
  nextRun: string | null
}

type BackupRunStatus = 'queued' | 'running' | 'succeeded' | 'failed'

export type BackupRunView = {
  id: string
  scheduleId: string | null
  scheduleName: string
  trigger: 'schedule' | 'manual'
  slot: string | null
  startedAt: string
  finishedAt: string | null
  status: BackupRunStatus
  /** the archive: a file on the worker's disk or s3://bucket/key */
  location: string | null
  bytes: number | null
  durationMs: number | null
  tables: number | null
  rows: number | null
  files: number | null
  /** when the archive was read back whole and found sound */
  verifiedAt: string | null
  /** when retention removed the archive (the run is kept) */
  removedAt: string | null
  /** why a run failed; on a succeeded run, what retention could not remove */
  error: string | null
}

type ScheduleRow = {
  id: string
  name: string
  cron: string
  time_zone: string
  destination: string
  keep_daily: number
  keep_weekly: number
  compression: BackupSchedule['compression']
  created_at: Date
  created_by: string | null
}

type RunRow = {
  id: string
  schedule_id: string | null
  schedule_name: string
  trigger: 'schedule' | 'manual'
  slot: Date | null
  started_at: Date
  finished_at: Date | null
  status: BackupRunStatus
  location: string | null
  bytes: string | null
  duration_ms: number | null
  tables: number | null
  rows: string | null
  files: number | null
  verified_at: Date | null
  removed_at: Date | null
  error: string | null
}

const RUN_COLUMNS = `id, schedule_id, schedule_name, trigger, slot, started_at, finished_at, status, location, bytes,
  duration_ms, tables, rows, files, verified_at, removed_at, error`

async function select<T extends object>(text: string, bind: unknown[] = [], transaction?: Transaction) {
  const sql = await sequelize()
  return sql.query<T>(text, { bind, type: QueryTypes.SELECT, transaction })
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)
const count = (n: string | number | null) => (n === null ? null : Number(n))

function toSchedule(row: ScheduleRow, now = new Date()): BackupScheduleView {
  return {
    id: row.id,
    name: row.name,
    cron: row.cron,
    timeZone: row.time_zone,
    destination: row.destination,
    keepDaily: row.keep_daily,
    keepWeekly: row.keep_weekly,
    compression: row.compression,
    createdAt: new Date(row.created_at).toISOString(),
    createdBy: row.created_by,
    nextRun: iso(cronOf(row).nextRun(now)),
  }
}

function toRun(row: RunRow): BackupRunView {
  return {
    id: row.id,
    scheduleId: row.schedule_id,
    scheduleName: row.schedule_name,
    trigger: row.trigger,
    slot: iso(row.slot),
    startedAt: new Date(row.started_at).toISOString(),
    finishedAt: iso(row.finished_at),
    status: row.status,
    location: row.location,
    bytes: count(row.bytes),
    durationMs: row.duration_ms,
    tables: row.tables,
    rows: count(row.rows),
    files: row.files,
    verifiedAt: iso(row.verified_at),
    removedAt: iso(row.removed_at),
    error: row.error,
  }
}

const requireManager = (actor: Actor) => requirePermission(actor, 'manage:backups')
const requireReader = (actor: Actor) => requirePermission(actor, 'read:backups')

/** The folder the Backups page may write archives into: `$DATA_DIR/backups/`. */
export const backupsFolder = () => `${path.resolve(getEnv().DATA_DIR, 'backups')}/`

/** The S3 prefixes the Backups page may write to: those listed in BACKUP_S3_TARGETS, outside the uploads bucket. */
export const s3BackupTargets = (): string[] => allowedS3Targets(getEnv().BACKUP_S3_TARGETS)

/**
 * Why the Backups page may not write archives to this destination, or undefined: a folder inside
 * $DATA_DIR/backups/, or an S3 prefix under one the operator listed in BACKUP_S3_TARGETS, never the uploads
 * bucket. The CLI (an operator with shell access, acting as the system) may name any absolute folder or prefix.
 */
function destinationRefused(actor: Actor, destination: string): string | undefined {
  if (actor.id === SYSTEM.id) return undefined
  return refusedFromAdminArea(destination, { what: 'backups', root: backupsFolder(), targets: s3BackupTargets() })
}

export async function addBackupSchedule(actor: Actor, input: unknown): Promise<BackupScheduleView> {
  requireManager(actor)
  const schedule = BackupScheduleSchema.parse(input)
  const refused = destinationRefused(actor, schedule.destination)
  if (refused) throw invalid(refused, { destination: refused })
  // a folder must be there and writable now, not found missing at the first run in the night; the Backups
  // page's own folder (inside $DATA_DIR/backups) is made for it
  if (!schedule.destination.startsWith('s3://')) {
    if (actor.id !== SYSTEM.id) await mkdir(schedule.destination, { recursive: true })
    await requireWritableFolder(schedule.destination).catch((error: unknown) => {
      if (!isServiceError(error)) throw error
      throw invalid(error.message, { destination: error.message })
    })
  }
  try {
    const [row] = await select<ScheduleRow>(
      `INSERT INTO backup_schedules (name, cron, time_zone, destination, keep_daily, keep_weekly, compression, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       RETURNING *`,
      [
        schedule.name,
        schedule.cron,
        schedule.timeZone,
        schedule.destination,
        schedule.keepDaily,
        schedule.keepWeekly,
        schedule.compression,
        actor.id,
      ],
    )
    return toSchedule(row)
  } catch (error) {
    if (error instanceof UniqueConstraintError) {
      const message = `A backup schedule named ${schedule.name} already exists.`
      throw conflict(message, { name: message })
    }
    throw error
  }
}

export async function listBackupSchedules(actor: Actor, now = new Date()): Promise<BackupScheduleView[]> {
  requireReader(actor)
  const rows = await select<ScheduleRow>('SELECT * FROM backup_schedules ORDER BY name')
  return rows.map((row) => toSchedule(row, now))
}

/** Remove a schedule; its runs stay in the history under its name, and its archives where they are. */
export async function removeBackupSchedule(actor: Actor, name: string): Promise<{ name: string }> {
  requireManager(actor)
  const [row] = await select<{ name: string }>('DELETE FROM backup_schedules WHERE name = $1 RETURNING name', [
    String(name ?? '').trim(),
  ])
  if (!row) throw notFound(`There is no backup schedule named ${name}.`)
  return row
}

/** The latest runs, newest first. */
export async function listBackupRuns(actor: Actor, input: unknown = {}): Promise<BackupRunView[]> {
  requireReader(actor)
  const { limit } = BackupHistorySchema.parse(input)
  const rows = await select<RunRow>(`SELECT ${RUN_COLUMNS} FROM backup_runs ORDER BY started_at DESC, id LIMIT $1`, [
    limit,
  ])
  return rows.map(toRun)
}

/** A run as it is now (the CLI follows a run it queued). */
export async function findBackupRun(actor: Actor, id: string): Promise<BackupRunView> {
  requireReader(actor)
  if (!isUuid(id)) throw notFound('There is no such backup run.')
  const [row] = await select<RunRow>(`SELECT ${RUN_COLUMNS} FROM backup_runs WHERE id = $1`, [id])
  if (!row) throw notFound('There is no such backup run.')
  return toRun(row)
}

/** Run a schedule now, outside its slots: a manual run, queued for a worker like the scheduled ones. */
export async function runBackupSchedule(actor: Actor, name: string): Promise<BackupRunView> {
  requireManager(actor)
  const [schedule] = await select<ScheduleRow>('SELECT * FROM backup_schedules WHERE name = $1', [
    String(name ?? '').trim(),
  ])
  if (!schedule) throw notFound(`There is no backup schedule named ${name}.`)
  return inTransaction(async (transaction) => {
    const [run] = await select<RunRow>(
      `INSERT INTO backup_runs (schedule_id, schedule_name, trigger) VALUES ($1, $2, 'manual') RETURNING ${RUN_COLUMNS}`,
      [schedule.id, schedule.name],
      transaction,
    )
    await enqueueJob('backup-run', run.id, transaction)
    return toRun(run)
  })
}

/**
 * Queue a run of every schedule whose latest slot at or before `now` has not been claimed yet, once, and
 * return those runs. Safe to call from several processes at once: each slot is claimed by one.
 */
export async function claimDueBackups(now = new Date()): Promise<BackupRunView[]> {
  const schedules = await select<ScheduleRow>('SELECT * FROM backup_schedules ORDER BY name')
  const runs: BackupRunView[] = []
  for (const schedule of schedules) {
    const slot = latestSlot(schedule, now)
    if (!slot) continue
    const claimed = await claimBackupSlot(schedule.id, slot)
    if (claimed) runs.push(await findBackupRun(SYSTEM, claimed))
  }
  return runs
}

/**
 * Write the run that stands for a schedule's slot, with its job, unless that slot (or a later one) has one
 * already: the new run's id for the one caller that wins, undefined for every other (the second insert waits
 * on the first's row under UNIQUE (schedule_id, slot), then does nothing).
 */
async function claimBackupSlot(scheduleId: string, slot: Date): Promise<string | undefined> {
  return inTransaction(async (transaction) => {
    const [claimed] = await select<{ id: string }>(
      `INSERT INTO backup_runs (schedule_id, schedule_name, trigger, slot)
       SELECT s.id, s.name, 'schedule', $2::timestamptz FROM backup_schedules s
        WHERE s.id = $1
          AND NOT EXISTS (SELECT 1 FROM backup_runs r WHERE r.schedule_id = s.id AND r.slot >= $2::timestamptz)
       ON CONFLICT (schedule_id, slot) DO NOTHING
       RETURNING id`,
      [scheduleId, slot],
      transaction,
    )
    if (claimed) await enqueueJob('backup-run', claimed.id, transaction)
    return claimed?.id
  })
}

/** cli/bin.js, found from where this module is: the source tree, or the server build beside it. */
function portalCommand(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const bin = path.join(dir, 'cli', 'bin.js')
    if (existsSync(bin)) return bin
    if (path.dirname(dir) === dir) throw new Error('The portal command (cli/bin.js) is not beside the server.')
  }
}

/** What `portal backup --json` prints of the archive it wrote. */
type Archive = { location: string; bytes: number; tables: number; rows: number; files: number }

/** How long a child asked to stop (the job was) may take to remove its partial archive before it is killed. */
const STOP_GRACE_MS = 30_000

/**
 * `portal backup --to <destination> --json` in a child process, on the worker's own database and environment;
 * stopped (and its partial archive removed by it) when `signal` aborts. Resolves with the archive written, or
 * rejects with the command's own last words.
 */
async function backupInChild(schedule: ScheduleRow, runId: string, signal: AbortSignal): Promise<Archive> {
  const args = [portalCommand(), 'backup', '--to', schedule.destination, '--compression', schedule.compression]
  args.push('--json', '--scheduled-run', runId)
  const env = { ...process.env, DATABASE_URL: await databaseUrl() }
  signal.throwIfAborted()
  return new Promise<Archive>((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-16_384)))
    let kill: NodeJS.Timeout | undefined
    const stop = () => {
      child.kill('SIGTERM')
      kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS).unref()
    }
    signal.addEventListener('abort', stop, { once: true })
    child.once('error', reject)
    child.once('close', (code, killedBy) => {
      signal.removeEventListener('abort', stop)
      clearTimeout(kill)
      if (signal.aborted) return reject(new Error('Stopped before it finished (the job was stopped).'))
      if (code !== 0) {
        const lines = stderr.split(/\r?\n/).filter((line) => line.trim())
        const said = lines.filter((line) => line.startsWith('portal: ')).at(-1) ?? lines.at(-1)
        return reject(
          new Error(said?.replace(/^portal: /, '') ?? `The backup ended with ${killedBy ?? `code ${code}`}.`),
        )
      }
      try {
        resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Archive)
      } catch {
        reject(new Error('The backup ended without saying what it wrote.'))
      }
    })
  })
}

/** Remove an archive a run recorded: a file on this machine's disk, or an S3 object. */
async function removeArchive(location: string) {
  const s3 = /^s3:\/\/([^/]+)\/(.+)$/.exec(location)
  if (!s3) return rm(location, { force: true })
  const [{ DeleteObjectCommand }, { makeS3Client }, { s3Settings }] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('../files/s3-storage.server.ts'),
    import('../files/storage.server.ts'),
  ])
  const client = makeS3Client(s3Settings())
  try {
    await client.send(new DeleteObjectCommand({ Bucket: s3[1], Key: s3[2] }))
  } finally {
    client.destroy()
  }
}

/**
 * Retention after the run `runId` verified its archive: the schedule's other archives that retention.ts does
 * not keep are removed and their runs marked (the rows stay). Only a location a run of this schedule recorded,
 * under the schedule's destination, is ever removed. Answers what could not be removed, if anything.
 */
async function applyRetention(schedule: ScheduleRow, runId: string): Promise<string | undefined> {
  const rows = await select<{ id: string; started_at: Date; verified: boolean; location: string }>(
    `SELECT id, started_at, verified_at IS NOT NULL AND (status = 'succeeded' OR id = $2) AS verified, location
       FROM backup_runs
      WHERE schedule_id = $1 AND location IS NOT NULL AND removed_at IS NULL
        AND (status IN ('succeeded', 'failed') OR id = $2)`,
    [schedule.id, runId],
  )
  const remove = archivesToRemove(
    rows.map((r) => ({ id: r.id, at: new Date(r.started_at), verified: r.verified })),
    runId,
    { keepDaily: schedule.keep_daily, keepWeekly: schedule.keep_weekly, timeZone: schedule.time_zone },
  )
  const problems: string[] = []
  for (const id of remove) {
    const { location } = rows.find((r) => r.id === id)!
    const inside = location.startsWith('s3://') || path.resolve(location) === location
    if (!inside || !location.startsWith(schedule.destination)) {
      problems.push(`${location} is not in ${schedule.destination}; it was left`)
      continue
    }
    try {
      await removeArchive(location)
      await select(`UPDATE backup_runs SET removed_at = now() WHERE id = $1 RETURNING id`, [id])
    } catch (error) {
      problems.push(`${location}: ${errorLine(error)}`)
    }
  }
  return problems.length ? `Older archives could not all be removed: ${problems.join('; ')}.` : undefined
}

/**
 * Fail a run that is still open, unless it ended meanwhile; with `mail`, in the same transaction, queue a mail
 * to each super admin (app/modules/mail/queue.server.ts).
 */
async function failRun(
  id: string,
  error: string,
  { open = ['running'], mail = true }: { open?: BackupRunStatus[]; mail?: boolean } = {},
) {
  await inTransaction(async (transaction) => {
    const [failed] = await select<{ id: string }>(
      `UPDATE backup_runs SET status = 'failed', finished_at = now(), error = $2
        WHERE id = $1 AND status = ANY($3::text[]) RETURNING id`,
      [id, error, open],
      transaction,
    )
    if (failed && mail) await enqueueBackupFailedMails(id, transaction)
  })
}

/**
 * One try of a run's job; see the head of this file. A failed try leaves the run queued with its error (the
 * job queue tries again); the last one fails it and mails the super admins. A run that ended meanwhile
 * (cancelled) is left alone.
 */
export async function runBackup(job: RunningJob): Promise<void> {
  const [run] = await select<RunRow>(
    `UPDATE backup_runs
        SET status = 'running', started_at = now(), error = NULL, location = NULL, bytes = NULL, duration_ms = NULL,
            tables = NULL, rows = NULL, files = NULL, verified_at = NULL
      WHERE id = $1 AND status IN ('queued', 'running') RETURNING ${RUN_COLUMNS}`,
    [job.id],
  )
  if (!run) return
  const [schedule] = await select<ScheduleRow>('SELECT * FROM backup_schedules WHERE id = $1', [run.schedule_id])
  if (!schedule) {
    await failRun(job.id, 'The schedule was removed before this run started.', { mail: false })
    return
  }
  const started = performance.now()
  try {
    if (!schedule.destination.startsWith('s3://')) await requireWritableFolder(schedule.destination)
    const archive = await backupInChild(schedule, job.id, job.signal)
    const report = await verifyArchive(await openArchive(archive.location)).catch((error: unknown) => ({
      ok: false,
      problems: [{ message: errorLine(error) }],
    }))
    if (!report.ok) {
      // known to be unsound: never kept, never counted as a backup
      await removeArchive(archive.location).catch(() => {})
      throw new Error(`The archive did not read back whole (${report.problems[0]?.message}); it was removed.`)
    }
    await select(
      `UPDATE backup_runs SET location = $2, bytes = $3, tables = $4, rows = $5, files = $6, verified_at = now()
        WHERE id = $1 AND status = 'running' RETURNING id`,
      [job.id, archive.location, archive.bytes, archive.tables, archive.rows, archive.files],
    )
  } catch (error) {
    const reason = job.signal.aborted ? 'Stopped before it finished (the job was stopped).' : oneLine(error)
    if (job.lastTry) await failRun(job.id, reason)
    else
      await select(
        `UPDATE backup_runs SET status = 'queued', error = $2 WHERE id = $1 AND status = 'running' RETURNING id`,
        [job.id, `${reason} (it is tried again shortly)`],
      )
    throw new Error(reason)
  }
  const note = await applyRetention(schedule, job.id)
  await select(
    `UPDATE backup_runs SET status = 'succeeded', finished_at = now(), duration_ms = $2, error = $3
      WHERE id = $1 AND status = 'running' RETURNING id`,
    [job.id, Math.round(performance.now() - started), note ?? null],
  )
}

/** Why a run failed, in one line for the history and the mail, without credentials. */
const oneLine = (error: unknown) => errorLine(error) || 'The backup failed.'

/** The jobs of the queue `backup-run`. */
export const backupRunJobs: JobHandler = {
  run: runBackup,
  async gaveUp(id, reason) {
    await failRun(id, reason, { open: ['queued', 'running'] })
  },
  async cancelled(id) {
    await failRun(id, 'Cancelled by an operator.', { open: ['queued', 'running'], mail: false })
  },
  async reopened(id) {
    await select(
      `UPDATE backup_runs SET status = 'queued', finished_at = NULL WHERE id = $1 AND status = 'failed' RETURNING id`,
      [id],
    )
  },
}

/** The jobs of the queue `backup-look`: one a minute, claiming what is due. */
export const backupLookJobs: JobHandler = {
  async run() {
    await claimDueBackups(new Date())
  },
}

type BackupAlert = {
  scheduleName: string
  failedAt: string
  error: string | null
  /** other schedules whose latest backup failed too */
  others: number
}

/**
 * The dashboard's notice, for those who read the backups: the latest failure of a schedule whose latest
 * finished scheduled run failed and that no run has succeeded since. Null when every schedule is well.
 */
export async function backupAlert(actor: Actor): Promise<BackupAlert | null> {
  if (!can(actor, 'read:backups')) return null
  const failing = await select<{ schedule_name: string; finished_at: Date; error: string | null }>(
    `WITH latest AS (
       SELECT DISTINCT ON (r.schedule_id) r.schedule_id, r.schedule_name, r.status, r.finished_at, r.error
         FROM backup_runs r JOIN backup_schedules s ON s.id = r.schedule_id
        WHERE r.trigger = 'schedule' AND r.status IN ('succeeded', 'failed')
        ORDER BY r.schedule_id, r.finished_at DESC, r.id)
     SELECT l.schedule_name, l.finished_at, l.error FROM latest l
      WHERE l.status = 'failed'
        AND NOT EXISTS (SELECT 1 FROM backup_runs r
                         WHERE r.schedule_id = l.schedule_id AND r.status = 'succeeded' AND r.finished_at > l.finished_at)
      ORDER BY l.finished_at DESC`,
  )
  const [latest] = failing
  if (!latest) return null
  return {
    scheduleName: latest.schedule_name,
    failedAt: new Date(latest.finished_at).toISOString(),
    error: latest.error,
    others: failing.length - 1,
  }
}

type ArchiveFile = { body: Readable; size: number; fileName: string; contentType: string }

/**
 * The archive of a succeeded run kept on this server's disk, for those who read the backups. Only the
 * location recorded for that run is opened; an archive in S3, or one retention removed, is not served.
 */
export async function openBackupArchive(actor: Actor, runId: string): Promise<ArchiveFile> {
  requireReader(actor)
  const gone = notFound('There is no archive of this run on the server.')
  if (!isUuid(runId)) throw gone
  const [run] = await select<{ location: string | null; status: BackupRunStatus; removed_at: Date | null }>(
    'SELECT location, status, removed_at FROM backup_runs WHERE id = $1',
    [runId],
  )
  if (!run?.location || run.status !== 'succeeded' || run.removed_at) throw gone
  if (run.location.startsWith('s3://') || !path.isAbsolute(run.location)) throw gone
  const info = await stat(run.location).catch(() => undefined)
  if (!info?.isFile()) throw gone
  const fileName = path.basename(run.location)
  const contentType = fileName.endsWith('.tar.gz') ? 'application/gzip' : 'application/zstd'
  return { body: createReadStream(run.location), size: info.size, fileName, contentType }
}

import { spawn } from 'node:child_process'
import { createReadStream, existsSync } from 'node:fs'
import { rm, stat } from 'node:fs/promises'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { errorLine } from '#app/utils/redact.server.ts'
import { databaseUrl, transaction as inTransaction } from '#db/client.ts'
import { can } from '../auth/permissions.ts'
import type { Actor } from '../auth/roles.ts'
import { notFound } from '../errors.ts'
import { requireWritableFolder } from '../files/destinations.server.ts'
import { isUuid } from '../ids.ts'
import type { RunningJob } from '../jobs/job.ts'
import {
  iso,
  scheduledJob,
  select,
  type RunColumns,
  type RunStatus,
  type ScheduleColumns,
} from '../jobs/schedules.server.ts'
import { enqueueBackupFailedMails } from '../mail/queue.server.ts'
import { archivesToRemove } from './retention.ts'
import { BackupScheduleSchema, type BackupSchedule } from './schedules-schema.ts'
import { openArchive } from './source.server.ts'
import { verifyArchive } from './verify.server.ts'

// Scheduled backups, kept like every schedule of a job (app/modules/jobs/schedules.server.ts): schedules in
// the database; each run is a job (queue `backup-run`, the job's id the run's) that a worker runs, and a job
// of the queue `backup-look`, once a minute, claims each schedule's latest due slot exactly once.
//
// A run's try: the run is marked running; `portal backup` runs in a child process (the same command and
// environment an operator would use, so the archive's tar and compression work stays off the worker's event
// loop, and the child is stopped with the job); the new archive is then read back whole and checked
// (verifyArchive), and only a verified archive lets retention remove older ones (retention.ts). A failed try
// is tried once more; the last one fails the run and, in the same transaction, queues a mail to each super
// admin. Schedules never put the secrets in their archives.

type RunRow = RunColumns & {
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

type ScheduleRow = ScheduleColumns & {
  keep_daily: number
  keep_weekly: number
  compression: BackupSchedule['compression']
}

const RUN_COLUMNS = `id, schedule_id, schedule_name, trigger, slot, started_at, finished_at, status, location, bytes,
  duration_ms, tables, rows, files, verified_at, removed_at, error`

const count = (n: string | number | null) => (n === null ? null : Number(n))

/**
 * The schedules of backups: the Backups page's form and actions work on them, and show the folder and S3
 * prefixes it may write archives to ($DATA_DIR/backups/, those listed in BACKUP_S3_TARGETS).
 */
export const backupSchedules = scheduledJob({
  job: 'backup',
  runColumns: RUN_COLUMNS,
  scheduleFields: (row: ScheduleRow) => ({
    destination: row.destination,
    keepDaily: row.keep_daily,
    keepWeekly: row.keep_weekly,
    compression: row.compression,
  }),
  runFields: (row: RunRow) => ({
    /** the archive: a file on the worker's disk or s3://bucket/key */
    location: row.location,
    bytes: count(row.bytes),
    durationMs: row.duration_ms,
    tables: row.tables,
    rows: count(row.rows),
    files: row.files,
    /** when the archive was read back whole and found sound */
    verifiedAt: iso(row.verified_at),
    /** when retention removed the archive (the run is kept) */
    removedAt: iso(row.removed_at),
    /** why a run failed; on a succeeded run, what retention could not remove */
    error: row.error,
  }),
  words: { schedule: 'backup schedule', run: 'backup run' },
  schema: BackupScheduleSchema,
  columns: (schedule) => ({
    name: schedule.name,
    cron: schedule.cron,
    time_zone: schedule.timeZone,
    destination: schedule.destination,
    keep_daily: schedule.keepDaily,
    keep_weekly: schedule.keepWeekly,
    compression: schedule.compression,
  }),
})

export const addBackupSchedule = backupSchedules.add
export const listBackupSchedules = backupSchedules.list
/** Remove a schedule; its runs stay in the history under its name, and its archives where they are. */
export const removeBackupSchedule = backupSchedules.remove
export const listBackupRuns = backupSchedules.listRuns
export const findBackupRun = backupSchedules.findRun
export const runBackupSchedule = backupSchedules.runNow
export const claimDueBackups = backupSchedules.claimDue

export type BackupRunView = Awaited<ReturnType<typeof findBackupRun>>

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
  { open = ['running'], mail = true }: { open?: RunStatus[]; mail?: boolean } = {},
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
  const started = await backupSchedules.startRun(
    job.id,
    `started_at = now(), error = NULL, location = NULL, bytes = NULL, duration_ms = NULL, tables = NULL,
     rows = NULL, files = NULL, verified_at = NULL`,
  )
  if (!started) return
  const { schedule } = started
  if (!schedule) {
    await failRun(job.id, 'The schedule was removed before this run started.', { mail: false })
    return
  }
  const began = performance.now()
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
    else await backupSchedules.requeue(job.id, 'error = $2', [`${reason} (it is tried again shortly)`])
    throw new Error(reason)
  }
  const note = await applyRetention(schedule, job.id)
  await select(
    `UPDATE backup_runs SET status = 'succeeded', finished_at = now(), duration_ms = $2, error = $3
      WHERE id = $1 AND status = 'running' RETURNING id`,
    [job.id, Math.round(performance.now() - began), note ?? null],
  )
}

/** Why a run failed, in one line for the history and the mail, without credentials. */
const oneLine = (error: unknown) => errorLine(error) || 'The backup failed.'

/** The jobs of the queue `backup-run`. */
export const backupRunJobs = backupSchedules.runJobs({
  run: runBackup,
  async gaveUp(id, reason) {
    await failRun(id, reason, { open: ['queued', 'running'] })
  },
  async cancelled(id) {
    await failRun(id, 'Cancelled by an operator.', { open: ['queued', 'running'], mail: false })
  },
})

/** The jobs of the queue `backup-look`: one a minute, claiming what is due. */
export const backupLookJobs = backupSchedules.lookJobs

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
  backupSchedules.requireReader(actor)
  const gone = notFound('There is no archive of this run on the server.')
  if (!isUuid(runId)) throw gone
  const [run] = await select<{ location: string | null; status: RunStatus; removed_at: Date | null }>(
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

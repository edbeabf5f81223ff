import { createReadStream } from 'node:fs'
import { mkdir, stat } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { QueryTypes, UniqueConstraintError, type Transaction } from 'sequelize'
import { getEnv } from '#app/utils/env.server.ts'
import { errorLine } from '#app/utils/redact.server.ts'
import { sequelize, transaction as inTransaction } from '#db/client.ts'
import {
  CONTENT_TYPES,
  describeDestination,
  exportAccessLog,
  type ExportDestination,
  type ExportProgress,
} from '../access-log/export.server.ts'
import { rangeDays, type DayRange } from '../access-log/ranges.ts'
import { can, requirePermission } from '../auth/permissions.ts'
import { SYSTEM, type Actor } from '../auth/roles.ts'
import { conflict, invalid, isServiceError, notFound } from '../errors.ts'
import { allowedS3Targets, refusedFromAdminArea, requireWritableFolder } from '../files/destinations.server.ts'
import { isUuid } from '../ids.ts'
import { enqueueJob } from '../jobs/connection.server.ts'
import { cronOf, latestSlot } from '../jobs/cron-slots.ts'
import type { JobHandler, RunningJob } from '../jobs/job.ts'
import { HistorySchema, ScheduleSchema, type ExportRange, type Schedule } from './schema.ts'

// Scheduled access-log exports: schedules kept in the database; each run is a job (queue `export-run`, the
// job's id the run's) that a worker runs, and a job of the queue `export-look`, once a minute, claims the
// slots that are due.
//
// The slot rule: a schedule's slot is a time its cron names, read in its time zone. A look that finds the
// latest slot at or before now newer than the schedule's last scheduled run (and not before the schedule
// was made) writes the run row, with its job, first; UNIQUE (schedule_id, slot) lets exactly one look win
// that insert. So each slot runs at most once however many processes look, and a slot missed while
// nothing was running is caught up once (only the latest, never a backlog). A failed try of a run is
// tried again a few times with growing delays, then the run is failed; the next slot is the next try.
// The run's days come from its slot, not from when it ran.

type ExportScheduleView = {
  id: string
  name: string
  cron: string
  timeZone: string
  range: ExportRange
  courses: string[]
  format: Schedule['format']
  destination: string
  createdAt: string
  createdBy: string | null
  /** the next slot after now, in UTC */
  nextRun: string | null
}

type ExportRunStatus = 'queued' | 'running' | 'succeeded' | 'failed'

export type ExportRunView = {
  id: string
  scheduleId: string | null
  scheduleName: string
  trigger: 'schedule' | 'manual'
  slot: string | null
  startedAt: string
  finishedAt: string | null
  status: ExportRunStatus
  rows: number | null
  bytes: number | null
  location: string | null
  error: string | null
}

type ScheduleRow = {
  id: string
  name: string
  cron: string
  time_zone: string
  range: ExportRange
  courses: string[]
  format: Schedule['format']
  destination: string
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
  status: ExportRunStatus
  rows: string | null
  bytes: string | null
  location: string | null
  error: string | null
}

const RUN_COLUMNS = `id, schedule_id, schedule_name, trigger, slot, started_at, finished_at, status, rows, bytes,
  location, error`

async function select<T extends object>(text: string, bind: unknown[] = []) {
  const sql = await sequelize()
  return sql.query<T>(text, { bind, type: QueryTypes.SELECT })
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)

function toSchedule(row: ScheduleRow, now = new Date()): ExportScheduleView {
  return {
    id: row.id,
    name: row.name,
    cron: row.cron,
    timeZone: row.time_zone,
    range: row.range,
    courses: row.courses,
    format: row.format,
    destination: row.destination,
    createdAt: new Date(row.created_at).toISOString(),
    createdBy: row.created_by,
    nextRun: iso(cronOf(row).nextRun(now)),
  }
}

function toRun(row: RunRow): ExportRunView {
  return {
    id: row.id,
    scheduleId: row.schedule_id,
    scheduleName: row.schedule_name,
    trigger: row.trigger,
    slot: iso(row.slot),
    startedAt: new Date(row.started_at).toISOString(),
    finishedAt: iso(row.finished_at),
    status: row.status,
    rows: row.rows === null ? null : Number(row.rows),
    bytes: row.bytes === null ? null : Number(row.bytes),
    location: row.location,
    error: row.error,
  }
}

function requireManager(actor: Actor) {
  requirePermission(actor, 'manage:exports')
}

function requireReader(actor: Actor) {
  requirePermission(actor, 'read:exports')
}

/**
 * Who may download the file of a run: whoever may read the Scheduled exports page (admins, the super
 * admin, coaches), and no learner. The page shows its links by this rule and the download route is
 * refused by it, whether the caller came with the session cookie or a Bearer token.
 */
export const mayDownloadRunFiles = (actor: Actor) => can(actor, 'read:exports')

/** The folder the admin area may write exports into: `$DATA_DIR/exports/`. */
export const exportsFolder = () => `${path.resolve(getEnv().DATA_DIR, 'exports')}/`

/**
 * The S3 prefixes the admin area may export to: those the operator listed in EXPORT_S3_TARGETS, less any in
 * the bucket that holds the portal's uploads. None when the operator listed none.
 */
export const s3ExportTargets = (): string[] => allowedS3Targets(getEnv().EXPORT_S3_TARGETS)

/**
 * Why the admin area may not export to this destination, or undefined. A web account must not make the
 * server write where the operator did not choose: a folder must lie in the portal's own exports folder
 * ($DATA_DIR/exports), an S3 prefix under one the operator listed (EXPORT_S3_TARGETS), and never in the
 * uploads bucket, where an export could overwrite or crowd learners' files. The CLI (an operator with shell
 * access, acting as the system) may name any absolute folder or bucket.
 */
function destinationRefused(actor: Actor, destination: string): string | undefined {
  if (actor.id === SYSTEM.id) return undefined
  return refusedFromAdminArea(destination, { what: 'exports', root: exportsFolder(), targets: s3ExportTargets() })
}

export async function addSchedule(actor: Actor, input: unknown): Promise<ExportScheduleView> {
  requireManager(actor)
  const schedule = ScheduleSchema.parse(input)
  const refused = destinationRefused(actor, schedule.destination)
  if (refused) throw invalid(refused, { destination: refused })
  // a folder must be there and writable now, not found missing at the first run hours later; the admin
  // area's own folder (inside $DATA_DIR/exports) is made for it
  if (!schedule.destination.startsWith('s3://')) {
    if (actor.id !== SYSTEM.id) await mkdir(schedule.destination, { recursive: true })
    await requireWritableFolder(schedule.destination).catch((error: unknown) => {
      if (!isServiceError(error)) throw error
      throw invalid(error.message, { destination: error.message })
    })
  }
  if (schedule.courses.length) {
    const found = await select<{ id: string }>('SELECT id FROM courses WHERE id = ANY($1::uuid[])', [schedule.courses])
    const known = new Set(found.map((c) => c.id))
    const missing = schedule.courses.find((id) => !known.has(id))
    if (missing) throw invalid(`There is no course ${missing}.`, { courses: `There is no course ${missing}.` })
  }
  try {
    const [row] = await select<ScheduleRow>(
      `INSERT INTO export_schedules (name, cron, time_zone, range, courses, format, destination, created_by)
       VALUES ($1, $2, $3, $4, $5::uuid[], $6, $7, $8)
       RETURNING *`,
      [
        schedule.name,
        schedule.cron,
        schedule.timeZone,
        schedule.range,
        [...new Set(schedule.courses)],
        schedule.format,
        schedule.destination,
        actor.id,
      ],
    )
    return toSchedule(row)
  } catch (error) {
    if (error instanceof UniqueConstraintError) {
      const message = `A schedule named ${schedule.name} already exists.`
      throw conflict(message, { name: message })
    }
    throw error
  }
}

export async function listSchedules(actor: Actor, now = new Date()): Promise<ExportScheduleView[]> {
  requireReader(actor)
  const rows = await select<ScheduleRow>('SELECT * FROM export_schedules ORDER BY name')
  return rows.map((row) => toSchedule(row, now))
}

async function findSchedule(name: string): Promise<ScheduleRow> {
  const [row] = await select<ScheduleRow>('SELECT * FROM export_schedules WHERE name = $1', [name.trim()])
  if (!row) throw notFound(`There is no schedule named ${name}.`)
  return row
}

/** Remove a schedule; its past runs stay in the history under its name. */
export async function removeSchedule(actor: Actor, name: string): Promise<{ name: string }> {
  requireManager(actor)
  const [row] = await select<{ name: string }>('DELETE FROM export_schedules WHERE name = $1 RETURNING name', [
    String(name ?? '').trim(),
  ])
  if (!row) throw notFound(`There is no schedule named ${name}.`)
  return row
}

export async function listRuns(actor: Actor, input: unknown = {}): Promise<ExportRunView[]> {
  requireReader(actor)
  const { limit } = HistorySchema.parse(input)
  const rows = await select<RunRow>(`SELECT ${RUN_COLUMNS} FROM export_runs ORDER BY started_at DESC, id LIMIT $1`, [
    limit,
  ])
  return rows.map(toRun)
}

type RunOptions = {
  signal?: AbortSignal
  onProgress?: (progress: ExportProgress) => void
}

/**
 * Run a schedule now, outside its slots: a manual run, whose days are counted from when it was asked,
 * queued for a worker like the scheduled ones. Answers the run as it is queued.
 */
export async function runSchedule(
  actor: Actor,
  name: string,
  { now = new Date() }: { now?: Date } = {},
): Promise<ExportRunView> {
  requireManager(actor)
  const schedule = await findSchedule(String(name ?? ''))
  return inTransaction(async (transaction) => {
    const [run] = await (
      await sequelize()
    ).query<RunRow>(
      `INSERT INTO export_runs (schedule_id, schedule_name, trigger, started_at)
       VALUES ($1, $2, 'manual', $3) RETURNING ${RUN_COLUMNS}`,
      { bind: [schedule.id, schedule.name, now], type: QueryTypes.SELECT, transaction },
    )
    await enqueueJob('export-run', run.id, transaction)
    return toRun(run)
  })
}

/** A run as it is now (the CLI follows a run it queued). */
export async function findRun(actor: Actor, id: string): Promise<ExportRunView> {
  requireReader(actor)
  if (!isUuid(id)) throw notFound('There is no such run.')
  const [row] = await select<RunRow>(`SELECT ${RUN_COLUMNS} FROM export_runs WHERE id = $1`, [id])
  if (!row) throw notFound('There is no such run.')
  return toRun(row)
}

/**
 * Queue a run of every schedule whose latest slot at or before `now` has not been claimed yet, once,
 * and return those runs. Safe to call from several processes at once: each slot is claimed by one.
 */
export async function claimDueRuns(now = new Date()): Promise<ExportRunView[]> {
  const schedules = await select<ScheduleRow>('SELECT * FROM export_schedules ORDER BY name')
  const runs: ExportRunView[] = []
  for (const schedule of schedules) {
    const slot = latestSlot(schedule, now)
    if (!slot) continue
    // a slot no newer than the last scheduled run is done (or was skipped over); otherwise claim it
    const claimed = await claimSlot(schedule.id, slot)
    if (claimed) runs.push(await findRun(SYSTEM, claimed))
  }
  return runs
}

/**
 * Write the run row that stands for a schedule's slot, with its job, unless that slot (or a later one)
 * already has one: the id of the new run for the one caller that wins, undefined for every other. Two
 * callers whose statements overlap cannot both win: the second insert waits on the first's row under
 * UNIQUE (schedule_id, slot) and then does nothing. `transaction` is for tests that hold a claim open.
 */
export async function claimSlot(
  scheduleId: string,
  slot: Date,
  transaction?: Transaction,
): Promise<string | undefined> {
  const claim = async (transaction: Transaction) => {
    const sql = await sequelize()
    const [claimed] = await sql.query<{ id: string }>(
      `INSERT INTO export_runs (schedule_id, schedule_name, trigger, slot, started_at)
       SELECT s.id, s.name, 'schedule', $2::timestamptz, now() FROM export_schedules s
        WHERE s.id = $1
          AND NOT EXISTS (SELECT 1 FROM export_runs r WHERE r.schedule_id = s.id AND r.slot >= $2::timestamptz)
       ON CONFLICT (schedule_id, slot) DO NOTHING
       RETURNING id`,
      { bind: [scheduleId, slot], type: QueryTypes.SELECT, transaction },
    )
    if (claimed) await enqueueJob('export-run', claimed.id, transaction)
    return claimed?.id
  }
  return transaction ? claim(transaction) : inTransaction(claim)
}

/** Where a schedule's file for these days goes: `<name>_<start>_<end>.<format>` under its destination. */
function runTarget(schedule: Pick<ScheduleRow, 'name' | 'format' | 'destination'>, days: DayRange): ExportDestination {
  const fileName = `${schedule.name}_${days.startDate}_${days.endDate}.${schedule.format}`
  const s3 = /^s3:\/\/([^/]+)\/(.*)$/.exec(schedule.destination)
  if (s3) return { kind: 's3', bucket: s3[1], key: `${s3[2]}${fileName}` }
  return { kind: 'file', path: path.join(schedule.destination, fileName) }
}

type Outcome =
  | { status: 'succeeded'; rows: number; bytes: number; location: string }
  | { status: 'failed'; error: string; location: string }

/** Export a schedule's days as of `at`; a failure is answered, never thrown. */
async function exportDays(schedule: ScheduleRow, at: Date, options: RunOptions): Promise<Outcome> {
  const days = rangeDays(schedule.range, at, schedule.time_zone)
  const target = runTarget(schedule, days)
  const location = describeDestination(target)
  try {
    const result = await exportAccessLog(
      SYSTEM,
      { ...days, courses: schedule.courses, timeZone: schedule.time_zone },
      target,
      { format: schedule.format, signal: options.signal, onProgress: options.onProgress },
    )
    return { status: 'succeeded', rows: result.rows, bytes: result.bytes, location }
  } catch (error) {
    let reason = options.signal?.aborted ? 'Stopped before it finished (the job was stopped).' : oneLine(error)
    // S3 failures the export did not word itself (no credentials, no network) still say where it went
    if (target.kind === 's3' && !reason.startsWith('Uploading to '))
      reason = `Uploading to ${location} failed: ${reason}`
    return { status: 'failed', error: reason, location }
  }
}

/** How often a running export writes its row count to its run. */
const PROGRESS_EVERY_MS = 1000

/**
 * One try of a run's job: the run is running, its schedule's file is written, and the outcome recorded.
 * A failed try leaves the run queued with its error (the job queue tries again), and the last one fails
 * it; a run that ended meanwhile (cancelled) is left alone.
 */
export async function runExport(job: RunningJob): Promise<void> {
  const [run] = await select<RunRow & { trigger: 'schedule' | 'manual' }>(
    `UPDATE export_runs SET status = 'running', error = NULL, rows = NULL, bytes = NULL
      WHERE id = $1 AND status IN ('queued', 'running') RETURNING ${RUN_COLUMNS}`,
    [job.id],
  )
  if (!run) return
  const [schedule] = await select<ScheduleRow>('SELECT * FROM export_schedules WHERE id = $1', [run.schedule_id])
  if (!schedule) {
    await endRun(job.id, 'failed', { error: 'The schedule was removed before this run started.' })
    return
  }
  let reported = 0
  const outcome = await exportDays(schedule, run.trigger === 'schedule' && run.slot ? run.slot : run.started_at, {
    signal: job.signal,
    onProgress: ({ rows }) => {
      if (Date.now() - reported < PROGRESS_EVERY_MS) return
      reported = Date.now()
      void select(`UPDATE export_runs SET rows = $2 WHERE id = $1 AND status = 'running' RETURNING id`, [
        job.id,
        rows,
      ]).catch(() => {})
    },
  })
  if (outcome.status === 'succeeded') {
    await endRun(job.id, 'succeeded', outcome)
    return
  }
  if (job.lastTry) await endRun(job.id, 'failed', outcome)
  else
    await select(
      `UPDATE export_runs SET status = 'queued', rows = NULL, location = $2, error = $3
        WHERE id = $1 AND status = 'running' RETURNING id`,
      [job.id, outcome.location, `${outcome.error} (it is tried again shortly)`],
    )
  throw new Error(outcome.error)
}

/** Record how a run ended, unless it ended meanwhile. */
async function endRun(
  id: string,
  status: 'succeeded' | 'failed',
  end: { rows?: number; bytes?: number; location?: string; error?: string },
  open: ExportRunStatus[] = ['running'],
) {
  await select(
    `UPDATE export_runs
        SET status = $2, finished_at = now(), rows = $3, bytes = $4, location = coalesce($5, location), error = $6
      WHERE id = $1 AND status = ANY($7::text[])
      RETURNING id`,
    [id, status, end.rows ?? null, end.bytes ?? null, end.location ?? null, end.error ?? null, open],
  )
}

/** The jobs of the queue `export-run`. */
export const exportRunJobs: JobHandler = {
  run: runExport,
  async gaveUp(id, reason) {
    await endRun(id, 'failed', { error: reason }, ['queued', 'running'])
  },
  async cancelled(id) {
    await endRun(id, 'failed', { error: 'Cancelled by an operator.' }, ['queued', 'running'])
  },
  async reopened(id) {
    await select(
      `UPDATE export_runs SET status = 'queued', finished_at = NULL WHERE id = $1 AND status = 'failed' RETURNING id`,
      [id],
    )
  },
}

/** The jobs of the queue `export-look`: one a minute, claiming what is due. */
export const exportLookJobs: JobHandler = {
  async run() {
    await claimDueRuns(new Date())
  },
}

/**
 * Why a run failed, in one line for the history: the first line of the message, with credentials that
 * could appear in it (the S3 keys, a URL's user and password, signed query parameters) blanked out.
 */
function oneLine(error: unknown): string {
  return errorLine(error) || 'The export failed.'
}

type RunFile = { body: Readable; size: number | undefined; fileName: string; contentType: string }

/**
 * The file a succeeded run wrote, from the server's disk or from S3, for those `mayDownloadRunFiles` lets.
 * Only the location recorded for that run is ever opened.
 */
export async function openRunFile(actor: Actor, runId: string): Promise<RunFile> {
  requireReader(actor)
  const gone = notFound('There is no file for this run.')
  if (!isUuid(runId)) throw gone
  const [run] = await select<{ location: string | null; status: ExportRunStatus }>(
    'SELECT location, status FROM export_runs WHERE id = $1',
    [runId],
  )
  if (!run?.location || run.status !== 'succeeded') throw gone
  const fileName = path.posix.basename(run.location)
  const format = path.extname(fileName) === '.jsonl' ? 'jsonl' : 'csv'
  const contentType = CONTENT_TYPES[format]
  const s3 = /^s3:\/\/([^/]+)\/(.+)$/.exec(run.location)
  if (s3) {
    const [{ GetObjectCommand }, { makeS3Client }, { s3Settings }] = await Promise.all([
      import('@aws-sdk/client-s3'),
      import('../files/s3-storage.server.ts'),
      import('../files/storage.server.ts'),
    ])
    const client = makeS3Client(s3Settings())
    try {
      const object = await client.send(new GetObjectCommand({ Bucket: s3[1], Key: s3[2] }))
      if (!(object.Body instanceof Readable)) throw gone
      object.Body.once('close', () => client.destroy())
      return { body: object.Body, size: object.ContentLength, fileName, contentType }
    } catch (error) {
      client.destroy()
      if (isServiceError(error)) throw error
      if (error instanceof Error && (error.name === 'NoSuchKey' || error.name === 'NoSuchBucket')) throw gone
      throw new Error(oneLine(error))
    }
  }
  if (!path.isAbsolute(run.location)) throw gone
  const info = await stat(run.location).catch(() => undefined)
  if (!info?.isFile()) throw gone
  return { body: createReadStream(run.location), size: info.size, fileName, contentType }
}

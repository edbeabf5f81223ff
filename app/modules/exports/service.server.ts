import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { errorLine } from '#app/utils/redact.server.ts'
import {
  CONTENT_TYPES,
  describeDestination,
  exportAccessLog,
  type ExportDestination,
  type ExportProgress,
} from '../access-log/export.server.ts'
import { dayIn, rangeDays, type DayRange } from '../access-log/ranges.ts'
import { exportAssignments } from '../assignments/export.server.ts'
import { can } from '../auth/permissions.ts'
import { SYSTEM, type Actor } from '../auth/roles.ts'
import { invalid, isServiceError, notFound } from '../errors.ts'
import { isUuid } from '../ids.ts'
import type { RunningJob } from '../jobs/job.ts'
import { scheduledJob, select, type RunColumns, type ScheduleColumns } from '../jobs/schedules.server.ts'
import { ScheduleSchema, type ExportKind, type ExportRange, type Schedule } from './schema.ts'

// Scheduled exports of the access log and of the assignments, kept like every schedule of a job (app/modules/jobs/schedules.server.ts):
// schedules in the database; each run is a job (queue `export-run`, the job's id the run's) that a worker
// runs, and a job of the queue `export-look`, once a minute, claims the slots that are due.
//
// The slot rule: a schedule's slot is a time its cron names, read in its time zone. A look that finds the
// latest slot at or before now newer than the schedule's last scheduled run (and not before the schedule
// was made) writes the run row, with its job, first; UNIQUE (schedule_id, slot) lets exactly one look win
// that insert. So each slot runs at most once however many processes look, and a slot missed while
// nothing was running is caught up once (only the latest, never a backlog). A failed try of a run is
// tried again a few times with growing delays, then the run is failed; the next slot is the next try.
// The run's days come from its slot, not from when it ran; so does the moment an assignments export reads
// the statuses at (overdue or not).

type ScheduleRow = ScheduleColumns & {
  kind: ExportKind
  /** the access log's days; none for the assignments */
  range: ExportRange | null
  courses: string[]
  status: Schedule['status']
  format: Schedule['format']
}

type RunRow = RunColumns & {
  rows: string | null
  bytes: string | null
  location: string | null
  error: string | null
}

const RUN_COLUMNS = `id, schedule_id, schedule_name, trigger, slot, started_at, finished_at, status, rows, bytes,
  location, error`

/**
 * Who may download the file of a run: whoever may read the Scheduled exports page (admins, the super
 * admin, coaches), and no learner. The page shows its links by this rule and the download route is
 * refused by it, whether the caller came with the session cookie or a Bearer token.
 */
export const mayDownloadRunFiles = (actor: Actor) => can(actor, 'read:exports')

/**
 * The schedules of exports: the page's form and actions work on them, and show the folder and S3 prefixes the
 * admin area may export to ($DATA_DIR/exports/, those the operator listed in EXPORT_S3_TARGETS).
 */
export const exportSchedules = scheduledJob({
  job: 'export',
  runColumns: RUN_COLUMNS,
  scheduleFields: ({ kind, range, courses, status, format, destination }: ScheduleRow) => ({
    kind,
    range,
    courses,
    status,
    format,
    destination,
  }),
  runFields: (row: RunRow) => ({
    rows: row.rows === null ? null : Number(row.rows),
    bytes: row.bytes === null ? null : Number(row.bytes),
    location: row.location,
    error: row.error,
  }),
  words: { schedule: 'schedule', run: 'run' },
  schema: ScheduleSchema,
  async check(schedule) {
    if (!schedule.courses.length) return
    const found = await select<{ id: string }>('SELECT id FROM courses WHERE id = ANY($1::uuid[])', [schedule.courses])
    const known = new Set(found.map((c) => c.id))
    const missing = schedule.courses.find((id) => !known.has(id))
    if (missing) throw invalid(`There is no course ${missing}.`, { courses: `There is no course ${missing}.` })
  },
  columns: (schedule) => ({
    name: schedule.name,
    cron: schedule.cron,
    time_zone: schedule.timeZone,
    kind: schedule.kind,
    range: schedule.range,
    courses: [...new Set(schedule.courses)],
    status: schedule.status,
    format: schedule.format,
    destination: schedule.destination,
  }),
  casts: { courses: '::uuid[]' },
})

export const addSchedule = exportSchedules.add
export const listSchedules = exportSchedules.list
/** Remove a schedule; its past runs stay in the history under its name. */
export const removeSchedule = exportSchedules.remove
export const { listRuns, findRun, claimSlot } = exportSchedules
export const claimDueRuns = exportSchedules.claimDue

export type ExportRunView = Awaited<ReturnType<typeof findRun>>

/**
 * Run a schedule now, outside its slots: a manual run, whose days are counted from when it was asked,
 * queued for a worker like the scheduled ones. Answers the run as it is queued.
 */
export const runSchedule = (actor: Actor, name: string, { now }: { now?: Date } = {}) =>
  exportSchedules.runNow(actor, name, now)

type RunOptions = {
  signal?: AbortSignal
  onProgress?: (progress: ExportProgress) => void
}

/** Where a schedule's file for these days goes: `<name>_<start>_<end>.<format>` under its destination. */
function runTarget(
  schedule: Pick<ScheduleRow, 'name' | 'format' | 'destination'>,
  days: DayRange,
  base = `${schedule.name}_${days.startDate}_${days.endDate}`,
): ExportDestination {
  const fileName = `${base}.${schedule.format}`
  const s3 = /^s3:\/\/([^/]+)\/(.*)$/.exec(schedule.destination)
  if (s3) return { kind: 's3', bucket: s3[1], key: `${s3[2]}${fileName}` }
  return { kind: 'file', path: path.join(schedule.destination, fileName) }
}

type Outcome =
  | { status: 'succeeded'; rows: number; bytes: number; location: string }
  | { status: 'failed'; error: string; location: string }

/**
 * Where an assignments schedule's file goes: `<name>_<day>.<format>` under its destination, the day its run
 * stands for in its time zone.
 */
function assignmentsTarget(schedule: ScheduleRow, at: Date): ExportDestination {
  return runTarget(schedule, { startDate: '', endDate: '' }, `${schedule.name}_${dayIn(at, schedule.time_zone)}`)
}

/** Export what a schedule names as of `at`: its days of the access log, or the assignments as they stand then. */
async function exportDays(schedule: ScheduleRow, at: Date, options: RunOptions): Promise<Outcome> {
  const assignments = schedule.kind === 'assignments' || !schedule.range
  const days = assignments ? undefined : rangeDays(schedule.range as ExportRange, at, schedule.time_zone)
  const target = days ? runTarget(schedule, days) : assignmentsTarget(schedule, at)
  const location = describeDestination(target)
  const exportOptions = { format: schedule.format, signal: options.signal, onProgress: options.onProgress }
  try {
    const result = days
      ? await exportAccessLog(
          SYSTEM,
          { ...days, courses: schedule.courses, timeZone: schedule.time_zone },
          target,
          exportOptions,
        )
      : await exportAssignments(SYSTEM, { courses: schedule.courses, status: schedule.status ?? undefined }, target, {
          ...exportOptions,
          now: at,
        })
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
  const started = await exportSchedules.startRun(job.id, 'error = NULL, rows = NULL, bytes = NULL')
  if (!started) return
  const { run, schedule } = started
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
    await exportSchedules.requeue(job.id, 'rows = NULL, location = $2, error = $3', [
      outcome.location,
      `${outcome.error} (it is tried again shortly)`,
    ])
  throw new Error(outcome.error)
}

/** Record how a run ended, unless it ended meanwhile. */
async function endRun(
  id: string,
  status: 'succeeded' | 'failed',
  end: { rows?: number; bytes?: number; location?: string; error?: string },
  open: RunColumns['status'][] = ['running'],
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
export const exportRunJobs = exportSchedules.runJobs({
  run: runExport,
  async gaveUp(id, reason) {
    await endRun(id, 'failed', { error: reason }, ['queued', 'running'])
  },
  async cancelled(id) {
    await endRun(id, 'failed', { error: 'Cancelled by an operator.' }, ['queued', 'running'])
  },
})

/** The jobs of the queue `export-look`: one a minute, claiming what is due. */
export const exportLookJobs = exportSchedules.lookJobs

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
  exportSchedules.requireReader(actor)
  const gone = notFound('There is no file for this run.')
  if (!isUuid(runId)) throw gone
  const [run] = await select<Pick<RunColumns, 'status'> & { location: string | null }>(
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

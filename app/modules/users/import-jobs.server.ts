import { QueryTypes } from 'sequelize'
import { select, sequelize, transaction } from '#db/client.ts'
import { ROLE, type Actor, type RoleId } from '../auth/roles.ts'
import { isServiceError, notFound, ServiceError } from '../errors.ts'
import { isUuid } from '../ids.ts'
import { enqueueJob } from '../jobs/connection.server.ts'
import type { JobHandler, RunningJob } from '../jobs/job.ts'
import { checkConfirmed, confirmImport, requireUploader } from './import-files.server.ts'
import { FILE_FIELD, type ImportChoices, type OnExisting } from './import-schema.ts'
import type { ImportCounts, ImportProgress } from './import.server.ts'

// A confirmed import of the Import users page, run as a job (queue `user-import`, the job's id the
// row's): the confirm writes the job's row and its job in one transaction and answers at once; a worker
// runs the import, writing its progress (after every batch) to the row, and the page reads the row. A
// worker that dies mid-import loses its job's heartbeat: the job is tried again, by the same file
// (nothing is created twice), and after its last try the row reads as failed, never running for ever.
// Each job is its admin's: another account asking for it is told there is no such job.

type ImportJobStatus = 'queued' | 'running' | 'succeeded' | 'failed'

export type ImportJobView = {
  id: string
  fileName: string
  status: ImportJobStatus
  onExisting: OnExisting
  invite: boolean
  /** how far into the file the import has read, of its size */
  bytesRead: number
  bytesTotal: number
  counts: ImportCounts
  /** the error CSV's key while it is kept (the sweep removes it after a day) */
  errorsKey: string | null
  /** why the job failed, or where the file broke off */
  message: string | null
  startedAt: string
  finishedAt: string | null
}

// the row of import_jobs: its counts are columns of the same names
type JobRow = ImportCounts & {
  id: string
  file_name: string
  status: ImportJobStatus
  on_existing: OnExisting
  invite: boolean
  bytes_read: string
  bytes_total: string
  errors_key: string | null
  message: string | null
  started_at: Date
  finished_at: Date | null
}

const NO_SUCH_JOB = 'There is no such import. Imports are shown only to the admin who started them.'
const GONE = 'The uploaded file is gone (imported already, or not yours); upload it again.'
const DIED =
  'The import stopped: the server running it went away, and it was tried again as often as it may be. The rows counted here were imported (perhaps a few more); upload the file again to import the rest — nothing is created twice.'
const AGAIN = 'The import stopped before the end of the file; it starts again shortly, and nothing is created twice.'
const CANCELLED =
  'The import was cancelled by an operator. The rows counted here were imported; upload the file again to import the rest — nothing is created twice.'
const BROKE =
  'The import stopped on an unexpected error. The rows counted here were imported; upload the file again to import the rest — nothing is created twice.'

function toView(row: JobRow): ImportJobView {
  return {
    id: row.id,
    fileName: row.file_name,
    status: row.status,
    onExisting: row.on_existing,
    invite: row.invite,
    bytesRead: Number(row.bytes_read),
    bytesTotal: Number(row.bytes_total),
    counts: {
      rows: row.rows,
      created: row.created,
      updated: row.updated,
      skipped: row.skipped,
      assigned: row.assigned,
      failed: row.failed,
    },
    errorsKey: row.errors_key,
    message: row.message,
    startedAt: new Date(row.started_at).toISOString(),
    finishedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
  }
}

/**
 * Queue the import of a file this admin checked with a dry run, and answer its job's id at once. The
 * choices are checked as the dry run's were; confirming a file whose import is queued or running
 * already answers that job, so a second click imports nothing twice.
 */
export async function startImportJob(actor: Actor, input: unknown): Promise<{ id: string }> {
  requireUploader(actor)
  const choices = await checkConfirmed(actor, input)
  const started = await transaction(async (transaction) => {
    const [row] = await (
      await sequelize()
    ).query<{ id: string }>(
      `INSERT INTO import_jobs (started_by, file_name, upload_key, on_existing, invite, delimiter, bytes_total)
       SELECT $1, f.name, f.key, $3, $4, $5, f.size FROM files f
       WHERE f.key = $2 AND f.purpose = 'user_import' AND f.uploaded_by = $1
       ON CONFLICT (upload_key) WHERE status IN ('queued', 'running') DO NOTHING
       RETURNING id`,
      {
        bind: [actor.id, choices.key, choices.onExisting, choices.invite, choices.delimiter],
        type: QueryTypes.SELECT,
        transaction,
      },
    )
    if (row) await enqueueJob('user-import', row.id, transaction)
    return row
  })
  if (started) return started
  const [open] = await select<{ id: string }>(
    `SELECT id FROM import_jobs WHERE upload_key = $1 AND started_by = $2 AND status IN ('queued', 'running')`,
    [choices.key, actor.id],
  )
  if (open) return open
  // imported (and removed) between the check and the insert
  throw new ServiceError(404, GONE, { [FILE_FIELD]: GONE })
}

/** A job of this admin's as the page shows it. */
export async function importJobStatus(actor: Actor, id: string): Promise<ImportJobView> {
  requireUploader(actor)
  if (!isUuid(id)) throw notFound(NO_SUCH_JOB)
  const [row] = await select<JobRow>(
    `SELECT id, file_name, status, on_existing, invite, bytes_read, bytes_total, rows, created, updated, skipped,
       assigned, failed, errors_key, message, started_at, finished_at
     FROM import_jobs WHERE id = $1 AND started_by = $2`,
    [id, actor.id],
  )
  if (!row) throw notFound(NO_SUCH_JOB)
  return toView(row)
}

type Started = {
  started_by: string
  role_id: RoleId | null
  upload_key: string | null
  on_existing: OnExisting
  invite: boolean
  delimiter: ImportChoices['delimiter']
}

/**
 * One try of an import's job: the row is running again (its counts from zero: a try reads the file from
 * the start), the import runs as the admin who started it, with their role as it is now, and its end is
 * written to the row. A refusal (the file gone, the admin no longer an admin) ends the row; any other
 * failure is thrown, for the job queue to try again, and on the last try the row reads as failed.
 */
async function runImportJob(job: RunningJob): Promise<void> {
  const [row] = await select<Started>(
    `UPDATE import_jobs j SET status = 'running', message = NULL, bytes_read = 0, rows = 0, created = 0,
       updated = 0, skipped = 0, assigned = 0, failed = 0
     FROM users u
     WHERE j.id = $1 AND j.status IN ('queued', 'running') AND u.id = j.started_by
     RETURNING j.started_by, u.role_id, j.upload_key, j.on_existing, j.invite, j.delimiter`,
    [job.id],
  )
  // ended meanwhile (cancelled), or its admin's account was removed with it
  if (!row) return
  const actor: Actor = { id: row.started_by, roleId: row.role_id ?? ROLE.learner }
  const progress = new ProgressWriter(job.id)
  try {
    const outcome = await confirmImport(
      actor,
      { key: row.upload_key ?? '', onExisting: row.on_existing, invite: row.invite, delimiter: row.delimiter },
      {
        onProgress: (report) => {
          // cancelled, or the worker is stopping: stop after the batch just written
          job.signal.throwIfAborted()
          progress.report(report)
        },
      },
    )
    await progress.finish({
      status: 'succeeded',
      counts: outcome.counts,
      errorsKey: outcome.errorsKey,
      message: outcome.stopped,
    })
  } catch (error) {
    if (isServiceError(error)) return progress.finish({ status: 'failed', message: error.message })
    await progress.settled()
    if (job.lastTry) await progress.finish({ status: 'failed', message: BROKE })
    // stopped (cancelled, or its worker stopping), or failed on a try that is not its last: it waits for
    // its next try, which reads the file from the start
    else
      await select(
        `UPDATE import_jobs SET status = 'queued', message = $2 WHERE id = $1 AND status = 'running' RETURNING id`,
        [job.id, AGAIN],
      )
    throw error
  }
}

/** The jobs of the queue `user-import`. */
export const importJobs: JobHandler = {
  run: runImportJob,
  async gaveUp(id) {
    await endOpenJob(id, DIED)
  },
  async cancelled(id) {
    await endOpenJob(id, CANCELLED)
  },
  async reopened(id) {
    await select(
      `UPDATE import_jobs SET status = 'queued', finished_at = NULL, message = NULL
       WHERE id = $1 AND status = 'failed' RETURNING id`,
      [id],
    )
  },
}

async function endOpenJob(id: string, message: string) {
  await select(
    `UPDATE import_jobs SET status = 'failed', finished_at = now(), message = $2
     WHERE id = $1 AND status IN ('queued', 'running') RETURNING id`,
    [id, message],
  )
}

/**
 * The job's row kept up to date while it runs: the latest progress, written one update at a time (a
 * report that comes while one is being written is folded into the next).
 */
class ProgressWriter {
  private progress: ImportProgress = { rows: 0, created: 0, updated: 0, skipped: 0, assigned: 0, failed: 0, bytes: 0 }
  private writing: Promise<void> = Promise.resolve()
  private queued = false

  constructor(private id: string) {}

  report(progress: ImportProgress) {
    this.progress = { ...progress }
    if (this.queued) return
    this.queued = true
    this.writing = this.writing
      .then(async () => {
        this.queued = false
        const p = this.progress
        // a job ended meanwhile (cancelled) is left as it is
        await select(
          `UPDATE import_jobs SET bytes_read = $2, rows = $3, created = $4, updated = $5, skipped = $6,
             assigned = $7, failed = $8
           WHERE id = $1 AND status = 'running' RETURNING id`,
          [this.id, p.bytes, p.rows, p.created, p.updated, p.skipped, p.assigned, p.failed],
        )
      })
      .catch((error: unknown) => console.error(`Could not record the progress of import job ${this.id}:`, error))
  }

  /** Once the last progress report is written. */
  settled() {
    return this.writing
  }

  /** The end, unless the row ended meanwhile (cancelled): the import's own outcome. */
  async finish(end: {
    status: 'succeeded' | 'failed'
    counts?: ImportCounts
    errorsKey?: string | null
    message: string | null
  }) {
    await this.writing
    const c = end.counts ?? this.progress
    await select(
      `UPDATE import_jobs SET status = $2, finished_at = now(), bytes_read = $3,
         rows = $4, created = $5, updated = $6, skipped = $7, assigned = $8, failed = $9, errors_key = $10,
         message = $11
       WHERE id = $1 AND status = 'running' RETURNING id`,
      [
        this.id,
        end.status,
        this.progress.bytes,
        c.rows,
        c.created,
        c.updated,
        c.skipped,
        c.assigned,
        c.failed,
        end.errorsKey ?? null,
        end.message,
      ],
    )
  }
}

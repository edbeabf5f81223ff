import { query } from '#db/client.ts'
import type { Actor } from '../auth/roles.ts'
import { isServiceError, notFound, ServiceError } from '../errors.ts'
import { isUuid } from '../ids.ts'
import { checkConfirmed, confirmImport, requireUploader } from './import-files.server.ts'
import { FILE_FIELD, type ImportChoices, type OnExisting } from './import-schema.ts'
import type { ImportCounts, ImportProgress } from './import.server.ts'

// A confirmed import of the Import users page, run as a job: the confirm writes the job's row and
// starts the import in this process without waiting for it; the import's progress (after every batch)
// and a lease renewed every few seconds are written to the row, and the page reads the row. A running
// job whose lease is older than JOB_LEASE_MS belongs to a process that died: it is recorded as failed the
// next time anyone reads it, so a job never shows as running for ever. Each job is its admin's: another
// account asking for it is told there is no such job.

export const JOB_LEASE_MS = 2 * 60_000
/** well within the lease, so a slow batch (argon2 hashing) never looks like a dead process */
export const HEARTBEAT_MS = 10_000

export type ImportJobStatus = 'running' | 'succeeded' | 'failed'

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
  'The import stopped: the server running it went away. The rows counted here were imported (perhaps a few more); upload the file again to import the rest — nothing is created twice.'
const BROKE =
  'The import stopped on an unexpected error. The rows counted here were imported; upload the file again to import the rest — nothing is created twice.'

async function select<T extends object>(text: string, bind: unknown[]) {
  return query<T>({ text, values: bind })
}

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

/** Running jobs whose lease ran out, among those `where` names, recorded as failed. */
async function failDeadJobs(where: string, bind: unknown[]) {
  const n = bind.length
  await select(
    `UPDATE import_jobs SET status = 'failed', finished_at = now(), message = $${n + 1}
     WHERE ${where} AND status = 'running' AND heartbeat_at < now() - $${n + 2} * interval '1 millisecond'
     RETURNING id`,
    [...bind, DIED, JOB_LEASE_MS],
  )
}

/**
 * Start the import of a file this admin checked with a dry run, and answer its job's id at once. The
 * choices are checked as the dry run's were; confirming a file whose import is running already answers
 * that job, so a second click imports nothing twice.
 */
export async function startImportJob(actor: Actor, input: unknown): Promise<{ id: string }> {
  requireUploader(actor)
  const choices = await checkConfirmed(actor, input)
  // a job on this file whose process died no longer holds it
  await failDeadJobs('upload_key = $1', [choices.key])
  const [row] = await select<{ id: string }>(
    `INSERT INTO import_jobs (started_by, file_name, upload_key, on_existing, invite, bytes_total)
     SELECT $1, f.name, f.key, $3, $4, f.size FROM files f
     WHERE f.key = $2 AND f.purpose = 'user_import' AND f.uploaded_by = $1
     ON CONFLICT (upload_key) WHERE status = 'running' DO NOTHING
     RETURNING id`,
    [actor.id, choices.key, choices.onExisting, choices.invite],
  )
  if (!row) {
    const [running] = await select<{ id: string }>(
      `SELECT id FROM import_jobs WHERE upload_key = $1 AND started_by = $2 AND status = 'running'`,
      [choices.key, actor.id],
    )
    if (running) return running
    // imported (and removed) between the check and the insert
    throw new ServiceError(404, GONE, { [FILE_FIELD]: GONE })
  }
  launch(actor, row.id, choices)
  return row
}

/** A job of this admin's as the page shows it; a job whose process died reads as failed. */
export async function importJobStatus(actor: Actor, id: string): Promise<ImportJobView> {
  requireUploader(actor)
  if (!isUuid(id)) throw notFound(NO_SUCH_JOB)
  await failDeadJobs('id = $1 AND started_by = $2', [id, actor.id])
  const [row] = await select<JobRow>(
    `SELECT id, file_name, status, on_existing, invite, bytes_read, bytes_total, rows, created, updated, skipped,
       assigned, failed, errors_key, message, started_at, finished_at
     FROM import_jobs WHERE id = $1 AND started_by = $2`,
    [id, actor.id],
  )
  if (!row) throw notFound(NO_SUCH_JOB)
  return toView(row)
}

const running = new Set<Promise<void>>()

/** The jobs this process is running, once they have ended (for a test or a shutdown to wait on). */
export async function importJobsSettled() {
  await Promise.all(running)
}

function launch(actor: Actor, id: string, choices: ImportChoices) {
  const job = runJob(actor, id, choices).catch((error: unknown) =>
    console.error(`Could not record the end of import job ${id}:`, error),
  )
  running.add(job)
  void job.finally(() => running.delete(job))
}

async function runJob(actor: Actor, id: string, choices: ImportChoices) {
  const lease = new JobLease(id)
  try {
    const outcome = await confirmImport(actor, choices, { onProgress: (progress) => lease.report(progress) })
    await lease.finish({
      status: 'succeeded',
      counts: outcome.counts,
      errorsKey: outcome.errorsKey,
      message: outcome.stopped,
    })
  } catch (error) {
    if (!isServiceError(error)) console.error(`Import job ${id} failed:`, error)
    await lease.finish({ status: 'failed', message: isServiceError(error) ? error.message : BROKE })
  }
}

/**
 * The job's row kept up to date while it runs: the latest progress and the lease, written one update
 * at a time (a report that comes while one is being written is folded into the next).
 */
class JobLease {
  private progress: ImportProgress = { rows: 0, created: 0, updated: 0, skipped: 0, assigned: 0, failed: 0, bytes: 0 }
  private writing: Promise<void> = Promise.resolve()
  private queued = false
  private timer: NodeJS.Timeout

  constructor(private id: string) {
    this.timer = setInterval(() => this.write(), HEARTBEAT_MS)
    this.timer.unref()
  }

  report(progress: ImportProgress) {
    this.progress = { ...progress }
    this.write()
  }

  private write() {
    if (this.queued) return
    this.queued = true
    this.writing = this.writing
      .then(async () => {
        this.queued = false
        const p = this.progress
        // a job already recorded as dead is left as it is until its real end is written
        await select(
          `UPDATE import_jobs SET heartbeat_at = now(), bytes_read = $2, rows = $3, created = $4, updated = $5,
             skipped = $6, assigned = $7, failed = $8
           WHERE id = $1 AND status = 'running' RETURNING id`,
          [this.id, p.bytes, p.rows, p.created, p.updated, p.skipped, p.assigned, p.failed],
        )
      })
      .catch((error: unknown) => console.error(`Could not record the progress of import job ${this.id}:`, error))
  }

  /** The end, whatever the row says by now: the import's own outcome is the truth. */
  async finish(end: {
    status: 'succeeded' | 'failed'
    counts?: ImportCounts
    errorsKey?: string | null
    message: string | null
  }) {
    clearInterval(this.timer)
    await this.writing
    const c = end.counts ?? this.progress
    await select(
      `UPDATE import_jobs SET status = $2, finished_at = now(), heartbeat_at = now(),
         bytes_read = $3,
         rows = $4, created = $5, updated = $6, skipped = $7, assigned = $8, failed = $9, errors_key = $10,
         message = $11
       WHERE id = $1 RETURNING id`,
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

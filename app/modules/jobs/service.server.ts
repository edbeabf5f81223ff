import { query, sql } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import type { Actor } from '../auth/roles.ts'
import { conflict, notFound } from '../errors.ts'
import { isUuid } from '../ids.ts'
import { jobLibrary } from './connection.server.ts'
import { HANDLERS } from './handlers.server.ts'
import { describeFailure, outputMessage } from './job.ts'
import { JOB_STATES, QUEUE_NAMES, QUEUES, type JobState, type QueueName } from './queues.ts'
import { JobListQuerySchema } from './schema.ts'

// What operators see of the background work and do with it, from the Jobs page and `portal jobs`: the
// queues with their counts by state, the jobs (a failed one with the last error it kept), and a failed
// job tried again or a waiting one cancelled. The jobs are read from the job library's table
// (`pgboss.job`); retrying and cancelling go through the library, and the job's record (a queued mail,
// an import, an export run) hears of it from its area.

export type JobView = {
  id: string
  queue: QueueName
  /** the queue as the Jobs page names it */
  queueTitle: string
  state: JobState
  /** tries made so far (the one running counts) */
  tries: number
  /** tries it may make in all */
  triesAllowed: number
  createdAt: string
  /** when it may run (a job waiting after a failed try: when it is tried again) */
  runAfter: string
  startedAt: string | null
  endedAt: string | null
  /** why its last try failed, in one line */
  error: string | null
}

type QueueView = { name: QueueName; title: string; counts: Record<JobState, number> }

type JobsOverview = { queues: QueueView[]; failed: JobView[] }

type JobRow = {
  id: string
  name: QueueName
  state: JobState
  retry_count: number
  retry_limit: number
  created_on: Date
  start_after: Date
  started_on: Date | null
  completed_on: Date | null
  output: unknown
}

const JOB_COLUMNS =
  'id, name, state, retry_count, retry_limit, created_on, start_after, started_on, completed_on, output'
const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)

function toView(row: JobRow): JobView {
  const message = row.state === 'failed' || row.state === 'retry' ? outputMessage(row.output) : undefined
  return {
    id: row.id,
    queue: row.name,
    queueTitle: QUEUES[row.name].title,
    state: row.state,
    // a job counts a try when a worker takes it; one waiting for its first has made none
    tries: row.retry_count + (row.started_on ? 1 : 0),
    triesAllowed: row.retry_limit + 1,
    createdAt: new Date(row.created_on).toISOString(),
    runAfter: new Date(row.start_after).toISOString(),
    startedAt: iso(row.started_on),
    endedAt: iso(row.completed_on),
    error: message === undefined ? null : describeFailure(message),
  }
}

const LIST_JOBS = sql(`
  SELECT ${JOB_COLUMNS} FROM pgboss.job
   WHERE name = ANY(CAST(:queues AS text[]))
     AND (CAST(:state AS pgboss.job_state) IS NULL OR state = CAST(:state AS pgboss.job_state))
   ORDER BY created_on DESC, id
   LIMIT :limit`)

/** The latest jobs, newest first: of one state and one queue when asked. */
export async function listJobs(actor: Actor, input: unknown = {}): Promise<JobView[]> {
  requirePermission(actor, 'read:jobs')
  const { state, queue, limit } = JobListQuerySchema.parse(input)
  const rows = await query<JobRow>(LIST_JOBS, {
    queues: queue ? [queue] : QUEUE_NAMES,
    state: state ?? null,
    limit,
  })
  return rows.map(toView)
}

const COUNT_JOBS = sql(`
  SELECT name, state, count(*)::int AS count FROM pgboss.job
   WHERE name = ANY(CAST(:queues AS text[]))
   GROUP BY name, state`)

/** Every queue with its jobs counted by state, and the latest failed jobs. */
export async function jobsOverview(actor: Actor, { failedShown = 20 } = {}): Promise<JobsOverview> {
  requirePermission(actor, 'read:jobs')
  const counted = await query<{ name: QueueName; state: JobState; count: number }>(COUNT_JOBS, {
    queues: QUEUE_NAMES,
  })
  const queues = QUEUE_NAMES.map((name) => {
    const counts = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>
    for (const c of counted) if (c.name === name) counts[c.state] = c.count
    return { name, title: QUEUES[name].title, counts }
  })
  return { queues, failed: await listJobs(actor, { state: 'failed', limit: failedShown }) }
}

const FIND_JOB = sql(`SELECT ${JOB_COLUMNS} FROM pgboss.job WHERE id = :id AND name = ANY(CAST(:queues AS text[]))`)

const NO_SUCH_JOB = 'There is no such job.'

async function findJob(id: string): Promise<JobRow> {
  if (!isUuid(id)) throw notFound(NO_SUCH_JOB)
  const [row] = await query<JobRow>(FIND_JOB, { id, queues: QUEUE_NAMES })
  if (!row) throw notFound(NO_SUCH_JOB)
  return row
}

/** One job as it is now. */
export async function getJob(actor: Actor, id: string): Promise<JobView> {
  requirePermission(actor, 'read:jobs')
  return toView(await findJob(String(id ?? '')))
}

/**
 * Try a failed job again (one more try than it had), or let a cancelled one run after all; its record
 * waits on the work again.
 */
export async function retryJob(actor: Actor, id: string): Promise<JobView> {
  requirePermission(actor, 'manage:jobs')
  const job = await findJob(String(id ?? ''))
  if (job.state === 'failed') await jobLibrary().retry(job.name, job.id)
  else if (job.state === 'cancelled') await jobLibrary().resume(job.name, job.id)
  else throw conflict(`Only a failed or cancelled job can be tried again; this one is ${job.state}.`)
  await HANDLERS[job.name].reopened?.(job.id)
  return toView(await findJob(job.id))
}

/** Cancel a job that has not ended: a waiting one never runs, a running one is told to stop. */
export async function cancelJob(actor: Actor, id: string): Promise<JobView> {
  requirePermission(actor, 'manage:jobs')
  const job = await findJob(String(id ?? ''))
  if (job.state === 'completed' || job.state === 'failed' || job.state === 'cancelled')
    throw conflict(`This job has ended (${job.state}); only a waiting or running job can be cancelled.`)
  await jobLibrary().cancel(job.name, job.id)
  await HANDLERS[job.name].cancelled?.(job.id)
  return toView(await findJob(job.id))
}

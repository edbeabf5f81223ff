import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { jobLibrary } from '#app/modules/jobs/connection.server.ts'
import type { RunningJob } from '#app/modules/jobs/job.ts'
import type { JobState, QueueName } from '#app/modules/jobs/queues.ts'
import { startJobWorkers, type JobWorkers } from '#app/modules/jobs/runner.server.ts'
import { query, sql } from '#db/client.ts'

// The job queue in tests: the real library on the test file's database, its workers started in the
// test's process (or as a `portal worker` child, to be killed), and what the library's table holds.

/** One try of a job, for calling a handler directly (the job need not exist). */
export function tryOf(id: string, overrides: Partial<RunningJob> = {}): RunningJob {
  return { id, retryCount: 0, lastTry: false, signal: new AbortController().signal, ...overrides }
}

const running: JobWorkers[] = []

/**
 * Workers in this process, on the test file's database, for these queues; each look for work half a
 * second apart, and a lost job is looked for every second. Stopped by `stopWorkers` (or the next call).
 */
export async function startWorkers(queues: QueueName[], { lines = [] as string[] } = {}): Promise<JobWorkers> {
  process.env.JOBS_CHECK_SECONDS = '1'
  const { resetEnvCache } = await import('#app/utils/env.server.ts')
  resetEnvCache()
  const workers = await startJobWorkers({
    queues,
    pollSeconds: 0.5,
    log: {
      info: (line) => lines.push(line),
      error: (line) => (process.env.DEBUG_JOBS ? console.error(line) : lines.push(line)),
    },
  })
  running.push(workers)
  return workers
}

export async function stopWorkers(graceSeconds = 1) {
  await Promise.all(running.splice(0).map((workers) => workers.stop(graceSeconds)))
}

export type JobRecord = { id: string; name: string; state: JobState; retry_count: number; output: unknown }

const JOB = sql(
  `SELECT id, name, state, retry_count, output FROM pgboss.job WHERE id = :id AND name NOT LIKE '%-gave-up'`,
)

/** The job of a record (its id is the record's), as the library keeps it; undefined when there is none. */
export async function jobOf(id: string): Promise<JobRecord | undefined> {
  const [job] = await query<JobRecord>(JOB, { id })
  return job
}

/** Waits until `check` answers something other than undefined or false, and returns it. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`Not so within ${timeoutMs} ms.`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** A queue's settings changed for one test file's database, as an operator could. */
export async function tuneQueue(
  name: QueueName,
  settings: Parameters<ReturnType<typeof jobLibrary>['updateQueue']>[1],
) {
  await jobLibrary().updateQueue(name, settings)
}

/** A waiting job made runnable now, as if its retry delay had passed. */
export async function runNow(id: string) {
  await query(
    sql(`UPDATE pgboss.job SET start_after = now() WHERE id = :id AND state IN ('created', 'retry') RETURNING id`),
    { id },
  )
}

const root = path.resolve(import.meta.dirname, '..')

/** `portal worker` in a child process on the test file's database; its output is kept in `output`. */
export function workerProcess(env: Record<string, string> = {}): { child: ChildProcess; output: string[] } {
  const output: string[] = []
  const child = spawn(process.execPath, [path.join(root, 'cli', 'bin.js'), 'worker'], {
    cwd: root,
    env: { ...process.env, JOBS_CHECK_SECONDS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()))
  return { child, output }
}

/** Resolves with the child's exit code (null when a signal ended it) and signal. */
export function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode })
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
}

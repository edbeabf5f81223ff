import pg from 'pg'
import { PgBoss, type JobWithMetadata } from 'pg-boss'
import { getEnv } from '#app/utils/env.server.ts'
import { databaseUrl } from '#db/client.ts'
import { HANDLERS } from './handlers.server.ts'
import { describeFailure, failureLine, jobFailure, outputMessage } from './job.ts'
import { gaveUpQueue, QUEUE_NAMES, QUEUES, type QueueName } from './queues.ts'

// The workers: what `portal serve` runs beside the web server (unless --no-workers) and `portal worker`
// runs alone. Each queue's jobs go to the handler of the area that owns them, a few at a time per
// process; any number of processes may run workers on the same database, and the library gives each job
// to one of them. The library's own housekeeping runs here too: a job whose worker stopped saying it is
// alive is tried again (a process killed mid-job), scheduled queues get one job per cron slot however
// many workers there are, and ended jobs are removed once kept long enough.

type JobLog = {
  info: (line: string) => void
  error: (line: string) => void
}

/** What the workers tell, in a process of their own: what happened on stdout, what went wrong on stderr. */
export const CONSOLE_LOG: JobLog = {
  info: (line) => console.log(line),
  error: (line) => console.error(line),
}

export type JobWorkers = {
  /**
   * Take no new job, give the jobs in hand `graceSeconds` to finish, then hand back to the queue those
   * that have not (each is tried again, by this or another worker), and close the library's connections.
   */
  stop(graceSeconds: number): Promise<void>
}

type WorkerOptions = {
  log: JobLog
  /** only these queues (tests); every queue when left out */
  queues?: QueueName[]
  /**
   * Seconds between looks at an idle queue for jobs no notification announced (a retry whose wait has
   * passed); a new job wakes a worker at once. The library's floor is 0.5.
   */
  pollSeconds?: number
}

export async function startJobWorkers({ log, queues = [...QUEUE_NAMES], pollSeconds = 5 }: WorkerOptions) {
  const env = getEnv()
  const library = new PgBoss({
    connectionString: await databaseUrl(),
    max: env.JOBS_POOL_MAX,
    application_name: 'portal-jobs',
    // a queued job wakes an idle worker at once instead of at its next look
    useListenNotify: true,
    // the schema is the migration's (installJobQueue), but a newer library finishes its own upgrades here
    migrate: true,
    supervise: true,
    schedule: true,
    superviseIntervalSeconds: env.JOBS_CHECK_SECONDS,
    monitorIntervalSeconds: env.JOBS_CHECK_SECONDS,
    instanceName: 'portal-worker',
  })
  library.on('error', (error) => log.error(`Job queue: ${failureLine(error)}`))
  library.on('warning', (warning) => log.error(`Job queue: ${failureLine(warning.message)}`))
  await library.start()

  for (const name of queues) {
    const spec = QUEUES[name]
    const handler = HANDLERS[name]
    if (spec.schedule) await library.schedule(name, spec.schedule, null, { tz: 'UTC' })
    // one worker per job at once, each asking for its next job as soon as it is done with one (the
    // library would otherwise wait for its next look, a long one when notifications are on)
    for (let i = 0; i < spec.concurrency; i++) {
      let workerId = ''
      workerId = await library.work(
        name,
        {
          includeMetadata: true as const,
          pollingIntervalSeconds: pollSeconds,
          notifyPollingIntervalSeconds: pollSeconds,
        },
        async ([job]: JobWithMetadata<object>[]) => {
          try {
            await runTry(name, job)
          } finally {
            library.notifyWorker(workerId)
          }
        },
      )
    }
    const { gaveUp } = handler
    if (gaveUp)
      await library.work(
        gaveUpQueue(name),
        {
          includeMetadata: true as const,
          pollingIntervalSeconds: pollSeconds,
          notifyPollingIntervalSeconds: pollSeconds,
        },
        async ([job]: JobWithMetadata<object>[]) => {
          const reason = describeFailure(outputMessage(job.sourceOutput) ?? 'The job was given up.')
          if (job.sourceId) await gaveUp(job.sourceId, reason)
        },
      )
  }
  const wakers = await listenForWork(library, queues, log)
  log.info(`Background jobs: working ${queues.length} queue(s).`)

  return {
    async stop(graceSeconds: number) {
      await wakers.stop()
      await library.stop({ graceful: true, timeout: Math.max(1, graceSeconds) * 1000, close: true })
    },
  } satisfies JobWorkers
}

/** How long a lost listening connection waits before it connects again: the first time, and at most. */
const RELISTEN_FIRST_MS = 1000
const RELISTEN_MAX_MS = 30_000

/**
 * The queues whose work the database's triggers write (a `wakeChannel`): one connection listens on their
 * channels and queues a job when a transaction that wrote work commits (the queue's policy keeps one waiting
 * at most, so a burst of notifications makes one job). A connection lost (the server restarted, the backend
 * ended, the network gone quiet: TCP keepalive notices) or one that could not be made is tried again after a
 * pause that doubles each time it fails, up to half a minute; once listening again, it queues a job for the
 * work written meanwhile.
 */
async function listenForWork(library: PgBoss, queues: QueueName[], log: JobLog) {
  const byChannel = new Map(
    queues.flatMap((name) => {
      const channel = QUEUES[name].wakeChannel
      return channel ? [[channel, name] as const] : []
    }),
  )
  let client: pg.Client | undefined
  let retry: NodeJS.Timeout | undefined
  let pause = RELISTEN_FIRST_MS
  let stopped = false
  const wake = (name: QueueName) =>
    library.send(name, {}).catch((error: unknown) => log.error(`Job queue: ${failureLine(error)}`))
  /** Listen again after the pause; every way a try fails ends here, so a retry is always scheduled. */
  const again = (error: unknown) => {
    if (stopped) return
    log.error(`Job queue: listening for work: ${failureLine(error)}; trying again in ${pause / 1000} s`)
    clearTimeout(retry)
    retry = setTimeout(() => void listen(), pause)
    pause = Math.min(pause * 2, RELISTEN_MAX_MS)
  }
  const listen = async () => {
    if (stopped || byChannel.size === 0) return
    let connection: pg.Client | undefined
    try {
      const connectionString = await databaseUrl()
      if (stopped) return
      connection = new pg.Client({
        connectionString,
        // its own name: the library listens too (useListenNotify), under the pool's name
        application_name: 'portal-jobs-wake',
        keepAlive: true,
        keepAliveInitialDelayMillis: 30_000,
      })
      const current = connection
      client = current
      const lost = (error: Error) => {
        if (client !== current) return
        client = undefined
        current.end().catch(() => undefined)
        again(error)
      }
      current.on('error', lost)
      current.on('end', () => lost(new Error('the connection closed')))
      current.on('notification', ({ channel }) => {
        const name = byChannel.get(channel)
        if (name) void wake(name)
      })
      await current.connect()
      for (const channel of byChannel.keys()) await current.query(`LISTEN ${channel}`)
      if (client !== current) return
      pause = RELISTEN_FIRST_MS
      // work written while nobody listened
      for (const name of byChannel.values()) await wake(name)
    } catch (error) {
      // a connection that failed part-way is let go; its own 'error' or 'end' may have scheduled the retry already
      if (connection && client !== connection) return
      client = undefined
      connection?.end().catch(() => undefined)
      again(error)
    }
  }
  await listen()
  return {
    async stop() {
      stopped = true
      clearTimeout(retry)
      const connection = client
      client = undefined
      await connection?.end().catch(() => undefined)
    },
  }
}

async function runTry(name: QueueName, job: JobWithMetadata<object>) {
  try {
    await HANDLERS[name].run({
      id: job.id,
      retryCount: job.retryCount,
      lastTry: job.retryCount >= job.retryLimit,
      signal: job.signal,
    })
  } catch (error) {
    throw jobFailure(error)
  }
}

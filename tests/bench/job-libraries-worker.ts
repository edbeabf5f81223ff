import { setTimeout as sleep } from 'node:timers/promises'
import { Logger, run, type Runner } from 'graphile-worker'
import { PgBoss } from 'pg-boss'

// The worker that tests/bench/job-libraries.ts kills with SIGKILL while it holds a job, and the one it
// starts after: one process, one library, one long job at a time. It speaks in lines on stdout, read by
// the bench: `ready`, `started <job id> <attempt>` on a handler's first line, `event <text>` for what
// the library reports meanwhile. Its own complaints go to stderr.
//
//   node --import tsx tests/bench/job-libraries-worker.ts <pg-boss|graphile-worker> <connection string> '<json>'
//
// json: pg-boss `{ queue, listen, superviseIntervalSeconds?, monitorIntervalSeconds? }`,
//       graphile-worker `{ task }`.

export type WorkerOptions =
  | {
      library: 'pg-boss'
      queue: string
      listen: boolean
      superviseIntervalSeconds?: number
      monitorIntervalSeconds?: number
    }
  | { library: 'graphile-worker'; task: string }

/** How long the handler holds its job: longer than the bench waits for anything. */
const HOLD_MS = 60_000

const say = (line: string) => process.stdout.write(`${line}\n`)
const complain = (line: string) => process.stderr.write(`[worker ${process.pid}] ${line}\n`)

async function startPgBoss(connectionString: string, options: Extract<WorkerOptions, { library: 'pg-boss' }>) {
  const boss = new PgBoss({
    connectionString,
    useListenNotify: options.listen,
    ...(options.superviseIntervalSeconds ? { superviseIntervalSeconds: options.superviseIntervalSeconds } : {}),
    ...(options.monitorIntervalSeconds ? { monitorIntervalSeconds: options.monitorIntervalSeconds } : {}),
  })
  boss.on('error', (error) => complain(`pg-boss error: ${error.message}`))
  boss.on('warning', (warning) => say(`event warning ${warning.message}`))
  await boss.start()
  await boss.work<object>(options.queue, { localConcurrency: 1 }, async ([job]) => {
    say(`started ${job!.id} ${job!.retryCount}`)
    await sleep(HOLD_MS, undefined, { signal: job!.signal }).catch(() => {})
  })
  return () => boss.stop({ graceful: false })
}

async function startGraphileWorker(
  connectionString: string,
  options: Extract<WorkerOptions, { library: 'graphile-worker' }>,
) {
  const runner: Runner = await run({
    connectionString,
    concurrency: 1,
    noHandleSignals: true,
    crontab: '',
    logger: new Logger(() => (level, message) => {
      if (level === 'error' || level === 'warning') complain(`graphile-worker ${level}: ${message}`)
    }),
    taskList: {
      [options.task]: async (_payload, helpers) => {
        say(`started ${helpers.job.id} ${helpers.job.attempts}`)
        await sleep(HOLD_MS, undefined, { signal: helpers.abortSignal }).catch(() => {})
      },
    },
  })
  // the sweep that would release a crashed worker's job: when it runs, and that it found nothing to do
  runner.events.on('resetLocked:success', ({ delay }) => say(`event resetLocked swept; next in ${delay} ms`))
  runner.events.on('pool:listen:success', () => say('event listening'))
  return () => runner.stop()
}

async function main() {
  const [library, connectionString, json] = process.argv.slice(2)
  if (!connectionString || !json) throw new Error('usage: job-libraries-worker.ts <library> <url> <json>')
  const options = { library, ...JSON.parse(json) } as WorkerOptions
  const stop =
    options.library === 'pg-boss'
      ? await startPgBoss(connectionString, options)
      : await startGraphileWorker(connectionString, options)
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void stop().finally(() => process.exit(0)))
  say('ready')
}

main().catch((error: unknown) => {
  complain(String(error))
  process.exit(1)
})

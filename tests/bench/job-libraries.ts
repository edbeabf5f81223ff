import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { Logger, makeWorkerUtils, run } from 'graphile-worker'
import pg from 'pg'
import { PgBoss } from 'pg-boss'
import { openEmbeddedDatabase, type EmbeddedHandle } from '#db/embedded.ts'
import type { WorkerOptions } from '#tests/bench/job-libraries-worker.ts'
import { freePort } from '#tests/setup/global.ts'

// npm run bench:job-libraries — pg-boss and graphile-worker measured on this machine, to choose the one
// the portal's background work moves onto. A throwaway embedded PostgreSQL (one database per library and
// mode, so nothing is shared), then for pg-boss with LISTEN/NOTIFY, pg-boss polling and graphile-worker:
//   - enqueue rate: N single sends, one after another;
//   - throughput: N queued no-op jobs worked at concurrency 1 and 10, with the library's default work
//     options and batched (pg-boss batchSize + burstWhenBatchFull + perJobResults, graphile-worker's
//     localQueue), from the first job's start to the last one's end; a run that would take far longer
//     stops after --cap-seconds and reports the rate it had (marked *);
//   - latency from just before send/addJob to the handler's first line, one job at a time to an idle
//     worker, p50/p95/p99/max;
//   - kill -9 of a worker process holding a long job: whether and when a second worker runs it again,
//     and what the library's job table says meanwhile.
// Figures only, never pass/fail. Progress goes to stderr; stdout has the table, or JSON with --json.
//
//   npx tsx tests/bench/job-libraries.ts [--jobs 5000] [--latency-jobs 200] [--polling-latency-jobs 40]
//       [--batch-size 20] [--cap-seconds 40] [--kill-wait 120] [--skip-kill] [--json]

const root = path.resolve(import.meta.dirname, '..', '..')
const WORKER_SCRIPT = path.join(import.meta.dirname, 'job-libraries-worker.ts')
/** Jobs sent before the latency samples, not counted: the first statements of a pool are slower. */
const LATENCY_WARM_UP = 5
/** After the bounded wait, how long graphile-worker gets to run the job once forceUnlockWorkers freed it. */
const UNLOCK_WAIT_MS = 15_000
/** pg-boss defaults for the case computed rather than measured (types.d.ts, attorney.js applyOpsConfig). */
const PG_BOSS_DEFAULTS = { expireInSeconds: 900, superviseIntervalSeconds: 60, monitorIntervalSeconds: 60 }
const PG_BOSS_POLL_SECONDS = 2
const PG_BOSS_NOTIFY_BACKSTOP_SECONDS = 30

const { values: flags } = parseArgs({
  options: {
    jobs: { type: 'string', default: '5000' },
    'latency-jobs': { type: 'string', default: '200' },
    'polling-latency-jobs': { type: 'string', default: '40' },
    'batch-size': { type: 'string', default: '20' },
    'cap-seconds': { type: 'string', default: '40' },
    'kill-wait': { type: 'string', default: '120' },
    'skip-kill': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
})
const wholeNumber = (name: keyof typeof flags) => {
  const value = Number(flags[name])
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive whole number.`)
  return value
}
const JOBS = wholeNumber('jobs')
const LATENCY_JOBS = wholeNumber('latency-jobs')
const POLLING_LATENCY_JOBS = wholeNumber('polling-latency-jobs')
const BATCH_SIZE = wholeNumber('batch-size')
const CAP_MS = wholeNumber('cap-seconds') * 1000
const KILL_WAIT_MS = wholeNumber('kill-wait') * 1000

const progress = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`)
const versionOf = (name: string) =>
  (JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version

// ---------------------------------------------------------------------------------------------------
// The libraries, behind one shape

type Payload = { seq: number }
type Handler = (payload: Payload) => void
type Work = { concurrency: number; batched: boolean }

type Subject = {
  library: 'pg-boss' | 'graphile-worker'
  mode: string
  /** How the batched columns were worked, for the notes under the table. */
  batchedAs: string
  prepare(queue: string): Promise<void>
  send(queue: string, payload: Payload): Promise<void>
  fill(queue: string, count: number): Promise<void>
  /** Starts working the queue; resolves to the function that stops it. */
  work(queue: string, work: Work, handler: Handler): Promise<() => Promise<void>>
  drop(queue: string): Promise<void>
  close(): Promise<void>
}

async function pgBossSubject(url: string, listen: boolean): Promise<Subject> {
  const boss = new PgBoss({ connectionString: url, useListenNotify: listen })
  boss.on('error', (error) => progress(`pg-boss error: ${error.message}`))
  boss.on('warning', (warning) => progress(`pg-boss warning: ${warning.message}`))
  await boss.start()
  return {
    library: 'pg-boss',
    mode: listen ? 'LISTEN/NOTIFY' : `polling (${PG_BOSS_POLL_SECONDS} s)`,
    batchedAs: `batchSize ${BATCH_SIZE}, burstWhenBatchFull, perJobResults; localConcurrency = c`,
    prepare: (queue) => boss.createQueue(queue, { notify: listen }),
    send: async (queue, payload) => void (await boss.send(queue, payload)),
    fill: async (queue, count) => {
      for (let from = 0; from < count; from += 1000) {
        const jobs = Array.from({ length: Math.min(1000, count - from) }, (_, i) => ({ data: { seq: from + i } }))
        await boss.insert(queue, jobs)
      }
    },
    work: async (queue, { concurrency, batched }, handler) => {
      const id = batched
        ? await boss.work<Payload>(
            queue,
            { localConcurrency: concurrency, batchSize: BATCH_SIZE, burstWhenBatchFull: true, perJobResults: true },
            async (jobs) =>
              jobs.map((job) => {
                handler(job.data)
                return { id: job.id, status: 'completed' as const }
              }),
          )
        : await boss.work<Payload>(queue, { localConcurrency: concurrency }, async (jobs) => {
            for (const job of jobs) handler(job.data)
          })
      return () => boss.offWork(queue, { id, wait: true })
    },
    drop: (queue) => boss.deleteQueue(queue),
    close: () => boss.stop(),
  }
}

const quietLogger = (who: string) =>
  new Logger(() => (level, message) => {
    if (level === 'error' || level === 'warning') progress(`${who} ${level}: ${message}`)
  })

/**
 * A pool for graphile-worker that we end ourselves, and wait for: the one it makes from a connection
 * string is ended without waiting, and a client still open when the server stops crashes the bench.
 */
function graphilePool(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  const report = (error: Error) => progress(`graphile-worker pool: ${error.message}`)
  pool.on('error', report)
  pool.on('connect', (client) => client.on('error', report))
  return pool
}

/** pool.end() resolves before its clients have closed; this waits until they have. */
async function endPool(pool: pg.Pool) {
  let open = pool.totalCount
  const closed = new Promise<void>((resolve) => {
    if (open === 0) resolve()
    pool.on('remove', () => --open === 0 && resolve())
  })
  await pool.end()
  await closed
}

async function graphileUtils(url: string) {
  const pgPool = graphilePool(url)
  const utils = await makeWorkerUtils({ pgPool, logger: quietLogger('graphile-worker') })
  const release = async () => {
    await utils.release()
    await endPool(pgPool)
  }
  return { utils, release }
}

async function graphileSubject(url: string): Promise<Subject> {
  const { utils, release } = await graphileUtils(url)
  await utils.migrate()
  return {
    library: 'graphile-worker',
    mode: 'LISTEN/NOTIFY (defaults)',
    batchedAs: `localQueue.size ${BATCH_SIZE}; concurrency = c`,
    // a job's task is its queue here: each measurement has a task of its own
    prepare: async () => {},
    send: async (task, payload) => void (await utils.addJob(task, payload)),
    fill: async (task, count) => {
      for (let from = 0; from < count; from += 1000) {
        const specs = Array.from({ length: Math.min(1000, count - from) }, (_, i) => ({
          identifier: task,
          payload: { seq: from + i },
        }))
        await utils.addJobs(specs)
      }
    },
    work: async (task, { concurrency, batched }, handler) => {
      const pgPool = graphilePool(url)
      const runner = await run({
        pgPool,
        concurrency,
        noHandleSignals: true,
        crontab: '',
        logger: quietLogger('graphile-worker'),
        taskList: { [task]: async (payload) => handler(payload as Payload) },
        ...(batched ? { preset: { worker: { localQueue: { size: BATCH_SIZE } } } } : {}),
      })
      return async () => {
        await runner.stop()
        await endPool(pgPool)
      }
    },
    drop: async () => {},
    close: release,
  }
}

// ---------------------------------------------------------------------------------------------------
// Measurements

type Rate = { perSecond: number; completed: number; of: number; seconds: number; capped: boolean }
type Latency = { samples: number; lost: number; p50: number; p95: number; p99: number; max: number }

async function enqueueRate(subject: Subject, queue: string): Promise<number> {
  await subject.prepare(queue)
  const started = performance.now()
  for (let seq = 0; seq < JOBS; seq++) await subject.send(queue, { seq })
  return JOBS / ((performance.now() - started) / 1000)
}

/** Works `queue`, already holding JOBS jobs, until all ran or CAP_MS passed since the first started. */
async function throughput(subject: Subject, queue: string, work: Work): Promise<Rate> {
  const began = performance.now()
  let first: number | undefined
  let last = 0
  let completed = 0
  const stop = await subject.work(queue, work, () => {
    last = performance.now()
    first ??= last
    completed++
  })
  while (completed < JOBS && performance.now() - (first ?? began) < CAP_MS) await sleep(50)
  const capped = completed < JOBS
  const end = capped ? performance.now() : last
  await stop()
  await subject.drop(queue)
  const seconds = (end - (first ?? began)) / 1000
  return { perSecond: completed / seconds, completed, of: JOBS, seconds, capped }
}

async function latency(subject: Subject, queue: string, samples: number, gapMs: () => number): Promise<Latency> {
  await subject.prepare(queue)
  const waiting = new Map<number, (at: number) => void>()
  const stop = await subject.work(queue, { concurrency: 1, batched: false }, ({ seq }) =>
    waiting.get(seq)?.(performance.now()),
  )
  await sleep(1000) // the worker's first fetch and its LISTEN are done: it is idle
  const ms: number[] = []
  let lost = 0
  for (let seq = 0; seq < LATENCY_WARM_UP + samples; seq++) {
    await sleep(gapMs())
    const started = new Promise<number>((resolve) => waiting.set(seq, resolve))
    const sentAt = performance.now()
    await subject.send(queue, { seq })
    const giveUp = sleep(PG_BOSS_NOTIFY_BACKSTOP_SECONDS * 1000 + 15_000, undefined, { ref: false })
    const startedAt = await Promise.race([started, giveUp])
    waiting.delete(seq)
    if (seq < LATENCY_WARM_UP) continue
    if (startedAt === undefined) lost++
    else ms.push(startedAt - sentAt)
  }
  await stop()
  await subject.drop(queue)
  ms.sort((a, b) => a - b)
  const at = (p: number) => ms[Math.max(0, Math.ceil((p / 100) * ms.length) - 1)] ?? NaN
  return { samples: ms.length, lost, p50: at(50), p95: at(95), p99: at(99), max: ms.at(-1) ?? NaN }
}

// ---------------------------------------------------------------------------------------------------
// kill -9 of a worker process with a job in hand

type KillProbe = {
  sendLong(): Promise<string>
  /** The job's row in the library's own table, in one line. */
  describe(id: string): Promise<string>
  /** graphile-worker only: what an operator can do, forceUnlockWorkers on the worker that held it. */
  unlock?(id: string): Promise<string>
  close(): Promise<void>
}
type KillCase = { label: string; worker: WorkerOptions; probe: () => Promise<KillProbe> }
type KillOutcome = {
  case: string
  reRunAfterSeconds: number | null
  waitedSeconds: number
  secondWorkerReadyAfterSeconds: number
  timeline: { afterKillSeconds: number; state: string }[]
  workerEvents: { afterKillSeconds: number; event: string }[]
  unlock?: { did: string; reRunAfterSeconds: number | null }
}

async function pgBossProbe(url: string, queue: string, listen: boolean): Promise<KillProbe> {
  // an observer only: it must not supervise, so that what recovers the job is the second worker
  const boss = new PgBoss({ connectionString: url, useListenNotify: listen, supervise: false, schedule: false })
  boss.on('error', (error) => progress(`pg-boss error: ${error.message}`))
  await boss.start()
  await boss.createQueue(queue, { notify: listen, heartbeatSeconds: 10 })
  return {
    sendLong: async () => (await boss.send(queue, {}))!,
    describe: async (id) => {
      const [job] = await boss.findJobs(queue, { id })
      if (!job) return 'gone'
      const output = job.output && Object.keys(job.output).length ? `, output ${JSON.stringify(job.output)}` : ''
      return `${job.state}, retryCount ${job.retryCount}${output}`
    },
    close: () => boss.stop(),
  }
}

async function graphileProbe(url: string): Promise<KillProbe> {
  const { utils, release } = await graphileUtils(url)
  type Row = { locked_by: string | null; attempts: number; max_attempts: number; last_error: string | null }
  const row = async (id: string) =>
    (
      await utils.withPgClient((client) =>
        client.query<Row>(
          'SELECT locked_by, attempts, max_attempts, last_error FROM graphile_worker.jobs WHERE id = $1',
          [id],
        ),
      )
    ).rows[0]
  return {
    sendLong: async () => (await utils.addJob('long', {})).id,
    describe: async (id) => {
      const job = await row(id)
      if (!job) return 'gone'
      const lock = job.locked_by ? `locked by ${job.locked_by}` : 'unlocked'
      return `${lock}, attempts ${job.attempts}/${job.max_attempts}${job.last_error ? `, last_error ${job.last_error}` : ''}`
    },
    unlock: async (id) => {
      const lockedBy = (await row(id))?.locked_by
      if (!lockedBy) return 'nothing to unlock'
      await utils.forceUnlockWorkers([lockedBy])
      return `forceUnlockWorkers(['${lockedBy}'])`
    },
    close: release,
  }
}

type WorkerProcess = {
  child: ChildProcess
  /** The first line since the start that `match` accepts, or undefined after `ms` or once the child exited. */
  waitFor(match: (line: string) => boolean, ms: number): Promise<{ at: number; line: string } | undefined>
  lines: { at: number; line: string }[]
  exited: Promise<void>
}

const children = new Set<ChildProcess>()

function startWorker(url: string, options: WorkerOptions): WorkerProcess {
  const { library, ...rest } = options
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER_SCRIPT, library, url, JSON.stringify(rest)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.add(child)
  const lines: { at: number; line: string }[] = []
  const listeners = new Set<() => void>()
  let gone = false
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      gone = true
      children.delete(child)
      for (const listener of listeners) listener()
      resolve()
    }),
  )
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push({ at: performance.now(), line })
    for (const listener of listeners) listener()
  })
  const waitFor: WorkerProcess['waitFor'] = (match, ms) =>
    new Promise((resolve) => {
      const check = () => {
        const found = lines.find((l) => match(l.line))
        if (!found && !gone) return
        listeners.delete(check)
        clearTimeout(timer)
        resolve(found)
      }
      const timer = setTimeout(() => {
        listeners.delete(check)
        resolve(undefined)
      }, ms)
      listeners.add(check)
      check()
    })
  return { child, waitFor, lines, exited }
}

async function killCase(url: string, kase: KillCase): Promise<KillOutcome> {
  const probe = await kase.probe()
  try {
    const first = startWorker(url, kase.worker)
    if (!(await first.waitFor((l) => l === 'ready', 60_000))) throw new Error('the first worker did not start')
    const id = await probe.sendLong()
    const isStart = (line: string) => line.startsWith(`started ${id} `)
    if (!(await first.waitFor(isStart, 60_000))) throw new Error('the first worker did not start the long job')
    first.child.kill('SIGKILL')
    const killedAt = performance.now()
    await first.exited
    const since = (at: number) => Math.round((at - killedAt) / 100) / 10
    const timeline = [{ afterKillSeconds: since(performance.now()), state: await probe.describe(id) }]

    const second = startWorker(url, kase.worker)
    const ready = await second.waitFor((l) => l === 'ready', 60_000)
    if (!ready) throw new Error('the second worker did not start')
    const deadline = killedAt + KILL_WAIT_MS
    let reRun: { at: number } | undefined
    while (!reRun && performance.now() < deadline) {
      reRun = await second.waitFor(isStart, Math.min(1000, deadline - performance.now()))
      const state = await probe.describe(id)
      if (state !== timeline.at(-1)!.state) timeline.push({ afterKillSeconds: since(performance.now()), state })
    }
    const outcome: KillOutcome = {
      case: kase.label,
      reRunAfterSeconds: reRun ? since(reRun.at) : null,
      waitedSeconds: since(reRun?.at ?? performance.now()),
      secondWorkerReadyAfterSeconds: since(ready.at),
      timeline,
      workerEvents: [],
    }
    if (!reRun && probe.unlock) {
      const unlockedAt = performance.now()
      const did = await probe.unlock(id)
      const after = await second.waitFor(isStart, UNLOCK_WAIT_MS)
      outcome.unlock = { did, reRunAfterSeconds: after ? Math.round((after.at - unlockedAt) / 100) / 10 : null }
      timeline.push({ afterKillSeconds: since(performance.now()), state: await probe.describe(id) })
    }
    outcome.workerEvents = second.lines
      .filter((l) => l.line.startsWith('event '))
      .map((l) => ({ afterKillSeconds: since(l.at), event: l.line.slice(6) }))
    second.child.kill('SIGKILL')
    await second.exited
    return outcome
  } finally {
    await probe.close()
  }
}

// ---------------------------------------------------------------------------------------------------

type Row = {
  library: string
  version: string
  mode: string
  batchedAs: string
  enqueuePerSecond: number
  throughput: { c1: Rate; c10: Rate; c1Batched: Rate; c10Batched: Rate }
  latencyMs: Latency
  kill: KillOutcome[]
}

async function measure(subject: Subject, latencySamples: number, gapMs: () => number) {
  const label = `${subject.library} ${subject.mode}`
  progress(`${label}: enqueue ${JOBS} single sends`)
  const enqueuePerSecond = await enqueueRate(subject, 'tp-c1')
  const rate = async (queue: string, work: Work, fill: boolean) => {
    if (fill) {
      await subject.prepare(queue)
      await subject.fill(queue, JOBS)
    }
    progress(`${label}: throughput, concurrency ${work.concurrency}${work.batched ? ', batched' : ''}`)
    return throughput(subject, queue, work)
  }
  const throughputs = {
    c1: await rate('tp-c1', { concurrency: 1, batched: false }, false),
    c10: await rate('tp-c10', { concurrency: 10, batched: false }, true),
    c1Batched: await rate('tp-c1-batched', { concurrency: 1, batched: true }, true),
    c10Batched: await rate('tp-c10-batched', { concurrency: 10, batched: true }, true),
  }
  progress(`${label}: latency, ${latencySamples} jobs one at a time`)
  const latencyMs = await latency(subject, 'latency', latencySamples, gapMs)
  return { enqueuePerSecond, throughput: throughputs, latencyMs }
}

const between = (low: number, high: number) => () => low + Math.random() * (high - low)

async function main() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-bench-jobs-'))
  let server: EmbeddedHandle | undefined
  const cleanUp = async () => {
    for (const child of children) child.kill('SIGKILL')
    await server?.stop()
    await rm(dataDir, { recursive: true, force: true })
  }
  // the server is stopped by us (stoppedBy: 'caller'), so Ctrl+C also ends the workers and removes the
  // folder; so does an error a library emits where nothing awaits it, which would otherwise end the
  // process at once and leave the detached server running
  const onSignal = (signal: NodeJS.Signals) =>
    void cleanUp().finally(() => process.exit(128 + (os.constants.signals[signal] ?? 0)))
  const onCrash = (error: unknown) => {
    console.error(error)
    void cleanUp().finally(() => process.exit(1))
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, onSignal)
  process.once('uncaughtException', onCrash)
  try {
    // as root, PostgreSQL runs as the "postgres" user, which must reach the folder
    await chmod(dataDir, 0o755)
    server = await openEmbeddedDatabase({
      dataDir,
      port: await freePort(),
      password: 'bench-job-libraries',
      mode: 'own',
      database: 'postgres',
      fast: true,
      stoppedBy: 'caller',
    })
    const admin = new pg.Client(server.url)
    await admin.connect()
    const postgres = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version
    const databases = ['jobs_pgboss_notify', 'jobs_pgboss_polling', 'jobs_graphile']
    for (const name of databases) await admin.query(`CREATE DATABASE ${name}`)
    await admin.end()
    const urlOf = (database: string) => Object.assign(new URL(server!.url), { pathname: `/${database}` }).href
    const [notifyUrl, pollingUrl, graphileUrl] = databases.map(urlOf) as [string, string, string]
    const machine =
      `${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}, ` +
      `${(os.totalmem() / 1024 ** 3).toFixed(1)} GB, ${os.type()} ${os.release()}, Node ${process.version}, ` +
      `PostgreSQL ${postgres} (embedded, fsync off), load average ${os.loadavg()[0]!.toFixed(2)} at start`
    progress(machine)

    const plans = [
      {
        url: notifyUrl,
        open: () => pgBossSubject(notifyUrl, true),
        samples: LATENCY_JOBS,
        gap: between(5, 25),
        kill: [
          {
            label: 'heartbeatSeconds 10, superviseIntervalSeconds 2',
            worker: { library: 'pg-boss', queue: 'long', listen: true, superviseIntervalSeconds: 2 },
            probe: () => pgBossProbe(notifyUrl, 'long', true),
          },
          {
            label: 'heartbeatSeconds 10, superviseIntervalSeconds 2, monitorIntervalSeconds 2',
            worker: {
              library: 'pg-boss',
              queue: 'long-monitored',
              listen: true,
              superviseIntervalSeconds: 2,
              monitorIntervalSeconds: 2,
            },
            probe: () => pgBossProbe(notifyUrl, 'long-monitored', true),
          },
        ] satisfies KillCase[],
      },
      {
        url: pollingUrl,
        open: () => pgBossSubject(pollingUrl, false),
        samples: POLLING_LATENCY_JOBS,
        // spaced over a whole polling interval, so the samples fall at every point of the worker's wait
        gap: between(5, PG_BOSS_POLL_SECONDS * 1000),
        kill: [
          {
            label: 'heartbeatSeconds 10, superviseIntervalSeconds 2',
            worker: { library: 'pg-boss', queue: 'long', listen: false, superviseIntervalSeconds: 2 },
            probe: () => pgBossProbe(pollingUrl, 'long', false),
          },
        ] satisfies KillCase[],
      },
      {
        url: graphileUrl,
        open: () => graphileSubject(graphileUrl),
        samples: LATENCY_JOBS,
        gap: between(5, 25),
        kill: [
          {
            label: 'defaults',
            worker: { library: 'graphile-worker', task: 'long' },
            probe: () => graphileProbe(graphileUrl),
          },
        ] satisfies KillCase[],
      },
    ]

    const rows: Row[] = []
    for (const plan of plans) {
      const subject = await plan.open()
      const figures = await measure(subject, plan.samples, plan.gap)
      await subject.close()
      const kill: KillOutcome[] = []
      if (!flags['skip-kill'])
        for (const kase of plan.kill) {
          progress(`${subject.library} ${subject.mode}: kill -9 with a job in hand (${kase.label})`)
          kill.push(await killCase(plan.url, kase))
        }
      rows.push({
        library: subject.library,
        version: versionOf(subject.library),
        mode: subject.mode,
        batchedAs: subject.batchedAs,
        ...figures,
        kill,
      })
    }

    const computed = pgBossDefaultsComputed()
    const settings = {
      jobs: JOBS,
      latencyJobs: LATENCY_JOBS,
      pollingLatencyJobs: POLLING_LATENCY_JOBS,
      batchSize: BATCH_SIZE,
      capSeconds: CAP_MS / 1000,
      killWaitSeconds: KILL_WAIT_MS / 1000,
    }
    if (flags.json) console.log(JSON.stringify({ machine, settings, rows, computed }, null, 2))
    else printTable(machine, rows, computed)
  } finally {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(signal, onSignal)
    process.off('uncaughtException', onCrash)
    await cleanUp()
  }
}

/**
 * pg-boss with its defaults, worked out rather than waited for (15 minutes): no heartbeat, so the job
 * stays active until started_on + expireInSeconds; the supervisor fails it ("job timed out") to retry on
 * the first monitor pass after that; the retry is fetched at the next poll, since a retry sends no NOTIFY.
 */
function pgBossDefaultsComputed() {
  const { expireInSeconds, superviseIntervalSeconds, monitorIntervalSeconds } = PG_BOSS_DEFAULTS
  const pass = Math.max(superviseIntervalSeconds, monitorIntervalSeconds)
  return {
    case: 'pg-boss defaults: no heartbeat, expireInSeconds 900, supervise and monitor every 60 s',
    reRunAfterJobStartSeconds: {
      polling: [expireInSeconds, expireInSeconds + pass + PG_BOSS_POLL_SECONDS],
      listen: [expireInSeconds, expireInSeconds + pass + PG_BOSS_NOTIFY_BACKSTOP_SECONDS],
    },
  }
}

function printTable(machine: string, rows: Row[], computed: ReturnType<typeof pgBossDefaultsComputed>) {
  const rate = (r: Rate) => `${r.perSecond.toFixed(r.perSecond < 10 ? 2 : 0)}${r.capped ? '*' : ''}`
  const ms = (value: number) => (value < 10 ? value.toFixed(1) : value.toFixed(0))
  const kill = (k: KillOutcome | undefined) =>
    !k
      ? 'skipped'
      : k.reRunAfterSeconds === null
        ? `not within ${k.waitedSeconds.toFixed(0)} s`
        : `re-run after ${k.reRunAfterSeconds} s`
  const head = [
    'library',
    'mode',
    'enqueue/s',
    'c=1 /s',
    'c=10 /s',
    'c=1 batched',
    'c=10 batched',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'max ms',
    'kill -9',
  ]
  const table = rows.map((r) => [
    `${r.library} ${r.version}`,
    r.mode,
    r.enqueuePerSecond.toFixed(0),
    rate(r.throughput.c1),
    rate(r.throughput.c10),
    rate(r.throughput.c1Batched),
    rate(r.throughput.c10Batched),
    ms(r.latencyMs.p50),
    ms(r.latencyMs.p95),
    ms(r.latencyMs.p99),
    ms(r.latencyMs.max),
    kill(r.kill[0]),
  ])
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i]!.length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 2 || i === 11 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  console.log(`machine: ${machine}`)
  console.log(`${JOBS} jobs per throughput run; latency: one job at a time to an idle worker\n`)
  console.log(line(head))
  for (const t of table) console.log(line(t))
  console.log()
  const capped = rows.flatMap((r) =>
    Object.entries(r.throughput)
      .filter(([, t]) => t.capped)
      .map(([column, t]) => `${r.library} ${r.mode} ${column}: ${t.completed} of ${t.of} in ${t.seconds.toFixed(1)} s`),
  )
  if (capped.length) console.log(`* stopped after ${CAP_MS / 1000} s:\n  ${capped.join('\n  ')}`)
  for (const r of rows) {
    console.log(
      `\n${r.library} ${r.mode}: batched = ${r.batchedAs}; latency from ${r.latencyMs.samples} samples, lost ${r.latencyMs.lost}`,
    )
    for (const k of r.kill) {
      console.log(`  kill -9 (${k.case}): ${kill(k)}; second worker ready after ${k.secondWorkerReadyAfterSeconds} s`)
      for (const t of k.timeline) console.log(`    ${String(t.afterKillSeconds).padStart(6)} s  ${t.state}`)
      for (const e of k.workerEvents)
        console.log(`    ${String(e.afterKillSeconds).padStart(6)} s  second worker: ${e.event}`)
      if (k.unlock)
        console.log(
          `    then ${k.unlock.did}: ${k.unlock.reRunAfterSeconds === null ? `not re-run within ${UNLOCK_WAIT_MS / 1000} s` : `re-run ${k.unlock.reRunAfterSeconds} s later`}`,
        )
    }
  }
  const { polling, listen } = computed.reRunAfterJobStartSeconds
  console.log(
    `\n${computed.case} (computed, not measured): re-run ${polling[0]}–${polling[1]} s after the job started when polling, ` +
      `${listen[0]}–${listen[1]} s with LISTEN/NOTIFY (a retry sends no NOTIFY: the ${PG_BOSS_NOTIFY_BACKSTOP_SECONDS} s backstop poll fetches it)`,
  )
}

await main()

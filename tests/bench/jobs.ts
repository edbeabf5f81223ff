import { setTimeout as sleep } from 'node:timers/promises'
import { PgBoss } from 'pg-boss'
import { QueryTypes, type Sequelize } from 'sequelize'
import { startJobWorkers, type JobWorkers } from '#app/modules/jobs/runner.server.ts'
import { enqueueInvitation } from '#app/modules/mail/queue.server.ts'
import { disconnect } from '#db/client.ts'
import { benchDatabase } from '#tests/bench/database.ts'

// npm run bench:jobs (part of npm run bench): the portal's job queue on a throwaway database, beside a floor
// measured in the same run. Figures only, never pass/fail; BENCH.md keeps the last ones and the old loops'.
//   floor   pg-boss itself: a queue of the bench's own, a handler that does nothing, one worker, LISTEN/NOTIFY,
//           the worker asking for its next job as soon as it is done (pg-boss's own poll between jobs would
//           measure its poll interval, not the queue)
//   runner  the portal's workers as `portal serve` starts them, on the queue `export-look` (its handler reads
//           the export schedules: none here), one worker
//   mail    queued invitations through the queue `mail` (two workers, the .eml outbox, no rate limit), from the
//           row's creation to its `sent` mark: the product's own enqueue → done
// Latency is enqueue → start of one job at a time to an idle worker, read from the job table's own clock
// (created_on → started_on), so no hook in the code under test; throughput is jobs queued first, then worked.
//
//   BENCH_JOBS=2000          jobs queued for the throughput rows (default 2000)
//   BENCH_JOB_SAMPLES=200    jobs sent one at a time for the latency rows (default 200)
//   BENCH_MAILS=300          invitations for the mail rows (default 300)

const JOBS = Number(process.env.BENCH_JOBS ?? 2000)
const SAMPLES = Number(process.env.BENCH_JOB_SAMPLES ?? 200)
const MAILS = Number(process.env.BENCH_MAILS ?? 300)
const FLOOR_QUEUE = 'bench-floor'

type Figures = { p50: number; p95: number; p99: number; max: number; perSecond: number }

const progress = (line: string) => process.stderr.write(`${line}\n`)

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

async function main() {
  const { url, sequelize, close } = await benchDatabase('jobs', { MAIL_RATE_PER_MINUTE: '100000' })
  try {
    const jobs = async (sql: string, bind: unknown[] = []) =>
      sequelize.query<{ ms: number }>(sql, { bind, type: QueryTypes.SELECT })

    // the floor: the library alone
    const floor = new PgBoss({ connectionString: url, useListenNotify: true, max: 4 })
    floor.on('error', (error) => progress(`floor: ${error.message}`))
    await floor.start()
    await floor.createQueue(FLOOR_QUEUE, { notify: true })
    const floorRow = await measure(
      'floor',
      () => floor.send(FLOOR_QUEUE, {}),
      async () => {
        let worker = ''
        worker = await floor.work(FLOOR_QUEUE, async () => floor.notifyWorker(worker))
        return { stop: () => floor.offWork(FLOOR_QUEUE) }
      },
      jobs,
    )
    await floor.stop({ graceful: false })

    // the portal's runner on a queue whose handler does almost nothing
    const look = new PgBoss({ connectionString: url, max: 2, supervise: false, schedule: false })
    await look.start()
    const runnerRow = await measure(
      'runner',
      () => look.send('export-look', {}),
      async () => {
        const workers = await startJobWorkers({ queues: ['export-look'], log: { info: () => {}, error: progress } })
        return { stop: () => workers.stop(1) }
      },
      jobs,
    )
    await look.stop({ graceful: false })

    const mailRow = await measureMail(sequelize)

    console.log(`\njob queue: enqueue → start of one job to an idle worker (ms), and jobs worked per second`)
    console.log(
      `${'row'.padEnd(8)}  ${['p50', 'p95', 'p99', 'max', 'jobs/s', 'vs floor'].map((h) => h.padStart(8)).join('')}`,
    )
    for (const [name, row] of [
      ['floor', floorRow],
      ['runner', runnerRow],
    ] as const)
      console.log(
        `${name.padEnd(8)}  ${[row.p50, row.p95, row.p99, row.max].map((v) => v.toFixed(1).padStart(8)).join('')}` +
          `${row.perSecond.toFixed(0).padStart(8)}${`${(row.perSecond / floorRow.perSecond).toFixed(2)}×`.padStart(10)}`,
      )
    console.log(`\nqueued mail: row created → marked sent (ms), and mails sent per second (${MAILS} mails, 2 workers)`)
    console.log(
      `${'mail'.padEnd(8)}  ${[mailRow.p50, mailRow.p95, mailRow.p99, mailRow.max].map((v) => v.toFixed(1).padStart(8)).join('')}` +
        `${mailRow.perSecond.toFixed(0).padStart(8)}`,
    )
  } finally {
    await disconnect()
    await close()
  }
}

/** Latency of single jobs to an idle worker, then the throughput of JOBS queued jobs, for one subject. */
async function measure(
  name: string,
  send: () => Promise<string | null>,
  startWorker: () => Promise<{ stop: () => Promise<void> }>,
  jobs: (sql: string, bind?: unknown[]) => Promise<{ ms: number }[]>,
): Promise<Figures> {
  progress(`${name}: latency, ${SAMPLES} jobs one at a time`)
  const worker = await startWorker()
  const ids: string[] = []
  for (let i = 0; i < SAMPLES + 5; i++) {
    const id = await send()
    if (id) ids.push(id)
    await untilDone(jobs, [id as string])
    await sleep(10 + Math.random() * 10)
  }
  // the first few warm the pools up
  const samples = await jobs(
    `SELECT extract(epoch FROM started_on - created_on) * 1000 AS ms FROM pgboss.job WHERE id = ANY($1::uuid[])`,
    [ids.slice(5)],
  )
  await worker.stop()

  progress(`${name}: throughput, ${JOBS} jobs queued first`)
  const batch: string[] = []
  for (let i = 0; i < JOBS; i++) batch.push((await send()) as string)
  const again = await startWorker()
  await untilDone(jobs, batch)
  await again.stop()
  const [span] = await jobs(
    `SELECT extract(epoch FROM max(completed_on) - min(started_on)) * 1000 AS ms FROM pgboss.job WHERE id = ANY($1::uuid[])`,
    [batch],
  )
  const sorted = samples.map((s) => Number(s.ms)).sort((a, b) => a - b)
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? 0,
    perSecond: JOBS / (Number(span.ms) / 1000),
  }
}

async function untilDone(jobs: (sql: string, bind?: unknown[]) => Promise<{ ms: number }[]>, ids: string[]) {
  for (;;) {
    const [left] = await jobs(
      `SELECT count(*)::int AS ms FROM pgboss.job WHERE id = ANY($1::uuid[]) AND state <> 'completed'`,
      [ids],
    )
    if (Number(left.ms) === 0) return
    await sleep(5)
  }
}

/** Invitations queued one at a time to idle workers, then MAILS at once: created → sent, and mails per second. */
async function measureMail(sequelize: Sequelize): Promise<Figures> {
  const query = async <T extends object>(sql: string, bind: unknown[] = []) =>
    sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT })
  const invitees = async (count: number, tag: string) =>
    query<{ id: string }>(
      `INSERT INTO users (first_name, last_name, user_name, email, role_id)
       SELECT 'Ivy', 'Bench', $1 || g, $1 || g || '@bench.example', 2 FROM generate_series(1, $2) g RETURNING id`,
      [tag, count],
    )
  const unsent = async () =>
    Number((await query<{ n: number }>(`SELECT count(*)::int AS n FROM mail_queue WHERE status <> 'sent'`))[0].n)
  const log = { info: () => {}, error: progress }
  progress(`mail: latency, ${Math.min(SAMPLES, 50)} invitations one at a time`)
  let workers: JobWorkers[] = [await startJobWorkers({ queues: ['mail'], log })]
  for (const { id } of await invitees(Math.min(SAMPLES, 50), 'single')) {
    await enqueueInvitation(id)
    while ((await unsent()) > 0) await sleep(5)
  }
  const samples = await query<{ ms: number }>(
    `SELECT extract(epoch FROM sent_at - created_at) * 1000 AS ms FROM mail_queue`,
  )
  await Promise.all(workers.map((w) => w.stop(1)))

  progress(`mail: throughput, ${MAILS} invitations queued first`)
  for (const { id } of await invitees(MAILS, 'many')) await enqueueInvitation(id)
  const started = performance.now()
  workers = await Promise.all([1, 2].map(() => startJobWorkers({ queues: ['mail'], log })))
  while ((await unsent()) > 0) await sleep(20)
  const seconds = (performance.now() - started) / 1000
  await Promise.all(workers.map((w) => w.stop(1)))
  const sorted = samples.map((s) => Number(s.ms)).sort((a, b) => a - b)
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? 0,
    perSecond: MAILS / seconds,
  }
}

await main()

import type { ChildProcess } from 'node:child_process'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as pause } from 'node:timers/promises'
import type pg from 'pg'
import { cannon, notOk, type Target } from '#tests/bench/autocannon.ts'
import { BENCH_PASSWORD, heartbeat, loadDataSet, portalDatabase, rotate } from '#tests/bench/data-set.ts'
import { buildIfMissing, portalEnv, printMachine, signIn, start, stop } from '#tests/bench/serve.ts'

// npm run bench:labs-load (part of npm run bench): heartbeats and two learner pages on the real `portal serve`,
// under the same fixed, moderate load three times:
//   quiet        nothing else runs
//   attacks      one learner sends the attack corpus (tests/integration/labs-grading.test.ts, on the demo
//                bookshop's tables) in a loop through POST /api/labs/{labId}/attempts
//   20 learners  20 learners submit at once, in a loop: an exercise's solution or a wrong answer, each
//                waiting as long as a 429's Retry-After says
// Printed: p50 and p99 of each row, p99 against the quiet run's, and what the attempts were answered.
// Figures, never pass/fail; BENCH.md says what each row means and keeps the last figures.
//
//   BENCH_SECONDS=15          seconds of each measured load (default 15)
//   BENCH_WARMUP_SECONDS=2    unmeasured load before each, the attempts already running (default 2)

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15)
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2)
const SUBMITTERS = 20
for (const [name, value, least] of [
  ['BENCH_SECONDS', SECONDS, 1],
  ['BENCH_WARMUP_SECONDS', WARMUP_SECONDS, 0],
] as const)
  if (!Number.isFinite(value) || value < least) {
    console.error(`bench: ${name} must be a number of seconds, at least ${least}`)
    process.exit(2)
  }

/** The fixed load: a rate well below what the server can take, so the rows show slowing, not queueing. */
const HEARTBEATS = { connections: 10, rate: 100 }
const PAGES = { connections: 2, rate: 10 }

const ATTEMPTS_PATH = (labId: string) => `/api/labs/${labId}/attempts`

/**
 * The attack corpus of tests/integration/labs-grading.test.ts, on the tables of the demo bookshop
 * (db/seeds/labs/sql-fundamentals). Each should be refused (4xx) or graded as a failed attempt, never a 5xx.
 */
const ATTACKS: [string, string][] = [
  // the ones that run until the time limit cuts them come between the ones refused at once
  ['generate_series(1, 1e10)', 'SELECT count(*) FROM generate_series(1, 1e10)'],
  ['COMMIT; DROP TABLE', 'COMMIT; DROP TABLE books'],
  ['RESET ROLE', 'RESET ROLE'],
  ['set_config + pg_sleep(60)', "SELECT set_config('statement_timeout','0',false); SELECT pg_sleep(60)"],
  ['cross join of four tables', 'SELECT count(*) FROM order_items a, order_items b, order_items c, order_items d'],
  ['COPY … TO PROGRAM', "COPY books TO PROGRAM 'id'"],
  ['pg_authid', 'SELECT * FROM pg_authid'],
  ['a million rows', 'SELECT n FROM generate_series(1, 1000000) AS n'],
  ['pg_read_file', "SELECT pg_read_file('/etc/passwd')"],
  [
    'CREATE FUNCTION, endless loop',
    'CREATE FUNCTION spin() RETURNS int LANGUAGE plpgsql AS $$ BEGIN LOOP END LOOP; END $$',
  ],
  ['pg_sleep(60)', 'SELECT pg_sleep(60)'],
  ['LOCK TABLE', 'LOCK TABLE books'],
  ['a 1 MB query', `SELECT '${'x'.repeat(1024 * 1024)}'`],
  ["the portal's users table", 'SELECT * FROM users'],
]

const progress = (line: string) => process.stderr.write(`${line}\n`)

async function main() {
  await buildIfMissing()
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-bench-labs-load-'))
  // as root, the embedded PostgreSQL runs as `postgres`, which must reach the folder
  await chmod(dataDir, 0o755)
  const env = await portalEnv(dataDir)
  const base = `http://127.0.0.1:${env.PORT}`
  let portal: ChildProcess | undefined
  let client: pg.Client | undefined
  let cleaned: Promise<void> | undefined
  const cleanUp = () =>
    (cleaned ??= (async () => {
      await client?.end().catch(() => undefined)
      if (portal) await stop(portal)
      await rm(dataDir, { recursive: true, force: true })
    })())
  // stopped from outside (Ctrl-C, a CI timeout): the server and the folder go all the same
  const onSignal = (signal: NodeJS.Signals) =>
    void cleanUp().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143))
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    const started = await start(env, base)
    portal = started.child
    console.log(
      `start to first served page, fresh DATA_DIR (initdb, migrate, seed, demo labs): ${started.ms.toFixed(0)} ms`,
    )
    const database = await portalDatabase(env)
    client = database.client
    const data = await loadDataSet(client)
    const { rows: version } = await client.query<{ server_version: string }>('SHOW server_version')
    printMachine(version[0].server_version)
    const labs = await demoLabs(
      client,
      data.learners.map((l) => l.id),
    )
    const bookshop = labs.find((lab) => lab.dataset === 'bookshop.sql')
    if (!bookshop) throw new Error('bench: the demo lab SQL Fundamentals (bookshop.sql) was not built')

    // bench1 reads the pages; the last learner attacks; learners 2 to 21 submit
    const cookie = { Cookie: await signIn(base, 'bench1', BENCH_PASSWORD) }
    const attacker = data.learners[data.learners.length - 1].token
    const submitters = data.learners.slice(1, 1 + SUBMITTERS).map((l) => l.token)
    const targets: LoadTarget[] = [
      {
        name: 'heartbeat',
        path: '/api/category/videoProgress',
        method: 'POST',
        next: rotate(data.pairs, heartbeat, (pair) => pair.learner.token),
        ...HEARTBEATS,
      },
      { name: 'My Courses', path: '/courses', headers: cookie, ...PAGES },
      { name: 'lab page', path: `/course/${bookshop.courseId}/lab/${bookshop.id}`, headers: cookie, ...PAGES },
    ]
    for (const target of targets.filter((t) => !t.next)) await preflight(base, target)

    console.log(
      `\nload of each row, all three at once: heartbeats ${HEARTBEATS.rate}/s over ${HEARTBEATS.connections} ` +
        `connections, rotating over ${data.pairs.length} (learner, video) pairs, each within the credit; My Courses ` +
        `and the ${bookshop.title} lab page of one learner ` +
        `(${data.courses.length + new Set(labs.map((l) => l.courseId)).size} courses), ${PAGES.rate}/s each over ${PAGES.connections} connections.\n` +
        `${SECONDS} s measured after ${WARMUP_SECONDS} s of warm-up, the attempts running from the warm-up on; ` +
        `request logging on, as in production.`,
    )

    const quiet = await phase(base, targets, 'quiet', async () => undefined)
    const attacked = await phase(base, targets, 'attack corpus in a loop', (signal) =>
      attackLoop(base, attacker, bookshop, signal),
    )
    const submitted = await phase(base, targets, `${SUBMITTERS} learners submitting`, (signal) =>
      submissionLoops(base, submitters, labs, signal),
    )

    printTable(targets, [quiet, attacked, submitted])
    printAttacks(attacked.background)
    printSubmissions(submitted.background)
    console.log(`\nload average (1 min) at the end: ${os.loadavg()[0].toFixed(2)}`)
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await cleanUp()
  }
}

// ——— the demo labs ———

type Lab = {
  id: string
  courseId: string
  title: string
  dataset: string
  exercises: { key: string; check: 'result' | 'state'; solution: string }[]
}

/** The demo labs `portal serve` built as it seeded the demo, their courses assigned to the bench's learners. */
async function demoLabs(client: pg.Client, learnerIds: string[]): Promise<Lab[]> {
  const { rows: labs } = await client.query<{ id: string; course_id: string; title: string; dataset_name: string }>(
    'SELECT id, course_id, title, dataset_name FROM labs WHERE database IS NOT NULL AND visibility ORDER BY title',
  )
  const { rows: exercises } = await client.query<{
    lab_id: string
    key: string
    check_kind: 'result' | 'state'
    solution: string
  }>('SELECT lab_id, key, check_kind, solution FROM lab_exercises ORDER BY lab_id, position')
  await client.query(
    `INSERT INTO course_assignments (user_id, course_id)
     SELECT u, c FROM unnest($1::uuid[]) u CROSS JOIN unnest($2::uuid[]) c ON CONFLICT DO NOTHING`,
    [learnerIds, [...new Set(labs.map((l) => l.course_id))]],
  )
  return labs.map((lab) => ({
    id: lab.id,
    courseId: lab.course_id,
    title: lab.title,
    dataset: lab.dataset_name,
    exercises: exercises
      .filter((e) => e.lab_id === lab.id)
      .map((e) => ({ key: e.key, check: e.check_kind, solution: e.solution })),
  }))
}

// ——— attempts ———

type Answer = { status: number; passed?: boolean; message: string; ms: number; retryAfter?: number }

/** One attempt through the API; a request that got no answer is status 0 with the error's message. */
async function attempt(base: string, token: string, labId: string, exercise: string, sql: string): Promise<Answer> {
  const started = performance.now()
  try {
    const response = await fetch(base + ATTEMPTS_PATH(labId), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ exercise, sql }),
    })
    const text = await response.text()
    let body: { data?: { passed?: boolean; message?: string }; message?: string } = {}
    try {
      body = JSON.parse(text) as typeof body
    } catch {
      // not JSON: its first words are the message
    }
    const retryAfter = Number(response.headers.get('Retry-After'))
    return {
      status: response.status,
      passed: body.data?.passed,
      message: body.data?.message ?? body.message ?? text.slice(0, 120),
      ms: performance.now() - started,
      ...(Number.isFinite(retryAfter) && retryAfter > 0 && { retryAfter }),
    }
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause
    return { status: 0, message: cause?.message ?? (error as Error).message, ms: performance.now() - started }
  }
}

/** How an answer is counted: its status, and for a graded attempt whether it passed. */
const kind = (a: Answer) =>
  a.status === 0 ? 'no answer' : a.status === 200 ? `200 ${a.passed ? 'passed' : 'failed'}` : String(a.status)

const tally = (answers: Answer[]) => {
  const counts = new Map<string, number>()
  for (const a of answers) counts.set(kind(a), (counts.get(kind(a)) ?? 0) + 1)
  return [...counts].sort(([a], [b]) => a.localeCompare(b))
}

const tallyText = (answers: Answer[]) =>
  tally(answers)
    .map(([k, n]) => `${k} × ${n}`)
    .join(', ') || 'not sent'

type AttackAnswer = Answer & { attack: string; exercise: 'query' | 'DML' }
type Attacks = { answers: AttackAnswer[]; rounds: number }

/**
 * One learner sends the corpus again and again, one attack at a time, each to a query exercise and then to
 * the lab's exercise that takes UPDATE (graded on a copy of the lab's database): both ways of running an
 * attempt are attacked. Told to stop, it still ends the round it is in, so that every attack was answered.
 */
async function attackLoop(base: string, token: string, lab: Lab, signal: AbortSignal): Promise<Attacks> {
  const query = lab.exercises.find((e) => e.check === 'result')
  const dml = lab.exercises.find((e) => e.check === 'state')
  if (!query || !dml) throw new Error(`bench: ${lab.title} has no query exercise or no state exercise`)
  const answers: AttackAnswer[] = []
  let rounds = 0
  for (; !signal.aborted; rounds++)
    for (const [attack, sql] of ATTACKS)
      for (const exercise of [query, dml]) {
        const answer = await attempt(base, token, lab.id, exercise.key, sql)
        answers.push({ ...answer, attack, exercise: exercise === dml ? 'DML' : 'query' })
      }
  return { answers, rounds }
}

type Submission = Answer & { answer: 'solution' | 'wrong' }
type Submissions = { answers: Submission[] }

/**
 * A wrong answer that costs what the solution costs: a query's rows but the first, or a state exercise's
 * statements run twice (the change made twice, or a table created twice: a database error).
 */
function wrongAnswer(exercise: Lab['exercises'][number]) {
  const solution = exercise.solution.trim().replace(/;\s*$/, '')
  return exercise.check === 'result'
    ? `SELECT * FROM (\n${solution}\n) AS answer OFFSET 1`
    : `${solution};\n${solution};`
}

/**
 * SUBMITTERS learners at once, each in a loop over the exercises of a demo lab (the learners share them
 * out), answering the solution, then a wrong answer, and so on; a 429 is waited out as its Retry-After says.
 */
async function submissionLoops(base: string, tokens: string[], labs: Lab[], signal: AbortSignal): Promise<Submissions> {
  const answers: Submission[] = []
  const learner = async (token: string, n: number) => {
    const lab = labs[n % labs.length]
    for (let i = 0; !signal.aborted; i++) {
      const exercise = lab.exercises[(n + Math.floor(i / 2)) % lab.exercises.length]
      const which = i % 2 ? 'wrong' : 'solution'
      const sql = which === 'wrong' ? wrongAnswer(exercise) : exercise.solution
      const answer = await attempt(base, token, lab.id, exercise.key, sql)
      answers.push({ ...answer, answer: which })
      if (answer.status === 429) {
        // the attempt was not made: the same answer again once the wait is over
        i--
        await pause((answer.retryAfter ?? 1) * 1000, undefined, { signal }).catch(() => undefined)
      }
    }
  }
  await Promise.all(tokens.map(learner))
  return { answers }
}

// ——— measuring ———

type LoadTarget = Target & {
  name: string
  connections: number
  /** requests a second, over all the connections */
  rate: number
}

type Figures = { rps: number; p50: number; p99: number; notOk: Record<string, number> }
type Phase<B> = { name: string; figures: Figures[]; background: B }

/**
 * The targets' load at once, with `background` running from the warm-up until the measured load is over
 * (then told to stop, and waited for: the attack loop ends its round, the submitters their attempt in flight).
 */
async function phase<B>(
  base: string,
  targets: LoadTarget[],
  name: string,
  background: (signal: AbortSignal) => Promise<B>,
): Promise<Phase<B>> {
  progress(`${name} …`)
  const stopping = new AbortController()
  const running = background(stopping.signal)
  // a failure of the attempts is thrown once the load is over, not left unhandled meanwhile
  running.catch(() => undefined)
  let figures: Figures[]
  try {
    if (WARMUP_SECONDS > 0) await Promise.all(targets.map((t) => load(base, t, WARMUP_SECONDS)))
    figures = await Promise.all(targets.map((t) => load(base, t, SECONDS)))
  } finally {
    stopping.abort()
  }
  return { name, figures, background: await running }
}

async function load(base: string, target: LoadTarget, seconds: number): Promise<Figures> {
  const { times, result } = await cannon(base, target, {
    connections: target.connections,
    overallRate: target.rate,
    duration: seconds,
  })
  const statuses = notOk(result)
  if (result.timeouts) statuses.timeouts = result.timeouts
  return {
    rps: times.length / result.duration,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    notOk: statuses,
  }
}

/** A page that does not answer 200 before the load is said so; the load runs anyway and counts it. */
async function preflight(base: string, target: LoadTarget) {
  const response = await fetch(base + target.path, { headers: target.headers, redirect: 'manual' })
  if (response.status !== 200)
    console.log(`note: ${target.name} (${target.path}) answered ${response.status} before the load`)
  await response.arrayBuffer()
}

const percentile = (sorted: number[], share: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] : 0

// ——— output ———

function printTable(targets: LoadTarget[], phases: Phase<unknown>[]) {
  const rows = targets.flatMap((target, t) =>
    phases.map((p) => {
      const f = p.figures[t]
      const quiet = phases[0].figures[t]
      const notOk = Object.entries(f.notOk)
        .map(([code, n]) => `${code} × ${n}`)
        .join(', ')
      return [
        `${target.name}, ${p.name}`,
        f.p50.toFixed(1),
        f.p99.toFixed(1),
        quiet.p99 > 0 ? `${(f.p99 / quiet.p99).toFixed(1)}×` : '',
        f.rps.toFixed(0),
        notOk || '0',
      ]
    }),
  )
  const header = ['row', 'p50 ms', 'p99 ms', 'p99 vs quiet', 'req/s', 'not 2xx']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 || i === 5 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  console.log(`\n${line(header)}`)
  for (const [i, r] of rows.entries()) {
    if (i && i % phases.length === 0) console.log('')
    console.log(line(r))
  }
}

function printAttacks({ answers, rounds }: Attacks) {
  const ms = answers.map((a) => a.ms).sort((a, b) => a - b)
  console.log(
    `\nattack corpus: ${answers.length} attacks by one learner in ${rounds} round(s) of ${ATTACKS.length * 2}, ` +
      `from the warm-up to the end of the last round: ${tallyText(answers)}; answered in p50 ` +
      `${percentile(ms, 0.5).toFixed(0)} ms, max ${(ms.at(-1) ?? 0).toFixed(0)} ms`,
  )
  const rows = ATTACKS.map(([attack]) => {
    const mine = answers.filter((a) => a.attack === attack)
    const on = (exercise: AttackAnswer['exercise']) => tallyText(mine.filter((a) => a.exercise === exercise))
    const slowest = Math.max(0, ...mine.map((a) => a.ms))
    return [
      attack,
      on('query'),
      on('DML'),
      slowest.toFixed(0),
      mine[0]?.message.replace(/\s+/g, ' ').slice(0, 70) ?? '',
    ]
  })
  const header = ['attack', 'on a query exercise', 'on the UPDATE exercise', 'max ms', 'first answer']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === 3 ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd()
  console.log(line(header))
  for (const r of rows) console.log(line(r))
  odd(
    'attacks',
    answers.filter((a) => a.status === 0 || a.status >= 500 || a.passed),
    (a) => `${a.attack} (${a.exercise} exercise)`,
  )
}

function printSubmissions({ answers }: Submissions) {
  const graded = answers.filter((a) => a.status === 200)
  const ms = graded.map((a) => a.ms).sort((a, b) => a - b)
  console.log(
    `\n${SUBMITTERS} learners: ${answers.length} submissions (warm-up included): ${tallyText(answers)}; ` +
      `graded ones answered in p50 ${percentile(ms, 0.5).toFixed(0)} ms, p99 ${percentile(ms, 0.99).toFixed(0)} ms`,
  )
  console.log(
    `  solutions: ${tallyText(answers.filter((a) => a.answer === 'solution'))}; ` +
      `wrong answers: ${tallyText(answers.filter((a) => a.answer === 'wrong'))}`,
  )
  odd(
    'submissions',
    answers.filter(
      (a) => (a.status !== 200 && a.status !== 429) || (a.status === 200 && a.passed !== (a.answer === 'solution')),
    ),
    (a) => `a ${a.answer}`,
  )
}

/** Answers that should not happen, each kind once with how often and its message. */
function odd<A extends Answer>(what: string, answers: A[], label: (a: A) => string) {
  if (!answers.length) return
  const seen = new Map<string, { n: number; a: A }>()
  for (const a of answers) {
    const key = `${label(a)}: ${kind(a)}`
    const entry = seen.get(key)
    if (entry) entry.n++
    else seen.set(key, { n: 1, a })
  }
  console.log(`unexpected answers to the ${what}:`)
  for (const [key, { n, a }] of seen) console.log(`  ${key} × ${n}: ${a.message.replace(/\s+/g, ' ').slice(0, 160)}`)
}

await main()

import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import QueryStream from 'pg-query-stream'
import { getEnv, getSecrets } from '#app/utils/env.server.ts'
import { ListenedClient } from '#db/client.ts'
import { conflict, invalid, isServiceError, ServiceError } from '../errors.ts'
import { isUuid } from '../ids.ts'
import {
  connectAdmin,
  createPairDatabase,
  dropPairDatabase,
  labsBusy,
  learnerAddress,
  TEXT_VALUES,
  TOO_MANY_CONNECTIONS,
} from './sandbox.server.ts'
import type { IsolationLevel, SessionName, StatementKind, Step } from './schema.ts'
import { giveGradingSlot, takeGradingSlot } from './slots.server.ts'
import { checkSteps, parseSessionScript, type LogEntry, type StepsResult } from './steps.ts'
import { vetSql } from './vet.ts'

// Two sessions side by side: a pair of connections as the sandbox's learner role to a database of the pair's own,
// made from the lab's pair template, so the learner's locks and uncommitted changes meet nobody else's. Each
// session runs one statement at a time; a statement is answered when it finishes or after ANSWER_WAIT_MS, whichever
// comes first, and one still running then goes on in the background (waiting on the other session's lock, say),
// its outcome landing in the log when it ends. The log is what grading reads (steps.ts).
//
// A pair lives in the process that opened it; a request that reaches another process of the same server is relayed
// to it (see "Relaying" below). Each learner has at most one: opening another closes the old. A pair
// closes when its learner closes it, after LABS_SESSIONS_IDLE_SECONDS without a request, at
// LABS_SESSIONS_LIMIT_SECONDS after it opened, or when the server stops: its database is dropped WITH (FORCE),
// which ends both backends and so releases every lock they held.

/**
 * How long a Run waits for its statement before answering "waiting". Longer than PostgreSQL's deadlock_timeout
 * (1 s), so a statement that waits has had its own deadlock check before the learner can send the next one: the
 * session whose statement closes a cycle is then always the one that fails, as the learner expects.
 */
const ANSWER_WAIT_MS = 1500

/** How often a statement being answered is looked at for a lock wait. */
const LOOK_EVERY_MS = 250

/** Statements a pair keeps, both sessions together; past this the learner starts over. */
const LOG_MAX = 200

/** Rows of a result kept to show; grading compares a digest of every row read. */
const SHOWN_ROWS = 50

/** Grace after a cancel before the watchdog ends the backend. */
const TERMINATE_AFTER_MS = 2000

const DEADLOCK = '40P01'

const ISOLATIONS: readonly IsolationLevel[] = ['read committed', 'repeatable read', 'serializable']

/** One finished statement as the learner sees it, beside the log entry grading reads. */
export type HistoryItem = {
  session: SessionName
  sql: string
  waited: boolean
  transaction: number | null
  isolation: IsolationLevel
  ms: number
} & (
  | { ok: true; command: string; rowCount: number | null; columns: string[]; rows: (string | null)[][]; total: number }
  | { ok: false; code?: string; message: string }
)

/** A session as the page shows it: its transaction, the statement it runs (if any) and its history. */
export type SessionView = {
  name: SessionName
  /** in a transaction block, and whether it failed (only ROLLBACK helps then) */
  transaction: 'none' | 'open' | 'failed'
  isolation: IsolationLevel
  running: { sql: string; waiting: boolean } | null
  history: HistoryItem[]
}

export type PairView = {
  id: string
  labId: string
  exercise: string
  openedAt: string
  /** when the pair closes whatever happens, and when it closes if nothing more is asked of it */
  closesAt: string
  idleClosesAt: string
  sessions: [SessionView, SessionView]
}

type Running = {
  sql: string
  waiting: boolean
  waited: boolean
  done: Promise<void>
  slot: string | undefined
  watchdog: NodeJS.Timeout
  cancelled: boolean
}

type Session = {
  name: SessionName
  client: pg.Client
  pid: number
  /** transaction blocks begun so far */
  blocks: number
  isolation: IsolationLevel
  running?: Running
}

type Pair = {
  /** told to the page, so that a page left late closes its own pair and not a newer one */
  id: string
  owner: string
  labId: string
  exercise: string
  allow: readonly StatementKind[]
  database: string
  openedAt: number
  touchedAt: number
  sessions: Record<SessionName, Session>
  log: { entry: LogEntry; item: HistoryItem }[]
  closing?: Promise<void>
  /** when the pair closes: at its time limit or once idle, whichever comes first */
  timer?: NodeJS.Timeout
}

const pairs = new Map<string, Pair>()

/**
 * Closes the pair at its time limit or once it has been idle long enough. The timer is set for the earlier of the
 * two; a request in between moves the idle end later, and the timer, finding the pair not yet due, is set again.
 */
function closeWhenDue(pair: Pair) {
  const { limitMs, idleMs } = limits()
  const due = Math.min(pair.openedAt + limitMs, pair.touchedAt + idleMs)
  pair.timer = setTimeout(
    () =>
      Date.now() >= Math.min(pair.openedAt + limitMs, pair.touchedAt + idleMs)
        ? void closeThis(pair)
        : closeWhenDue(pair),
    Math.max(0, due - Date.now()),
  )
  // never what keeps a stopping process alive
  pair.timer.unref()
}
/** Pairs being opened, counted with the open ones against LABS_SESSIONS_MAX. */
let opening = 0

const limits = () => {
  const env = getEnv()
  return {
    idleMs: env.LABS_SESSIONS_IDLE_SECONDS * 1000,
    limitMs: env.LABS_SESSIONS_LIMIT_SECONDS * 1000,
    max: env.LABS_SESSIONS_MAX,
  }
}

/**
 * Opens a pair for `owner` on a lab's pair template, closing the owner's pair before. `allow`: the statement kinds
 * of the exercise, beside transaction control.
 */
async function openLocal(
  owner: string,
  lab: { id: string; database: string },
  exercise: { key: string; allow: readonly StatementKind[] },
): Promise<PairView> {
  await closePair(owner)
  const { limitMs, max } = limits()
  const relayed = isUuid(owner) ? await relayPort() : undefined
  if (pairs.size + opening >= max)
    throw labsBusy('Many learners have two sessions open just now; try again in a moment.')
  opening++
  let database: string | undefined
  const clients: pg.Client[] = []
  try {
    database = await createPairDatabase(lab.database)
    const address = await learnerAddress(database)
    const sessions = {} as Record<SessionName, Session>
    for (const name of ['A', 'B'] as const) {
      const client = new ListenedClient({
        connectionString: address,
        // how another process of this server finds the pair's own (pairAt)
        application_name: relayed ? `${PAIR_APP} ${owner} ${relayed} ${name}` : `${PAIR_APP}-${name}`,
        // the role's own limits suit one short attempt; a pair's lock waits and open transactions may last as
        // long as the pair does, which closes them then (the client's settings come before the role's)
        lock_timeout: limitMs,
        statement_timeout: limitMs,
        idle_in_transaction_session_timeout: limitMs,
      })
      clients.push(client)
      await client.connect().catch((error: unknown) => {
        if (error instanceof pg.DatabaseError && error.code === TOO_MANY_CONNECTIONS)
          throw labsBusy('Many attempts are running right now; try again in a moment.')
        throw error
      })
      const pid = (client as unknown as { processID: number }).processID
      sessions[name] = { name, client, pid, blocks: 0, isolation: 'read committed' }
    }
    const now = Date.now()
    const pair: Pair = {
      id: randomBytes(6).toString('hex'),
      owner,
      labId: lab.id,
      exercise: exercise.key,
      allow: exercise.allow,
      database,
      openedAt: now,
      touchedAt: now,
      sessions,
      log: [],
    }
    closeWhenDue(pair)
    // a backend ended from outside (the watchdog's last resort, a restart of the labs server) ends the pair
    for (const client of clients) client.on('end', () => void closeThis(pair))
    // two opens at once (a double click): the later one stays, the earlier one closes
    const earlier = pairs.get(owner)
    if (earlier) void closeThis(earlier)
    pairs.set(owner, pair)
    return view(pair)
  } catch (error) {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)))
    if (database) await dropPairDatabase(database)
    throw error
  } finally {
    opening--
  }
}

/** The owner's pair, or a 409 naming why there is none for this exercise. */
function pairFor(owner: string, labId: string, exercise: string): Pair {
  const pair = pairs.get(owner)
  if (!pair || pair.closing || pair.labId !== labId || pair.exercise !== exercise)
    throw conflict('Your two sessions for this exercise are closed; start them again.')
  return pair
}

/**
 * Runs one statement in one session of the owner's pair and answers once it finished, or after ANSWER_WAIT_MS
 * with it still running (waiting on a lock, or slow). A session runs one statement at a time.
 */
async function runLocal(
  owner: string,
  where: { labId: string; exercise: string },
  name: SessionName,
  sql: string,
): Promise<PairView> {
  const pair = pairFor(owner, where.labId, where.exercise)
  pair.touchedAt = Date.now()
  const session = pair.sessions[name]
  if (session.running)
    throw conflict(
      `Session ${name} is still running its statement; wait until it finishes (or until session ${other(name)} commits or rolls back).`,
    )
  if (pair.log.length >= LOG_MAX)
    throw conflict(`Your sessions have run ${LOG_MAX} statements, as many as a pair keeps; start over.`)
  const vetting = await vetSql(sql, {
    allow: pair.allow,
    single: true,
    maxBytes: getEnv().LABS_MAX_SQL_BYTES,
    transactions: true,
  })
  if (!vetting.ok)
    throw invalid(
      vetting.message.includes('single statement')
        ? `${vetting.message} Run one statement at a time, so each session's history shows what happened when.`
        : vetting.message,
      { sql: vetting.message },
    )
  // the other session may be waiting on a lock this statement releases: note that before it does
  await refreshWaiting(pair)
  const slot = `pair:${owner}:${name}`
  takeGradingSlot(slot, {
    mine: `Session ${name} is still running its statement.`,
    full: 'Many attempts are being graded right now; try again in a moment.',
  })
  const running = start(pair, session, vetting.statements[0].sql, slot)
  // looked at a few times while the answer waits: a wait that ends within it (a deadlock found) still counts
  const stillRunning = () => session.running === running
  for (let waited = 0; waited < ANSWER_WAIT_MS && stillRunning(); waited += LOOK_EVERY_MS) {
    await Promise.race([running.done, sleep(LOOK_EVERY_MS)])
    if (stillRunning()) await refreshWaiting(pair)
  }
  await refreshWaiting(pair)
  if (stillRunning()) freeSlotIfWaiting(running)
  // this statement may have released what the other session waited on (a COMMIT, say): its answer comes too
  const released = pair.sessions[other(name)].running
  if (released?.waited && !released.waiting) await Promise.race([released.done, sleep(ANSWER_WAIT_MS)])
  return view(pair)
}

/** A statement waiting on a lock costs the server nothing: its grading slot goes to someone else. */
function freeSlotIfWaiting(running: Running) {
  if (!running.waiting || !running.slot) return
  giveGradingSlot(running.slot)
  running.slot = undefined
}

const other = (name: SessionName): SessionName => (name === 'A' ? 'B' : 'A')

/** Sends a statement and records its outcome in the log when it ends, however it ends. */
function start(pair: Pair, session: Session, sql: string, slot: string): Running {
  const { client } = session
  const before = client.getTransactionStatus()
  const began = performance.now()
  const running: Running = {
    sql,
    waiting: false,
    waited: false,
    slot,
    cancelled: false,
    done: Promise.resolve(),
    watchdog: watchAfterLimit(pair, session, () => running),
  }
  session.running = running
  running.done = readStatement(client, sql)
    .then(
      (result) => ({ ok: true as const, ...result }),
      (error: unknown) => ({ ok: false as const, error }),
    )
    .then(async (result) => {
      // a statement that waited was let go by the other session's statement running now (its COMMIT, say); both
      // answers arrive together, on two connections in either order, and the log keeps the cause first
      const releaser = pair.sessions[other(session.name)].running
      if (running.waited && releaser && !releaser.waited) await releaser.done
      const after = client.getTransactionStatus()
      let isolation = session.isolation
      if (after === 'T' && !pair.closing) isolation = await currentIsolation(client).catch(() => isolation)
      if (before === 'I' && after !== 'I') session.blocks++
      const transaction = before !== 'I' || after !== 'I' ? session.blocks : null
      const level = transaction === null ? 'read committed' : isolation
      session.isolation = after === 'I' ? 'read committed' : isolation
      const ms = Math.round(performance.now() - began)
      // a deadlock is found only among statements waiting on locks
      const deadlocked = !result.ok && result.error instanceof pg.DatabaseError && result.error.code === DEADLOCK
      const waited = running.waited || deadlocked
      const base = { session: session.name, sql, waited, transaction, isolation: level, ms }
      if (result.ok) {
        const { command, rowCount, columns, rows, total } = result
        pair.log.push({
          entry: { ...base, outcome: { ok: true, command, rows: [[digest(columns, rows, total)]] } },
          item: { ...base, ok: true, command, rowCount, columns, rows: rows.slice(0, SHOWN_ROWS), total },
        })
      } else {
        const failure = failureOf(result.error, running.cancelled)
        pair.log.push({
          entry: {
            ...base,
            outcome: failure.code ? { ok: false, code: failure.code, message: failure.message } : failure.outcome,
          },
          item: { ...base, ok: false, ...(failure.code ? { code: failure.code } : {}), message: failure.message },
        })
      }
    })
    .finally(() => {
      clearTimeout(running.watchdog)
      if (running.slot) giveGradingSlot(running.slot)
      running.slot = undefined
      if (session.running === running) session.running = undefined
    })
  return running
}

type Read = { command: string; rowCount: number | null; columns: string[]; rows: (string | null)[][]; total: number }

/**
 * Runs one statement through a portal read in batches, so a large result stops at LABS_MAX_ROWS rows or
 * LABS_MAX_RESULT_BYTES bytes rather than filling this process's memory.
 */
async function readStatement(client: pg.Client, sql: string): Promise<Read> {
  // a portal's read is not told when its connection ends (the pair closing): the statement ends with it
  let gone: () => void = () => undefined
  const ended = new Promise<never>((_, reject) => {
    gone = () => reject(new Error('The connection ended.'))
    client.once('end', gone)
  })
  try {
    return await Promise.race([readRows(client, sql), ended])
  } finally {
    client.off('end', gone)
  }
}

async function readRows(client: pg.Client, sql: string): Promise<Read> {
  const { LABS_MAX_ROWS, LABS_MAX_RESULT_BYTES } = getEnv()
  const stream = client.query(new QueryStream(sql, [], { rowMode: 'array', types: TEXT_VALUES, batchSize: 100 }))
  const rows: (string | null)[][] = []
  let bytes = 0
  for await (const row of stream as AsyncIterable<(string | null)[]>) {
    rows.push(row)
    for (const cell of row) bytes += cell === null ? 1 : Buffer.byteLength(cell)
    if (rows.length >= LABS_MAX_ROWS || bytes > LABS_MAX_RESULT_BYTES) break
  }
  const result = stream._result as { command: string | null; rowCount: number | null; fields: { name: string }[] }
  return {
    command: result.command ?? 'SELECT',
    rowCount: result.rowCount,
    columns: result.fields.map((f) => f.name),
    rows,
    total: rows.length,
  }
}

/** Rows compared by grading as one value: equal digests, equal rows (every row read, not only those shown). */
function digest(columns: string[], rows: (string | null)[][], total: number): string {
  return createHash('sha256')
    .update(JSON.stringify([columns, rows, total]))
    .digest('hex')
}

function failureOf(
  error: unknown,
  cancelled: boolean,
): { code?: string; message: string; outcome: { ok: false; cancelled: true } } {
  const outcome = { ok: false as const, cancelled: true as const }
  if (error instanceof pg.DatabaseError) {
    if (cancelled && error.code === '57014')
      return {
        message: `Stopped after ${getEnv().LABS_TIME_LIMIT_MS / 1000} s: a statement that is not waiting on a lock may take no longer.`,
        outcome,
      }
    return { code: error.code, message: error.message, outcome }
  }
  return { message: 'The session was closed before the statement finished.', outcome }
}

/** The isolation level of the open transaction; SHOW takes no snapshot, so it leaves the transaction as it was. */
async function currentIsolation(client: pg.Client): Promise<IsolationLevel> {
  const { rows } = await client.query<{ transaction_isolation: string }>('SHOW transaction_isolation')
  const level = rows[0]?.transaction_isolation as IsolationLevel
  return ISOLATIONS.includes(level) ? level : 'read committed'
}

/** Looks at a running statement once LABS_TIME_LIMIT_MS has passed (`running`: the statement, once it is made). */
function watchAfterLimit(pair: Pair, session: Session, running: () => Running) {
  return setTimeout(() => void watch(pair, session, running()), getEnv().LABS_TIME_LIMIT_MS)
}

/**
 * The watchdog of a running statement, each LABS_TIME_LIMIT_MS: one waiting on the other session's lock may go
 * on (until the pair closes), looked at again after as long; one that is working is cancelled from outside, and
 * its backend ended if the cancel did not take, as the sandbox does.
 */
async function watch(pair: Pair, session: Session, running: Running) {
  if (session.running !== running || pair.closing) return
  await refreshWaiting(pair)
  if (session.running !== running) return
  if (running.waiting) {
    running.watchdog = watchAfterLimit(pair, session, () => running)
    return
  }
  running.cancelled = true
  await signal('pg_cancel_backend', session.pid)
  setTimeout(() => {
    if (session.running === running && !pair.closing) void signal('pg_terminate_backend', session.pid)
  }, TERMINATE_AFTER_MS).unref()
}

/** One connection of the administering role, shared by every pair of this process, for looking at backends. */
let monitor: Promise<pg.Client> | undefined

/** The monitor's calls, one after another: a pg client runs one query at a time. */
let monitorQueue: Promise<unknown> = Promise.resolve()

function asMonitor<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const next = monitorQueue.then(async () => {
    monitor ??= connectAdmin().then((client) => {
      client.on('end', () => (monitor = undefined))
      return client
    })
    try {
      return await work(await monitor)
    } catch (error) {
      // a statement's error leaves the connection usable; anything else, a new one next time
      if (!(error instanceof pg.DatabaseError)) {
        void monitor?.then((client) => client.end()).catch(() => undefined)
        monitor = undefined
      }
      throw error
    }
  })
  monitorQueue = next.catch(() => undefined)
  return next
}

/**
 * Ends the monitor once this process holds no pair, in turn after the calls before it: an open connection would keep
 * a command that built a two-session lab (an import, the demo seed) from exiting. The next call opens a new one.
 */
function endIdleMonitor() {
  monitorQueue = monitorQueue.then(async () => {
    if (pairs.size > 0 || !monitor) return
    const watching = monitor
    monitor = undefined
    await watching.then((client) => client.end()).catch(() => undefined)
  })
}

async function signal(name: 'pg_cancel_backend' | 'pg_terminate_backend', pid: number) {
  await asMonitor((client) => client.query(`SELECT ${name}($1)`, [pid])).catch(() => undefined)
}

/** Marks each running statement of the pair waiting or not: whether the other session's backend blocks it. */
async function refreshWaiting(pair: Pair) {
  const running = Object.values(pair.sessions).filter((s) => s.running)
  if (running.length === 0 || pair.closing) return
  const { rows } = await asMonitor((client) =>
    client.query<{ pid: number; blockers: number[] }>(
      'SELECT pid, pg_blocking_pids(pid) AS blockers FROM unnest($1::int[]) AS pid',
      [running.map((s) => s.pid)],
    ),
  ).catch(() => ({ rows: [] as { pid: number; blockers: number[] }[] }))
  for (const session of running) {
    const statement = session.running
    if (!statement) continue
    const blockers = rows.find((r) => r.pid === session.pid)?.blockers ?? []
    statement.waiting = blockers.includes(pair.sessions[other(session.name)].pid)
    if (statement.waiting) statement.waited = true
  }
}

/** The owner's pair as the page shows it, its waits looked at again; null when none is open for this exercise. */
async function stateLocal(owner: string, where: { labId: string; exercise: string }): Promise<PairView | null> {
  const pair = pairs.get(owner)
  if (!pair || pair.closing || pair.labId !== where.labId || pair.exercise !== where.exercise) return null
  pair.touchedAt = Date.now()
  await refreshWaiting(pair)
  return view(pair)
}

/** The log of the owner's pair for grading, with every statement finished so far. */
function logLocal(owner: string, where: { labId: string; exercise: string }): LogEntry[] {
  const pair = pairFor(owner, where.labId, where.exercise)
  pair.touchedAt = Date.now()
  return pair.log.map((l) => l.entry)
}

/** The log in words, as an attempt keeps it for admins to read: one line per statement with how it ended. */
function logTextLocal(owner: string, where: { labId: string; exercise: string }): string {
  const pair = pairFor(owner, where.labId, where.exercise)
  return pair.log
    .map(({ item }) => {
      const how = item.ok
        ? `${item.command}${item.rowCount === null ? '' : ` ${item.rowCount}`}`
        : `${item.code ?? 'stopped'}: ${item.message}`
      const note = [item.waited ? 'waited' : '', how].filter(Boolean).join(', ')
      return `${item.session}: ${item.sql.replace(/\s+/g, ' ')};  -- ${note}`
    })
    .join('\n')
}

function view(pair: Pair): PairView {
  const { limitMs, idleMs } = limits()
  const session = (name: SessionName): SessionView => {
    const s = pair.sessions[name]
    const status = s.client.getTransactionStatus()
    return {
      name,
      transaction: status === 'T' ? 'open' : status === 'E' ? 'failed' : 'none',
      isolation: s.isolation,
      running: s.running ? { sql: s.running.sql, waiting: s.running.waiting } : null,
      history: pair.log.filter((l) => l.item.session === name).map((l) => l.item),
    }
  }
  return {
    id: pair.id,
    labId: pair.labId,
    exercise: pair.exercise,
    openedAt: new Date(pair.openedAt).toISOString(),
    closesAt: new Date(pair.openedAt + limitMs).toISOString(),
    idleClosesAt: new Date(pair.touchedAt + idleMs).toISOString(),
    sessions: [session('A'), session('B')],
  }
}

/** Closes the owner's pair, if any: its sessions end, their locks with them, and its database is dropped. */
async function closeLocal(owner: string, id?: string) {
  const pair = pairs.get(owner)
  if (pair && (id === undefined || pair.id === id)) await closeThis(pair)
}

function closeThis(pair: Pair): Promise<void> {
  pair.closing ??= (async () => {
    clearTimeout(pair.timer)
    if (pairs.get(pair.owner) === pair) pairs.delete(pair.owner)
    for (const session of Object.values(pair.sessions)) {
      if (session.running?.slot) giveGradingSlot(session.running.slot)
      if (session.running) session.running.slot = undefined
    }
    // dropping the database WITH (FORCE) ends both backends: a statement waiting or running stops, locks go
    await dropPairDatabase(pair.database).catch(() => undefined)
    await Promise.all(Object.values(pair.sessions).map((s) => s.client.end().catch(() => undefined)))
    await Promise.all(Object.values(pair.sessions).map((s) => s.running?.done))
    endIdleMonitor()
  })()
  return pair.closing
}

/** Closes every pair of this process (a stopping server, tests), and the connection that watched them. */
export async function closeAllPairs() {
  await Promise.all([...pairs.values()].map(closeThis))
  const listening = relayServer
  relay = undefined
  relayServer = undefined
  await new Promise<void>((resolve) => {
    if (!listening) return resolve()
    listening.close(() => resolve())
    // other processes' kept-alive relay connections would hold the close open
    listening.closeAllConnections()
  })
  const watching = monitor
  monitor = undefined
  await watching?.then((client) => client.end()).catch(() => undefined)
}

/** Waits for a session's statement to end, as long as the watchdog may let it run: whether it ended. */
async function ended(session: Session): Promise<boolean> {
  const running = session.running
  if (!running) return true
  const limit = getEnv().LABS_TIME_LIMIT_MS + TERMINATE_AFTER_MS
  return Promise.race([running.done.then(() => true), sleep(limit).then(() => false)])
}

/**
 * Runs a two-session solution script through a pair of its own, as a learner would run it: each statement once the
 * one before it was answered (finished, or still waiting), a session's next statement once its last one ended.
 * Answers the steps' verdict on the log, and the log in words.
 */
export async function runSessionScript(
  lab: { id: string; database: string },
  exercise: { key: string; allow: readonly StatementKind[]; steps: readonly Step[]; solution: string },
): Promise<StepsResult & { log: string }> {
  const script = parseSessionScript(exercise.solution)
  const wrong = (message: string) => new ServiceError(400, `Exercise ${exercise.key}: the solution ${message}`)
  if (!script.ok) throw wrong(`is not a two-session script: ${script.message}.`)
  const owner = `solution:${lab.database}:${exercise.key}`
  await openLocal(owner, lab, exercise)
  const where = { labId: lab.id, exercise: exercise.key }
  try {
    for (const statement of script.statements) {
      const pair = pairFor(owner, where.labId, where.exercise)
      if (!(await ended(pair.sessions[statement.session])))
        throw wrong(
          `cannot go on at line ${statement.line}: session ${statement.session} is still running its statement before.`,
        )
      await runLocal(owner, where, statement.session, statement.sql).catch((error: unknown) => {
        throw wrong(`line ${statement.line} is refused: ${(error as Error).message}`)
      })
    }
    const pair = pairFor(owner, where.labId, where.exercise)
    await Promise.all(Object.values(pair.sessions).map(ended))
    return { ...checkSteps(exercise.steps, logLocal(owner, where)), log: logTextLocal(owner, where) }
  } finally {
    await closeLocal(owner)
  }
}

// --- Relaying: a pair reached from another process of the server ---
//
// With several web processes (WEB_CONCURRENCY), a learner's next request may reach a process other than the one
// holding their pair, whose connections only that process can drive. Each process that holds a learner's pair
// listens on a port of its own on 127.0.0.1 and writes it into its pair connections' application_name; another
// process finds it there (pg_stat_activity, read by the administering role) and sends the call on, signed with the
// portal's session secret, which every process of one portal shares. Across machines this does not reach: there a
// load balancer's sticky sessions keep a learner on one process.

const PAIR_APP = 'portal-pair'

/** How long a relayed call may take: a Run answers within a few seconds. */
const RELAY_TIMEOUT_MS = 15_000

let relay: Promise<number> | undefined
let relayServer: http.Server | undefined

function relayPort(): Promise<number> {
  relay ??= new Promise<number>((resolve, reject) => {
    const server = http.createServer((request, response) => void answerRelay(request, response))
    server.once('error', reject)
    // exclusive: in a node:cluster worker, a port 0 would otherwise be one port shared by every worker, each
    // connection handed to any of them
    server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
      // never what keeps a stopping process alive
      server.unref()
      resolve((server.address() as AddressInfo).port)
    })
    relayServer = server
  }).catch((error: unknown) => {
    relay = undefined
    throw error
  })
  return relay
}

const signed = (body: string) => createHmac('sha256', getSecrets().sessionSecret).update(body).digest('hex')

type Where = { labId: string; exercise: string }

/** What a process may be asked for another's learner: the calls a page makes, run on the pair held here. */
const RELAYED = {
  run: (owner: string, where: Where, name: SessionName, sql: string) => runLocal(owner, where, name, sql),
  state: (owner: string, where: Where) => stateLocal(owner, where),
  log: (owner: string, where: Where) => logLocal(owner, where),
  logText: (owner: string, where: Where) => logTextLocal(owner, where),
  close: (owner: string, id?: string) => closeLocal(owner, id),
}
type RelayOp = keyof typeof RELAYED
type RelayReply =
  | { ok: true; value: unknown }
  | { ok: false; status: ServiceError['status']; message: string; errors?: Record<string, string> }

async function answerRelay(request: http.IncomingMessage, response: http.ServerResponse) {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const body = Buffer.concat(chunks).toString('utf8')
  const given = Buffer.from(String(request.headers['x-portal-pair'] ?? ''))
  const expected = Buffer.from(signed(body))
  let reply: RelayReply
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) reply = closedReply()
  else {
    const { op, owner, args } = JSON.parse(body) as { op: RelayOp; owner: string; args: unknown[] }
    try {
      const call = RELAYED[op] as (owner: string, ...args: unknown[]) => unknown
      reply = { ok: true, value: (await call(owner, ...args)) ?? null }
    } catch (error) {
      reply = isServiceError(error)
        ? { ok: false, status: error.status, message: error.message, ...(error.errors ? { errors: error.errors } : {}) }
        : closedReply()
    }
  }
  response.setHeader('Content-Type', 'application/json')
  response.end(JSON.stringify(reply))
}

const CLOSED = 'Your two sessions for this exercise are closed; start them again.'
const closedReply = (): RelayReply => ({ ok: false, status: 409, message: CLOSED })

/** The port of the process of this server that holds `owner`'s pair, when another one does. */
async function pairAt(owner: string): Promise<number | undefined> {
  if (pairs.has(owner) || !isUuid(owner)) return undefined
  const { rows } = await asMonitor((client) =>
    client.query<{ application_name: string }>(
      'SELECT application_name FROM pg_stat_activity WHERE application_name LIKE $1',
      [`${PAIR_APP} ${owner} %`],
    ),
  ).catch(() => ({ rows: [] as { application_name: string }[] }))
  const own = relayServer?.listening ? await relay : undefined
  for (const row of rows) {
    const port = Number(row.application_name.split(' ')[2])
    if (Number.isInteger(port) && port > 0 && port !== own) return port
  }
  return undefined
}

async function relayTo<T>(port: number, op: RelayOp, owner: string, args: unknown[]): Promise<T> {
  const body = JSON.stringify({ op, owner, args })
  const reply = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Portal-Pair': signed(body) },
    body,
    signal: AbortSignal.timeout(RELAY_TIMEOUT_MS),
  })
    .then((r) => r.json() as Promise<RelayReply>)
    .catch((): RelayReply => closedReply())
  if (!reply.ok) throw new ServiceError(reply.status, reply.message, reply.errors)
  return reply.value as T
}

/**
 * Opens a pair for `owner` on a lab's pair template, closing the owner's pair before (wherever it is). `allow`: the
 * statement kinds of the exercise, beside transaction control.
 */
export async function openPair(
  owner: string,
  lab: { id: string; database: string },
  exercise: { key: string; allow: readonly StatementKind[] },
): Promise<PairView> {
  return openLocal(owner, lab, exercise)
}

/**
 * Runs one statement in one session of the owner's pair and answers once it finished, or after ANSWER_WAIT_MS
 * with it still running (waiting on a lock, or slow). A session runs one statement at a time.
 */
export async function runInPair(owner: string, where: Where, name: SessionName, sql: string): Promise<PairView> {
  const port = await pairAt(owner)
  return port ? relayTo(port, 'run', owner, [where, name, sql]) : runLocal(owner, where, name, sql)
}

/** The owner's pair as the page shows it, its waits looked at again; null when none is open for this exercise. */
export async function pairState(owner: string, where: Where): Promise<PairView | null> {
  const port = await pairAt(owner)
  return port ? relayTo(port, 'state', owner, [where]) : stateLocal(owner, where)
}

/** The log of the owner's pair for grading, with every statement finished so far. */
export async function pairLog(owner: string, where: Where): Promise<LogEntry[]> {
  const port = await pairAt(owner)
  return port ? relayTo(port, 'log', owner, [where]) : logLocal(owner, where)
}

/** The log in words, as an attempt keeps it for admins to read: one line per statement with how it ended. */
export async function logText(owner: string, where: Where): Promise<string> {
  const port = await pairAt(owner)
  return port ? relayTo(port, 'logText', owner, [where]) : logTextLocal(owner, where)
}

/**
 * Closes the owner's pair (the one with this id, when given), wherever it is: its sessions end, their locks with
 * them, and its database is dropped.
 */
export async function closePair(owner: string, id?: string): Promise<void> {
  const port = await pairAt(owner)
  if (port) await relayTo(port, 'close', owner, id === undefined ? [] : [id])
  else await closeLocal(owner, id)
}

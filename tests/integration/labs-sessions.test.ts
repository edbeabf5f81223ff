import { randomUUID } from 'node:crypto'
import path from 'node:path'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { readLabFolder } from '#app/modules/labs/folder.server.ts'
import {
  buildLabDatabases,
  closeSandbox,
  dropLabDatabases,
  type LabDatabases,
} from '#app/modules/labs/sandbox.server.ts'
import type { Step } from '#app/modules/labs/schema.ts'
import { attemptExercise, checkLabDirectory, importLab, labFolder } from '#app/modules/labs/service.server.ts'
import {
  checkSessions,
  closeSessions,
  runSession,
  sessionsView,
  startSessions,
} from '#app/modules/labs/session-exercises.server.ts'
import {
  closeAllPairs,
  closePair,
  openPair,
  pairLog,
  pairState,
  runInPair,
  runSessionScript,
} from '#app/modules/labs/sessions.server.ts'
import { checkSteps } from '#app/modules/labs/steps.ts'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { databaseUrl } from '#db/client.ts'
import { assignCourse, labFolderOf, makeCourse, makeLearner } from '#tests/factories.ts'

// Two sessions side by side on the real sandbox: a pair of the learner role's connections to a database of the
// pair's own, B's statement waiting on A's lock (longer than the role's own lock_timeout) and finishing once A
// commits, a deadlock, reads under READ COMMITTED and REPEATABLE READ, each step of the vocabulary met and not
// met on a real log, the vetting of a session's SQL, a solution script that meets its steps or not, and the pair's
// cleanup (Close, idle, the time limit, a second pair) leaving no backend, no lock and no database behind.

const DATASET = `
CREATE TABLE accounts (id integer PRIMARY KEY, owner text NOT NULL, balance numeric(10, 2) NOT NULL);
INSERT INTO accounts VALUES (1, 'Ada', 100.00), (2, 'Grace', 50.00);
`

let lab: LabDatabases
const LAB_ID = '00000000-0000-4000-8000-000000000001'
const where = { labId: LAB_ID, exercise: 'x' }
let admin: pg.Client

const setEnv = (values: Record<string, string>) => {
  Object.assign(process.env, values)
  resetEnvCache()
}

beforeAll(async () => {
  setEnv({ LABS_TIME_LIMIT_MS: '1500', LABS_SESSIONS_IDLE_SECONDS: '180', LABS_SESSIONS_LIMIT_SECONDS: '900' })
  lab = await buildLabDatabases({ sql: DATASET, name: 'bank.sql', files: [] }, 0, { sessions: true })
  admin = new pg.Client({ connectionString: await databaseUrl() })
  await admin.connect()
}, 60_000)

afterEach(async () => {
  await closeAllPairs()
  setEnv({ LABS_SESSIONS_IDLE_SECONDS: '180', LABS_SESSIONS_LIMIT_SECONDS: '900' })
})

afterAll(async () => {
  await closeAllPairs()
  await admin?.end()
  await closeSandbox()
  if (lab) await dropLabDatabases([lab.database, ...lab.copies])
})

const open = (owner: string) =>
  openPair(owner, { id: LAB_ID, database: lab.database }, { key: 'x', allow: ['select', 'dml'] })
const run = (owner: string, session: 'A' | 'B', sql: string) => runInPair(owner, where, session, sql)

/** The databases of this lab's pairs open now, with their backends and the locks those hold. */
async function pairsOnServer() {
  const pattern = `${lab.database}_p%`
  const { rows: databases } = await admin.query<{ datname: string }>(
    'SELECT datname FROM pg_database WHERE datname LIKE $1',
    [pattern],
  )
  const { rows: backends } = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname LIKE $1',
    [pattern],
  )
  const { rows: locks } = await admin.query<{ pid: number }>(
    `SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE d.datname LIKE $1`,
    [pattern],
  )
  return { databases: databases.map((d) => d.datname), backends: backends.length, locks: locks.length }
}

/** Holds row 1 in A's open transaction and leaves B's UPDATE of it waiting. */
async function bWaitsOnA(owner: string) {
  await run(owner, 'A', 'BEGIN')
  await run(owner, 'A', 'UPDATE accounts SET balance = balance - 10 WHERE id = 1')
  return run(owner, 'B', 'UPDATE accounts SET balance = balance + 10 WHERE id = 1')
}

/** Waits until `check` holds, asking again every 100 ms (the pair's timers run meanwhile). */
async function until(check: () => Promise<boolean>) {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 100))
}

describe('two sessions side by side', () => {
  it('shows B waiting on A past the role’s lock_timeout, then finishing once A commits', async () => {
    await open('wait')
    const waiting = await bWaitsOnA('wait')
    expect(waiting.sessions[1].running).toEqual({
      sql: 'UPDATE accounts SET balance = balance + 10 WHERE id = 1',
      waiting: true,
    })
    expect(waiting.sessions[0]).toMatchObject({ transaction: 'open', running: null })
    // the learner role's lock_timeout is 1 s, and the attempt time limit 1.5 s: a pair's wait outlasts both
    await new Promise((resolve) => setTimeout(resolve, 3500))
    expect((await pairState('wait', where))?.sessions[1].running?.waiting).toBe(true)
    const after = await run('wait', 'A', 'COMMIT')
    expect(after.sessions[1]).toMatchObject({ running: null, transaction: 'none' })
    expect(after.sessions[1].history).toEqual([
      expect.objectContaining({ ok: true, command: 'UPDATE', rowCount: 1, waited: true, transaction: null }),
    ])
    const read = await run('wait', 'A', 'SELECT balance FROM accounts WHERE id = 1')
    expect(read.sessions[0].history.at(-1)).toMatchObject({ columns: ['balance'], rows: [['100.00']] })
    expect(checkSteps([{ committed: 'A' }, { waits: 'B' }], await pairLog('wait', where))).toEqual({ passed: true })
    // steps are matched in order: B's wait finished after A's commit, not before
    expect(checkSteps([{ waits: 'B' }, { committed: 'A' }], await pairLog('wait', where))).toMatchObject({
      passed: false,
      step: 1,
    })
  }, 30_000)

  it('refuses a second statement in a session while its first one waits', async () => {
    await open('busy')
    await bWaitsOnA('busy')
    await expect(run('busy', 'B', 'SELECT 1')).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/Session B is still running/),
    })
  }, 30_000)

  it('ends a deadlock with 40P01 in the session that closed the cycle, and the other goes on', async () => {
    await open('deadlock')
    await run('deadlock', 'A', 'BEGIN')
    await run('deadlock', 'A', 'UPDATE accounts SET balance = 1 WHERE id = 1')
    await run('deadlock', 'B', 'BEGIN')
    await run('deadlock', 'B', 'UPDATE accounts SET balance = 2 WHERE id = 2')
    const aWaits = await run('deadlock', 'A', 'UPDATE accounts SET balance = 1 WHERE id = 2')
    expect(aWaits.sessions[0].running?.waiting).toBe(true)
    const view = await run('deadlock', 'B', 'UPDATE accounts SET balance = 2 WHERE id = 1')
    expect(view.sessions[1]).toMatchObject({ transaction: 'failed', running: null })
    expect(view.sessions[1].history.at(-1)).toMatchObject({ ok: false, code: '40P01', waited: true })
    // B's failure released its lock, so A's UPDATE finished
    expect(view.sessions[0].history.at(-1)).toMatchObject({ ok: true, command: 'UPDATE', waited: true })
    await run('deadlock', 'B', 'ROLLBACK')
    await run('deadlock', 'A', 'COMMIT')
    const steps: Step[] = [{ error: { session: 'B', code: '40P01' } }, { 'rolled-back': 'B' }, { committed: 'A' }]
    expect(checkSteps(steps, await pairLog('deadlock', where))).toEqual({ passed: true })
    expect(checkSteps([{ error: { session: 'A', code: '40P01' } }], await pairLog('deadlock', where))).toMatchObject({
      passed: false,
      step: 0,
    })
    // COMMIT of a failed transaction answers ROLLBACK: not a commit
    expect(
      checkSteps([{ error: { session: 'B', code: '40P01' } }, { committed: 'B' }], await pairLog('deadlock', where)),
    ).toMatchObject({ passed: false, step: 1 })
  }, 30_000)

  it('shows a non-repeatable read under READ COMMITTED and none under REPEATABLE READ', async () => {
    const read = 'SELECT balance FROM accounts WHERE id = 2'
    await open('reads')
    await run('reads', 'A', 'BEGIN')
    await run('reads', 'A', read)
    await run('reads', 'B', 'UPDATE accounts SET balance = balance + 5 WHERE id = 2')
    await run('reads', 'A', read)
    await run('reads', 'A', 'COMMIT')
    await run('reads', 'A', 'BEGIN ISOLATION LEVEL REPEATABLE READ')
    const first = await run('reads', 'A', read)
    expect(first.sessions[0]).toMatchObject({ transaction: 'open', isolation: 'repeatable read' })
    await run('reads', 'B', 'UPDATE accounts SET balance = balance + 5 WHERE id = 2')
    const second = await run('reads', 'A', `${read};`)
    await run('reads', 'A', 'COMMIT')
    const history = second.sessions[0].history
    expect(history.map((h) => (h.ok ? h.rows : h.message))).toEqual([
      [],
      [['50.00']],
      [['55.00']],
      [],
      [],
      [['55.00']],
      [['55.00']],
    ])
    const log = await pairLog('reads', where)
    expect(
      checkSteps(
        [
          { 'changed-read': { session: 'A', isolation: 'read committed' } },
          { 'same-read': { session: 'A', isolation: 'repeatable read' } },
        ],
        log,
      ),
    ).toEqual({ passed: true })
    expect(checkSteps([{ 'same-read': { session: 'A', isolation: 'read committed' } }], log)).toMatchObject({
      passed: false,
    })
    expect(checkSteps([{ 'changed-read': { session: 'A', isolation: 'repeatable read' } }], log)).toMatchObject({
      passed: false,
    })
    expect(checkSteps([{ 'changed-read': { session: 'B', isolation: 'read committed' } }], log)).toMatchObject({
      passed: false,
    })
  }, 30_000)

  it('vets a session’s SQL: transaction control yes, SET of a setting, catalogs and advisory locks no', async () => {
    await open('vet')
    const view = await run('vet', 'A', 'BEGIN ISOLATION LEVEL SERIALIZABLE')
    expect(view.sessions[0].isolation).toBe('serializable')
    for (const sql of [
      'SET lock_timeout = 0',
      'SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE',
      'SELECT * FROM pg_catalog.pg_authid',
      'SELECT pid FROM pg_stat_activity',
      'LOCK TABLE pg_class',
      'SELECT pg_advisory_lock(1)',
      'PREPARE TRANSACTION $$x$$',
    ])
      await expect(run('vet', 'A', sql), sql).rejects.toMatchObject({ status: 400 })
    await expect(run('vet', 'B', 'SELECT 1; SELECT 2')).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/one statement at a time/),
    })
  }, 30_000)

  it('cancels a statement that works past the time limit, and keeps the pair', async () => {
    await open('slow')
    await run('slow', 'A', 'SELECT count(*) FROM generate_series(1, 100000) AS a, generate_series(1, 100000) AS b')
    await until(async () => (await pairState('slow', where))?.sessions[0].running === null)
    const after = await run('slow', 'A', 'SELECT 1 AS one')
    expect(after.sessions[0].history).toEqual([
      expect.objectContaining({ ok: false, message: expect.stringMatching(/Stopped after 1.5 s/) }),
      expect.objectContaining({ ok: true, rows: [['1']] }),
    ])
  }, 30_000)
})

describe('a pair held by another process of the server', () => {
  it('is reached from this one: its statements run there, its state is read there, and it closes', async () => {
    const owner = randomUUID()
    // a fresh copy of the module stands for another web process: its own pairs, its own relay
    vi.resetModules()
    const elsewhere = await import('#app/modules/labs/sessions.server.ts')
    try {
      await elsewhere.openPair(owner, { id: LAB_ID, database: lab.database }, { key: 'x', allow: ['select', 'dml'] })
      await run(owner, 'A', 'BEGIN')
      await run(owner, 'A', 'UPDATE accounts SET balance = 7 WHERE id = 2')
      const waiting = await run(owner, 'B', 'UPDATE accounts SET balance = 8 WHERE id = 2')
      expect(waiting.sessions[1].running).toMatchObject({ waiting: true })
      expect((await elsewhere.pairState(owner, where))?.sessions[1].running?.waiting).toBe(true)
      await run(owner, 'A', 'COMMIT')
      expect(checkSteps([{ committed: 'A' }, { waits: 'B' }], await pairLog(owner, where))).toEqual({ passed: true })
      // opening a pair here closes the one there: one pair per learner, whichever process holds it
      await open(owner)
      // (and the other process now sees the new pair, through this one)
      expect((await elsewhere.pairState(owner, where))?.sessions.map((s) => s.history.length)).toEqual([0, 0])
      expect((await pairsOnServer()).databases).toHaveLength(1)
      await closePair(owner)
      expect(await pairsOnServer()).toEqual({ databases: [], backends: 0, locks: 0 })
    } finally {
      await elsewhere.closeAllPairs()
    }
  }, 60_000)
})

describe('closing a pair', () => {
  it('on Close: no backend, no lock and no database of the pair is left', async () => {
    await open('close')
    await bWaitsOnA('close')
    const before = await pairsOnServer()
    expect(before).toMatchObject({ databases: [expect.any(String)], backends: 2 })
    expect(before.locks).toBeGreaterThan(0)
    await closePair('close')
    expect(await pairsOnServer()).toEqual({ databases: [], backends: 0, locks: 0 })
    expect(await pairState('close', where)).toBeNull()
    await expect(run('close', 'A', 'SELECT 1')).rejects.toMatchObject({ status: 409 })
  }, 30_000)

  it('after the idle limit', async () => {
    setEnv({ LABS_SESSIONS_IDLE_SECONDS: '1' })
    await open('idle')
    await bWaitsOnA('idle')
    await until(async () => (await pairsOnServer()).databases.length === 0)
    expect(await pairsOnServer()).toEqual({ databases: [], backends: 0, locks: 0 })
    await expect(run('idle', 'A', 'SELECT 1')).rejects.toMatchObject({ status: 409 })
  }, 30_000)

  it('at the time limit, however busy the learner keeps it', async () => {
    setEnv({ LABS_SESSIONS_LIMIT_SECONDS: '5' })
    await open('limit')
    await bWaitsOnA('limit')
    // asking for the pair keeps it from idling, not from its time limit
    await until(async () => (await pairState('limit', where)) === null)
    await until(async () => (await pairsOnServer()).databases.length === 0)
    expect(await pairsOnServer()).toEqual({ databases: [], backends: 0, locks: 0 })
  }, 30_000)

  it('holds one pair per learner when two opens come at once (a double click)', async () => {
    await Promise.all([open('twice'), open('twice')])
    await until(async () => (await pairsOnServer()).databases.length === 1)
    expect(await pairsOnServer()).toMatchObject({ databases: [expect.any(String)], backends: 2 })
    expect(await pairState('twice', where)).not.toBeNull()
  }, 30_000)

  it('holds one pair per learner: opening another closes the first', async () => {
    await open('one')
    await bWaitsOnA('one')
    const [first] = (await pairsOnServer()).databases
    await open('one')
    const now = await pairsOnServer()
    expect(now.databases).toHaveLength(1)
    expect(now.databases).not.toContain(first)
    expect(now.backends).toBe(2)
    const fresh = await pairState('one', where)
    expect(fresh?.sessions.map((s) => s.history.length)).toEqual([0, 0])
    // the first pair's uncommitted change went with it
    const read = await run('one', 'A', 'SELECT balance FROM accounts WHERE id = 1')
    expect(read.sessions[0].history[0]).toMatchObject({ rows: [['100.00']] })
  }, 30_000)
})

describe('a solution script', () => {
  const exercise = (solution: string, steps: Step[]) => ({
    key: 'x',
    allow: ['select', 'dml'] as const,
    steps,
    solution,
  })

  it('meets its steps through a pair, which is closed afterwards', async () => {
    const outcome = await runSessionScript(
      { id: LAB_ID, database: lab.database },
      exercise(
        `A: BEGIN;
A: UPDATE accounts SET balance = balance - 10
   WHERE id = 1;
B: UPDATE accounts SET balance = balance + 10 WHERE id = 1;
A: COMMIT;`,
        [{ committed: 'A' }, { waits: 'B' }],
      ),
    )
    expect(outcome).toMatchObject({ passed: true, log: expect.stringContaining('B: UPDATE accounts') })
    expect(await pairsOnServer()).toEqual({ databases: [], backends: 0, locks: 0 })
  }, 30_000)

  it('is refused naming the step it does not meet', async () => {
    const outcome = await runSessionScript(
      { id: LAB_ID, database: lab.database },
      exercise('A: BEGIN;\nA: UPDATE accounts SET balance = 0 WHERE id = 1;\nA: COMMIT;', [{ waits: 'B' }]),
    )
    expect(outcome).toMatchObject({ passed: false, step: 0 })
    expect(await pairsOnServer()).toEqual({ databases: [], backends: 0, locks: 0 })
  }, 30_000)

  it('is refused when a line is SQL the session may not run', async () => {
    await expect(
      runSessionScript(
        { id: LAB_ID, database: lab.database },
        exercise('A: SET lock_timeout = 0;', [{ committed: 'A' }]),
      ),
    ).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/^Exercise x: the solution line 1/) })
  }, 30_000)
})

describe('a two-session exercise in a course', () => {
  const yaml = (solution: string) => `title: Locks
minutes: 10
dataset: bank.sql
exercises:
  - key: wait
    title: Wait on a lock
    prompt: Make B wait on A.
    check: sessions
    allow: [select, dml]
    steps:
      - committed: A
      - waits: B
    solution: |
${solution
  .split('\n')
  .map((line) => `      ${line}`)
  .join('\n')}
`
  const SOLUTION = `A: BEGIN;
A: UPDATE accounts SET balance = balance - 10 WHERE id = 1;
B: UPDATE accounts SET balance = balance + 10 WHERE id = 1;
A: COMMIT;`

  it('is imported once its solution meets the steps, and a learner works it, checks and is kept an attempt', async () => {
    const course = await makeCourse()
    const imported = await importLab(SYSTEM, { folder: labFolderOf(yaml(SOLUTION), DATASET), course: course.id })
    const [{ database }] = (
      await admin.query<{ database: string }>('SELECT database FROM labs WHERE id = $1', [imported.id])
    ).rows
    const built = await admin.query('SELECT datname FROM pg_database WHERE datname = $1', [`${database}_t`])
    expect(built.rows).toHaveLength(1)
    const exported = await labFolder(SYSTEM, imported.id)
    expect(exported.definition.exercises[0]).toMatchObject({
      check: 'sessions',
      steps: [{ committed: 'A' }, { waits: 'B' }],
    })

    const learner = await makeLearner()
    const stranger = await makeLearner()
    await assignCourse(learner.id, course.id)
    const labId = imported.id
    await expect(startSessions(stranger, labId, 'wait')).rejects.toMatchObject({ status: 403 })
    expect(await sessionsView(learner, labId, 'wait')).toBeNull()
    await startSessions(learner, labId, 'wait')
    await expect(checkSessions(learner, labId, 'wait')).rejects.toMatchObject({ status: 400 })
    await runSession(learner, labId, { exercise: 'wait', session: 'A', sql: 'BEGIN' })
    const failed = await checkSessions(learner, labId, 'wait')
    expect(failed).toMatchObject({ passed: false, step: 0, attempts: 1 })
    await runSession(learner, labId, {
      exercise: 'wait',
      session: 'A',
      sql: 'UPDATE accounts SET balance = 0 WHERE id = 2',
    })
    const waiting = await runSession(learner, labId, {
      exercise: 'wait',
      session: 'B',
      sql: 'DELETE FROM accounts WHERE id = 2',
    })
    expect(waiting.sessions[1].running?.waiting).toBe(true)
    await expect(runSession(learner, labId, { exercise: 'wait', session: 'C', sql: 'COMMIT' })).rejects.toMatchObject({
      status: 400,
    })
    await runSession(learner, labId, { exercise: 'wait', session: 'A', sql: 'COMMIT' })
    expect(await checkSessions(learner, labId, 'wait')).toMatchObject({ passed: true, attempts: 2 })
    const [kept] = (
      await admin.query<{ sql: string; passed: boolean }>(
        `SELECT a.sql, a.passed FROM lab_attempts a JOIN lab_exercises e ON e.id = a.exercise_id
         WHERE e.lab_id = $1 AND a.user_id = $2 AND a.passed`,
        [labId, learner.id],
      )
    ).rows
    expect(kept.sql).toContain('B: DELETE FROM accounts WHERE id = 2;  -- waited, DELETE 1')
    // a two-session exercise is not answered by one SQL text
    await expect(attemptExercise(learner, { labId, exercise: 'wait', sql: 'SELECT 1' })).rejects.toMatchObject({
      status: 400,
    })
    await closeSessions(learner)
    expect(await sessionsView(learner, labId, 'wait')).toBeNull()
  }, 60_000)

  it('refuses the lab, naming the exercise and the step, when the solution cannot meet its steps', async () => {
    const course = await makeCourse()
    const never =
      'A: BEGIN;\nA: UPDATE accounts SET balance = 0 WHERE id = 1;\nA: COMMIT;\nB: UPDATE accounts SET balance = 1 WHERE id = 1;'
    await expect(
      importLab(SYSTEM, { folder: labFolderOf(yaml(never), DATASET), course: course.id }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^Exercise wait: the solution does not meet its steps\. Step 2 is not met/),
    })
  }, 60_000)
})

describe('the demo lab Transactions and locks', () => {
  const folder = path.join(import.meta.dirname, '../../db/seeds/labs/transactions')

  it('checks: each solution (a lock wait, a changing read and a repeatable one, a deadlock) meets its steps', async () => {
    const checked = await checkLabDirectory(folder)
    expect(checked).toMatchObject({ ok: true, problems: [] })
    expect(checked.exercises.map((e) => e.key)).toEqual(['wait-for-a-lock', 'non-repeatable-read', 'deadlock'])
    expect(await pairsOnServer()).toEqual({ databases: [], backends: 0, locks: 0 })
    // and imports as the demo seed imports it
    const course = await makeCourse()
    const imported = await importLab(SYSTEM, { folder: await readLabFolder(folder), course: course.id })
    expect(imported.exercises.added).toHaveLength(3)
  }, 90_000)
})

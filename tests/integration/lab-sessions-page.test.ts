import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { closeSandbox } from '#app/modules/labs/sandbox.server.ts'
import { importLab } from '#app/modules/labs/service.server.ts'
import { closeAllPairs } from '#app/modules/labs/sessions.server.ts'
import * as labPage from '#app/routes/_learner+/course.$courseId.lab.$labId.tsx'
import * as sessionsRoute from '#app/routes/api+/labs_.$labId_.sessions.ts'
import * as sessionRoute from '#app/routes/api+/labs_.$labId_.sessions_.$session.ts'
import * as checkRoute from '#app/routes/api+/labs_.$labId_.sessions_.check.ts'
import { assignCourse, labFolderOf, makeCourse, makeLearner } from '#tests/factories.ts'
import { renderRoute, type RouteModule } from '#tests/render.tsx'
import { body, call } from '#tests/requests.ts'
import { sessionCookieFor } from '#tests/sessions.ts'

// A two-session exercise on the lab page as a browser without JavaScript uses it: every button a form post with
// its intent, B's statement shown "waiting for a lock…" with a Refresh button until A commits, a statement the
// sessions may not run shown at its SQL field, Check kept as an attempt, and Close ending the pair.

const LAB = `title: Locks
minutes: 10
dataset: bank.sql
exercises:
  - key: wait
    title: Wait on a lock
    prompt: Make B wait on A's lock.
    check: sessions
    allow: [select, dml]
    steps:
      - committed: A
      - waits: B
    solution: |
      A: BEGIN;
      A: UPDATE accounts SET balance = balance - 10 WHERE id = 1;
      B: UPDATE accounts SET balance = balance + 10 WHERE id = 1;
      A: COMMIT;
`
const DATA = `CREATE TABLE accounts (id integer PRIMARY KEY, balance numeric(10, 2) NOT NULL);
INSERT INTO accounts VALUES (1, 100), (2, 50);`

let courseId = ''
let labId = ''
let cookie = ''

beforeAll(async () => {
  const course = await makeCourse()
  courseId = course.id
  labId = (await importLab(SYSTEM, { folder: labFolderOf(LAB, DATA), course: course.id })).id
  const learner = await makeLearner()
  await assignCourse(learner.id, courseId)
  cookie = await sessionCookieFor(learner.userName)
}, 60_000)

afterAll(async () => {
  await closeAllPairs()
  await closeSandbox()
})

const path = () => `/course/${courseId}/lab/${labId}`
const PATTERN = '/course/:courseId/lab/:labId'

const post = (fields: Record<string, string>) =>
  call(labPage.action as never, path(), {
    method: 'POST',
    headers: { Cookie: cookie },
    body: new URLSearchParams({ exercise: 'wait', ...fields }),
    params: { courseId, labId },
  })
const runIn = (session: 'A' | 'B', sql: string) => post({ intent: 'sessions-run', session, sql })
const page = () => renderRoute(labPage as RouteModule, path(), { cookie, pattern: PATTERN })

type Reply = { result: { error?: Record<string, string[] | null> }; check?: { passed: boolean; message: string } }

describe('a two-session exercise on the lab page', () => {
  it('starts, runs, shows a wait with Refresh, checks and closes, all as form posts', async () => {
    const first = await page()
    expect(first.getByRole('button', { name: 'Start two sessions' })).toBeInTheDocument()
    // two-session exercises have no Run: a lab of them alone has no practice line and loads no PostgreSQL
    expect(first.queryByTestId('practice-status')).toBeNull()
    expect((await post({ intent: 'sessions-start' })).status).toBe(200)
    let screen = await page()
    expect(screen.getByLabelText(/SQL for session A/)).toBeInTheDocument()
    expect(screen.getByLabelText(/SQL for session B/)).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Refresh' })).toBeNull()

    await runIn('A', 'BEGIN')
    await runIn('A', 'UPDATE accounts SET balance = 0 WHERE id = 1')
    expect((await runIn('B', 'UPDATE accounts SET balance = 1 WHERE id = 1')).status).toBe(200)
    screen = await page()
    expect(screen.getByText('waiting for a lock…')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Refresh' })).toBeInTheDocument()
    expect(screen.getByText(/In a transaction · READ COMMITTED/)).toBeInTheDocument()

    // a second statement in B while it waits, and SQL a session may not run, are shown at the SQL field
    const busy = await runIn('B', 'SELECT 1')
    expect(busy.status).toBe(409)
    expect(((await busy.json()) as Reply).result.error?.sql?.[0]).toMatch(/Session B is still running/)
    const refused = await runIn('A', 'SET lock_timeout = 0')
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as Reply).result.error?.sql).toHaveLength(1)

    await runIn('A', 'COMMIT')
    screen = await page()
    expect(screen.queryByText('waiting for a lock…')).toBeNull()
    expect(screen.getByText(/Waited for a lock, then/)).toBeInTheDocument()

    const checked = (await (await post({ intent: 'sessions-check' })).json()) as Reply
    expect(checked.check).toMatchObject({ passed: true })
    expect((await page()).getByText(/1 attempt/)).toBeInTheDocument()

    // a page left late closes only its own pair, not one opened since
    expect((await post({ intent: 'sessions-close', pair: 'an-older-pair' })).status).toBe(200)
    expect((await page()).getByRole('button', { name: 'Close' })).toBeInTheDocument()
    expect((await post({ intent: 'sessions-close' })).status).toBe(200)
    expect((await page()).getByRole('button', { name: 'Start two sessions' })).toBeInTheDocument()
    const closed = await runIn('A', 'SELECT 1')
    expect(closed.status).toBe(409)
  }, 60_000)
})

describe('a two-session exercise through the /api', () => {
  it('opens, runs in A and B (B waiting), reads, checks and closes', async () => {
    const learner = await makeLearner()
    await assignCourse(learner.id, courseId)
    const base = `/api/labs/${labId}/sessions`
    const opened = await call(sessionsRoute.action as never, base, {
      method: 'POST',
      json: { exercise: 'wait' },
      token: learner.token,
      params: { labId },
    })
    expect(opened.status).toBe(200)
    const run = (session: string, sql: string) =>
      call(sessionRoute.action as never, `${base}/${session}`, {
        method: 'POST',
        json: { exercise: 'wait', sql },
        token: learner.token,
        params: { labId, session },
      })
    await run('A', 'BEGIN')
    await run('A', 'UPDATE accounts SET balance = 3 WHERE id = 2')
    const waiting = await body<{ data: { sessions: { running: { waiting: boolean } | null }[] } }>(
      await run('B', 'UPDATE accounts SET balance = 4 WHERE id = 2'),
    )
    expect(waiting.data.sessions[1].running).toMatchObject({ waiting: true })
    expect((await run('C', 'COMMIT')).status).toBe(400)
    const read = await body<{ data: { sessions: { running: unknown }[] } }>(
      await call(sessionsRoute.loader as never, `${base}?exercise=wait`, { token: learner.token, params: { labId } }),
    )
    expect(read.data.sessions[1].running).toMatchObject({ waiting: true })
    // without ?exercise=, the caller's pair in this lab
    const inLab = await body<{ data: { exercise: string } | null }>(
      await call(sessionsRoute.loader as never, base, { token: learner.token, params: { labId } }),
    )
    expect(inLab.data?.exercise).toBe('wait')
    await run('A', 'COMMIT')
    const checked = await call(checkRoute.action as never, `${base}/check`, {
      method: 'POST',
      json: { exercise: 'wait' },
      token: learner.token,
      params: { labId },
    })
    expect(await body(checked)).toMatchObject({ data: { passed: true, attempts: 1 } })
    const closed = await call(sessionsRoute.action as never, base, {
      method: 'DELETE',
      token: learner.token,
      params: { labId },
    })
    expect(closed.status).toBe(200)
    expect(
      await body(
        await call(sessionsRoute.loader as never, `${base}?exercise=wait`, { token: learner.token, params: { labId } }),
      ),
    ).toEqual({ data: null })
  }, 60_000)
})

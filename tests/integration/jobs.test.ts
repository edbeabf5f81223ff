import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { within } from '@testing-library/dom'
import { QueryTypes } from 'sequelize'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ROLE, SYSTEM } from '#app/modules/auth/roles.ts'
import { addSchedule, findRun, runSchedule } from '#app/modules/exports/service.server.ts'
import { jobLibrary } from '#app/modules/jobs/connection.server.ts'
import { gaveUpQueue, QUEUE_NAMES, QUEUES } from '#app/modules/jobs/queues.ts'
import { cancelJob, getJob, jobsOverview, listJobs, retryJob, type JobView } from '#app/modules/jobs/service.server.ts'
import * as jobsPage from '#app/routes/admin+/jobs.tsx'
import { sequelize } from '#db/client.ts'
import { portal } from '#tests/cli.ts'
import { makeLearner } from '#tests/factories.ts'
import { eventually, jobOf, startWorkers, stopWorkers, tuneQueue } from '#tests/jobs.ts'
import { renderRoute, type RouteModule } from '#tests/render.tsx'
import { body, call } from '#tests/requests.ts'
import { signedInPeople, toastOf, type SignedInPerson } from '#tests/sessions.ts'

// The job queue as operators meet it: the queues as the table sets them, a job that used up its tries
// kept with its last error, `portal jobs` and the Jobs page listing it, a retry from the page (a plain
// form, as a browser without JavaScript posts it) and from the CLI, and a cancel.

// each command is a child process starting Node and tsx: a test of several needs more than the default time
const SLOW = { timeout: 180_000 }

let people: Record<'admin' | 'coach' | 'learner', SignedInPerson>

beforeAll(async () => {
  people = await signedInPeople('admin', 'coach', 'learner')
})

afterEach(() => stopWorkers())

const folder = async () => `${await mkdtemp(path.join(os.tmpdir(), 'portal-jobs-'))}/`

/** A schedule whose folder is gone by the time it runs: each try of its run fails, saying so. */
async function brokenSchedule(name: string) {
  const gone = await folder()
  await addSchedule(SYSTEM, { name, cron: '0 2 * * *', range: 'yesterday', destination: gone })
  await rm(gone, { recursive: true })
  return gone
}

describe('the queues', () => {
  it('are installed with the settings of the table, each queue with records beside its dead-letter queue', async () => {
    for (const name of QUEUE_NAMES) {
      const spec = QUEUES[name]
      const queue = await jobLibrary().getQueue(name)
      expect(queue, name).toMatchObject({
        retryLimit: spec.retryLimit,
        retryDelay: spec.retryDelay,
        retryBackoff: spec.retryBackoff,
        expireInSeconds: spec.expireInSeconds,
        deleteAfterSeconds: spec.keepSeconds,
        heartbeatSeconds: spec.heartbeatSeconds ?? null,
        deadLetter: spec.waitingRecords ? gaveUpQueue(name) : null,
      })
      if (spec.waitingRecords) expect(await jobLibrary().getQueue(gaveUpQueue(name)), name).not.toBeNull()
    }
  })

  it('get their cron schedules from the workers, once however many start', async () => {
    await Promise.all([startWorkers([...QUEUE_NAMES]), startWorkers([...QUEUE_NAMES])])
    const schedules = await jobLibrary().getSchedules()
    expect(schedules.map((s) => [s.name, s.cron, s.timezone]).sort()).toEqual(
      QUEUE_NAMES.filter((name) => QUEUES[name].schedule)
        .map((name) => [name, QUEUES[name].schedule, 'UTC'])
        .sort(),
    )
  })
})

describe('a job that used up its tries', () => {
  it(
    'is failed with its last error, listed by portal jobs and the Jobs page, and runs again when retried from the page',
    SLOW,
    async () => {
      // two tries, a second apart
      await tuneQueue('export-run', { retryLimit: 1, retryDelay: 1, retryBackoff: false })
      const gone = await brokenSchedule('retried')
      const queued = await runSchedule(SYSTEM, 'retried')
      await startWorkers(['export-run'])

      const failed = await eventually(async () => {
        const job = await getJob(SYSTEM, queued.id)
        return job.state === 'failed' && job
      })
      const error = `The folder ${gone.slice(0, -1)} does not exist.`
      expect(failed).toMatchObject({ queue: 'export-run', tries: 2, triesAllowed: 2, error })
      // its run says so too
      expect(await findRun(SYSTEM, queued.id)).toMatchObject({ status: 'failed', error })

      // the CLI, as JSON and as a table
      const listed = await portal(['jobs', 'list', '--state', 'failed', '--json'])
      expect(listed.code).toBe(0)
      const jobs = JSON.parse(listed.stdout) as JobView[]
      expect(jobs.find((job) => job.id === queued.id)).toEqual(failed)
      expect(jobs.every((job) => job.state === 'failed')).toBe(true)
      const table = await portal(['jobs', 'list', '--queue', 'export-run'])
      expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+QUEUE\s+STATE\s+TRIES\s+CREATED\s+ENDED\s+ERROR$/)
      expect(table.stdout).toContain(`${queued.id}  export-run  failed  2/2`)

      // the Jobs page: counts by queue, the failed job with its error and a Retry button for an admin
      const shown = await renderRoute(jobsPage as RouteModule, '/admin/jobs', { cookie: people.admin.cookie })
      const queues = shown.getByRole('table', { name: 'Jobs of each queue, by state' })
      const exportsRow = within(queues).getByRole('row', { name: /Scheduled exports/ })
      expect(
        within(exportsRow)
          .getAllByRole('cell')
          .map((cell) => cell.textContent),
      ).toEqual(['0', '0', '0', '1', '0'])
      const failedTable = shown.getByRole('table', { name: 'Failed jobs, newest first' })
      const row = within(failedTable).getByRole('row', { name: new RegExp(queued.id) })
      expect(row).toHaveTextContent(error)
      expect(row).toHaveTextContent('2 of 2')
      expect(within(row).getByRole('button', { name: `Retry scheduled exports job ${queued.id}` })).toBeInTheDocument()

      // a coach reads the page and has no button, and a retry posted anyway is refused
      const coachView = await renderRoute(jobsPage as RouteModule, '/admin/jobs', { cookie: people.coach.cookie })
      expect(coachView.getByText(/Only admins can retry a job/)).toBeInTheDocument()
      expect(coachView.queryByRole('button', { name: /^Retry/ })).toBeNull()
      const refused = await retryFromPage(people.coach, queued.id)
      expect(await toastOf(refused)).toMatchObject({ type: 'error', message: 'Only admins can retry or cancel jobs.' })
      expect((await getJob(SYSTEM, queued.id)).state).toBe('failed')
      // a learner never gets in
      const learner = await call(jobsPage.loader as never, '/admin/jobs', {
        headers: { Cookie: people.learner.cookie },
      })
      expect(learner.status).toBe(302)

      // the folder is back; the admin's retry, as a browser without JavaScript posts it
      await mkdir(gone)
      const retried = await retryFromPage(people.admin, queued.id)
      expect(retried.status).toBe(302)
      expect(retried.headers.get('Location')).toBe('/admin/jobs')
      expect(await toastOf(retried)).toMatchObject({
        type: 'success',
        message: 'The scheduled exports job is queued to run again.',
      })
      await eventually(async () => (await getJob(SYSTEM, queued.id)).state === 'completed')
      expect(await findRun(SYSTEM, queued.id)).toMatchObject({ status: 'succeeded', error: null })
      expect(await readdir(gone)).toEqual([expect.stringMatching(/^retried_\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}\.csv$/)])
      // a job that is not failed is not retried
      const again = await retryFromPage(people.admin, queued.id)
      expect(await toastOf(again)).toMatchObject({
        type: 'error',
        message: 'Only a failed or cancelled job can be tried again; this one is completed.',
      })
    },
  )
})

const retryFromPage = (who: SignedInPerson, id: string) =>
  call(jobsPage.action as never, '/admin/jobs', {
    method: 'POST',
    headers: { Cookie: who.cookie ?? '' },
    body: new URLSearchParams({ id }),
  })

describe('portal jobs', () => {
  it(
    'cancels a waiting job, retries it, and says what cannot be done with exit codes scripts rely on',
    SLOW,
    async () => {
      const dir = await folder()
      await addSchedule(SYSTEM, { name: 'waiting', cron: '0 2 * * *', range: 'yesterday', destination: dir })
      const queued = await runSchedule(SYSTEM, 'waiting')

      const cancelled = await portal(['jobs', 'cancel', queued.id, '--json'])
      expect(cancelled.code).toBe(0)
      expect(JSON.parse(cancelled.stdout)).toMatchObject({ id: queued.id, state: 'cancelled' })
      expect(cancelled.stderr).toBe(`Job ${queued.id} (export-run) is cancelled.\n`)
      expect(await findRun(SYSTEM, queued.id)).toMatchObject({ status: 'failed', error: 'Cancelled by an operator.' })

      const twice = await portal(['jobs', 'cancel', queued.id])
      expect(twice).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'portal: This job has ended (cancelled); only a waiting or running job can be cancelled.\n',
      })

      // a cancelled job may run after all
      const resumed = await portal(['jobs', 'retry', queued.id, '--json'])
      expect(resumed.code).toBe(0)
      expect(JSON.parse(resumed.stdout)).toMatchObject({ id: queued.id, state: 'created' })
      expect(await findRun(SYSTEM, queued.id)).toMatchObject({ status: 'queued', finishedAt: null })
      await startWorkers(['export-run'])
      await eventually(async () => (await findRun(SYSTEM, queued.id)).status === 'succeeded')

      expect(await portal(['jobs', 'retry', '00000000-0000-4000-8000-000000000000'])).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'portal: There is no such job.\n',
      })
      expect(await portal(['jobs', 'retry', 'not-an-id'])).toMatchObject({
        code: 1,
        stderr: 'portal: There is no such job.\n',
      })
      const wrong = await portal(['jobs', 'list', '--state', 'lost'])
      expect(wrong).toMatchObject({ code: 2, stdout: '' })
      expect(wrong.stderr).toContain(
        '--state: State must be one of created, retry, active, completed, failed, cancelled.',
      )
      expect(await portal(['jobs', 'list', '--limit', '0'])).toMatchObject({
        code: 2,
        stderr: 'portal: --limit: Limit must be at least 1.\n',
      })
    },
  )
})

describe('the job services', () => {
  it('are for the admin side: coaches read, admins retry and cancel, learners get nothing', async () => {
    const learner = await makeLearner()
    await expect(listJobs(learner)).rejects.toMatchObject({ status: 403 })
    await expect(jobsOverview(learner)).rejects.toMatchObject({ status: 403 })
    const coach = { id: people.coach.id, roleId: ROLE.coach }
    await expect(jobsOverview(coach)).resolves.toMatchObject({ queues: expect.any(Array) })
    await expect(cancelJob(coach, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ status: 403 })
    await expect(retryJob(coach, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ status: 403 })
  })

  it('count every queue’s jobs by state, straight from the table', async () => {
    const before = await jobsOverview(SYSTEM)
    const dir = await folder()
    await addSchedule(SYSTEM, { name: 'counted', cron: '0 2 * * *', range: 'yesterday', destination: dir })
    await runSchedule(SYSTEM, 'counted')
    const after = await jobsOverview(SYSTEM)
    const created = (overview: typeof before) => overview.queues.find((q) => q.name === 'export-run')?.counts.created
    expect(created(after)).toBe((created(before) ?? 0) + 1)
    const sql = await sequelize()
    const [{ n }] = await sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'export-run' AND state = 'created'`,
      { type: QueryTypes.SELECT },
    )
    expect(created(after)).toBe(n)
    expect(
      await jobOf((await listJobs(SYSTEM, { queue: 'export-run', state: 'created', limit: 1 }))[0].id),
    ).toMatchObject({
      state: 'created',
    })
  })
})

describe('the housekeeping jobs', () => {
  it('forget sign-in events older than the record keeps, and no newer one, when a worker runs the sweep', async () => {
    const sql = await sequelize()
    const account = `sweep-${Date.now()}@example.com`
    await sql.query(
      `INSERT INTO sign_in_events (at, account, outcome) VALUES
         (now() - interval '91 days', $1, 'success'), (now() - interval '89 days', $1, 'success')`,
      { bind: [account] },
    )
    await startWorkers(['sign-in-sweep'])
    const id = await jobLibrary().send('sign-in-sweep', {})
    await eventually(async () => (await jobOf(id!))?.state === 'completed')
    const kept = await sql.query<{ days: number }>(
      `SELECT round(extract(epoch FROM now() - at) / 86400)::int AS days FROM sign_in_events WHERE account = $1`,
      { bind: [account], type: QueryTypes.SELECT },
    )
    expect(kept).toEqual([{ days: 89 }])
  })
})

describe('the Jobs page', () => {
  it('says so when no job has failed', async () => {
    const sql = await sequelize()
    await sql.query(`DELETE FROM pgboss.job WHERE state = 'failed'`)
    const shown = await renderRoute(jobsPage as RouteModule, '/admin/jobs', { cookie: people.admin.cookie })
    expect(shown.getByRole('heading', { name: 'Background jobs', level: 1 })).toBeInTheDocument()
    expect(shown.getByText('No failed jobs. Every job has done its work or is on its way.')).toBeInTheDocument()
    const data = await body<{ failed: unknown[]; canManage: boolean }>(
      await call(jobsPage.loader as never, '/admin/jobs', { headers: { Cookie: people.admin.cookie } }),
    )
    expect(data).toMatchObject({ failed: [], canManage: true })
  })
})

import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { within } from '@testing-library/dom'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import {
  addSchedule,
  findRun,
  listRuns,
  listSchedules,
  runExport,
  runSchedule,
} from '#app/modules/exports/service.server.ts'
import { resetStorage } from '#app/modules/files/storage.server.ts'
import * as page from '#app/routes/admin+/exports.tsx'
import * as download from '#app/routes/admin+/exports_.$runId.download.ts'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { sequelize } from '#db/client.ts'
import { makeCourse } from '#tests/factories.ts'
import { tryOf } from '#tests/jobs.ts'
import { renderRoute, type RouteModule } from '#tests/render.tsx'
import { body, call } from '#tests/requests.ts'
import { toastOf, signedInPeople, type SignedInPerson } from '#tests/sessions.ts'

// The Scheduled exports page and its download route, driven as a browser without JavaScript drives them.

type Reply = { result: { status?: string; error?: Record<string, string[]> } }
type PageData = {
  schedules: { name: string }[]
  runs: { id: string }[]
  canManage: boolean
  canDownload: boolean
  s3Targets: string[]
}

let people: Record<'admin' | 'coach' | 'learner', SignedInPerson>
let dir: string

beforeAll(async () => {
  people = await signedInPeople('admin', 'coach', 'learner')
})

async function ensureExportsFolder() {
  const root = path.join(process.env.DATA_DIR!, 'exports')
  await mkdir(root, { recursive: true })
  return root
}

beforeEach(async () => {
  await (await sequelize()).query('DELETE FROM export_schedules')
  // the admin area may only write exports inside the portal's own exports folder
  dir = `${await mkdtemp(path.join(await ensureExportsFolder(), 'page-'))}/`
})

const open = (who: keyof typeof people) =>
  call(page.loader, '/admin/exports', { headers: { Cookie: people[who].cookie } })

const post = (who: keyof typeof people, fields: Record<string, string | string[]>) => {
  const form = new URLSearchParams()
  for (const [name, value] of Object.entries(fields))
    for (const v of Array.isArray(value) ? value : [value]) form.append(name, v)
  return call(page.action, '/admin/exports', { method: 'POST', headers: { Cookie: people[who].cookie }, body: form })
}

const fields = () => ({
  intent: 'add',
  name: 'nightly',
  cron: '0 2 * * *',
  timeZone: 'UTC',
  range: 'yesterday',
  format: 'csv',
  destination: dir,
})

/** A run by hand, its job run as a worker would (its last try). */
async function ranByHand(name: string) {
  const queued = await runSchedule(SYSTEM, name)
  await runExport(tryOf(queued.id, { lastTry: true })).catch(() => {})
  return findRun(SYSTEM, queued.id)
}

describe('the Scheduled exports page', () => {
  it('lets an admin add a schedule, explains a refused one beside its fields, runs and removes it', async () => {
    const refused = await post('admin', { ...fields(), cron: '0 2 * *', destination: 'exports/' })
    expect(refused.status).toBe(400)
    const { result } = await body<Reply>(refused)
    expect(result.error?.cron?.[0]).toMatch(/^Cron "0 2 \* \*" is not a valid schedule/)
    expect(result.error?.destination?.[0]).toMatch(/must be an absolute path/)

    const added = await post('admin', fields())
    expect(added.status).toBe(302)
    expect(await toastOf(added)).toMatchObject({ type: 'success', message: 'Schedule nightly added.' })
    const shown = await body<PageData>(await open('admin'))
    expect(shown).toMatchObject({ canManage: true, schedules: [{ name: 'nightly' }] })

    const duplicate = await post('admin', fields())
    expect(duplicate.status).toBe(409)
    expect((await body<Reply>(duplicate)).result.error?.name).toEqual(['A schedule named nightly already exists.'])

    const ran = await post('admin', { intent: 'run', name: 'nightly' })
    expect(await toastOf(ran)).toMatchObject({
      type: 'success',
      message: 'nightly is queued to run now; its run is listed below.',
    })
    const [queued] = (await listRuns(SYSTEM)).filter((r) => r.scheduleName === 'nightly')
    expect(queued).toMatchObject({ status: 'queued', trigger: 'manual' })
    // the page lists it, waiting for a worker
    expect(await body<PageData>(await open('admin'))).toMatchObject({ runs: [{ id: queued.id, status: 'queued' }] })

    const removed = await post('admin', { intent: 'remove', name: 'nightly' })
    expect(await toastOf(removed)).toMatchObject({ type: 'success' })
    expect(await listSchedules(SYSTEM)).toEqual([])
  })

  it('adds a schedule of the assignments, and offers their download to coaches too', async () => {
    const added = await post('admin', { ...fields(), kind: 'assignments', status: 'overdue' })
    expect(await toastOf(added)).toMatchObject({ type: 'success', message: 'Schedule nightly added.' })
    // the Days the form always posts mean nothing to the assignments
    expect(await listSchedules(SYSTEM)).toMatchObject([
      { name: 'nightly', kind: 'assignments', range: null, status: 'overdue' },
    ])
    const refused = await post('admin', { ...fields(), name: 'other', status: 'overdue' })
    expect((await body<Reply>(refused)).result.error?.status).toEqual(['Only an assignments export has a status.'])

    const shown = await renderRoute(page as RouteModule, '/admin/exports', { cookie: people.coach.cookie })
    const form = shown.getByRole('button', { name: 'Download assignments' }).closest('form')
    expect(form).toHaveAttribute('action', '/admin/exports/assignments')
    expect(form).toHaveAttribute('method', 'get')
    expect(within(shown.getByRole('table', { name: 'Schedules' })).getByText('Assignments: overdue')).toBeTruthy()
  })

  it('offers a checkbox per course without JavaScript and saves the ticked ones; an unknown one is refused beside them', async () => {
    const [first, second] = [await makeCourse({ title: 'Export First' }), await makeCourse({ title: 'Export Second' })]
    const render = (form?: [string, string][]) =>
      renderRoute(page as RouteModule, '/admin/exports', { cookie: people.admin.cookie, form })
    const shown = await render()
    const choice = shown.getByRole('group', { name: 'Courses' })
    expect(choice).toHaveAccessibleDescription('None chosen means every course.')
    for (const course of [first, second])
      expect(within(choice).getByRole('checkbox', { name: course.title })).toHaveAttribute('name', 'courses')
    // no list that needs Ctrl or ⌘ to pick several
    expect(shown.queryByRole('listbox')).toBeNull()

    const unknown = crypto.randomUUID()
    const refused = await render([...Object.entries(fields()), ['courses', first.id], ['courses', unknown]])
    expect(refused.getByRole('group', { name: 'Courses' })).toHaveAccessibleDescription(
      `None chosen means every course. There is no course ${unknown}.`,
    )
    // the schedule's choice, not the one of the assignments' download beside it
    const chosen = refused.getByRole('group', { name: 'Courses' })
    expect(within(chosen).getByRole('checkbox', { name: first.title })).toBeChecked()
    expect(within(chosen).getByRole('checkbox', { name: second.title })).not.toBeChecked()

    const added = await post('admin', { ...fields(), courses: [first.id, second.id] })
    expect(await toastOf(added)).toMatchObject({ type: 'success', message: 'Schedule nightly added.' })
    expect((await listSchedules(SYSTEM)).map((s) => [...s.courses].sort())).toEqual([[first.id, second.id].sort()])
  })

  it('shows a coach everything but refuses every change, and turns a learner away', async () => {
    const made = await addSchedule(SYSTEM, { ...fields(), intent: undefined })
    const shown = await open('coach')
    expect(shown.status).toBe(200)
    expect(await body<PageData>(shown)).toMatchObject({ canManage: false, schedules: [{ name: 'nightly' }] })

    for (const change of [
      { ...fields(), name: 'coached' },
      { intent: 'run', name: 'nightly' },
      { intent: 'remove', name: 'nightly' },
    ]) {
      const refused = await post('coach', change)
      expect(refused.status).toBe(302)
      expect(await toastOf(refused)).toMatchObject({
        type: 'error',
        message: 'Only admins can change scheduled exports.',
      })
    }
    expect((await listSchedules(SYSTEM)).map((s) => s.name)).toEqual(['nightly'])
    expect((await listRuns(SYSTEM)).filter((r) => r.scheduleId === made.id)).toEqual([])

    const learner = await open('learner')
    expect(learner.status).toBe(302)
    expect(learner.headers.get('Location')).toBe('/courses')
    expect((await post('learner', { intent: 'remove', name: 'nightly' })).headers.get('Location')).toBe('/courses')
  })
})

describe('S3 destinations from the admin area', () => {
  /** Run `work` with these settings in the environment, then put back what was there. */
  async function withEnv(settings: Record<string, string | undefined>, work: () => Promise<void>) {
    const saved = Object.fromEntries(Object.keys(settings).map((name) => [name, process.env[name]]))
    const put = (values: Record<string, string | undefined>) => {
      for (const [name, value] of Object.entries(values)) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
      resetEnvCache()
      resetStorage()
    }
    put(settings)
    try {
      await work()
    } finally {
      put(saved)
    }
  }

  const destinationError = async (response: Response) => {
    expect(response.status).toBe(400)
    return (await body<Reply>(response)).result.error?.destination?.[0]
  }

  it('are refused, and not offered, while the operator has listed none; the CLI may name any bucket', async () => {
    await withEnv({ EXPORT_S3_TARGETS: undefined, S3_BUCKET: undefined }, async () => {
      expect(await body<PageData>(await open('admin'))).toMatchObject({ s3Targets: [] })
      expect(await destinationError(await post('admin', { ...fields(), destination: 's3://reports/nightly/' }))).toBe(
        `From the admin area exports go to a folder inside ${path.join(process.env.DATA_DIR!, 'exports')}/; S3 destinations are set with the portal CLI.`,
      )
      expect(await listSchedules(SYSTEM)).toEqual([])
      await expect(
        addSchedule(SYSTEM, { ...fields(), intent: undefined, destination: 's3://reports/nightly/' }),
      ).resolves.toMatchObject({ destination: 's3://reports/nightly/' })
    })
  })

  it('are kept to the prefixes the operator listed, and never the uploads bucket, even when listed', async () => {
    const settings = {
      EXPORT_S3_TARGETS: 's3://reports/access-log/, s3://archive/ s3://portal-uploads/exports/',
      S3_BUCKET: 'portal-uploads',
    }
    await withEnv(settings, async () => {
      // the page offers the listed prefixes, the one in the uploads bucket left out
      expect(await body<PageData>(await open('coach'))).toMatchObject({
        s3Targets: ['s3://reports/access-log/', 's3://archive/'],
      })
      const allowed = 'must be under s3://reports/access-log/ or s3://archive/'
      for (const destination of [
        's3://reports/',
        's3://reports/access-logs/',
        's3://reports/access-log/../secrets/',
        's3://other/access-log/',
      ])
        expect(await destinationError(await post('admin', { ...fields(), destination }))).toContain(allowed)
      for (const destination of ['s3://portal-uploads/exports/', 's3://portal-uploads/'])
        expect(await destinationError(await post('admin', { ...fields(), destination }))).toBe(
          "Exports cannot go to portal-uploads, the bucket that holds the portal's uploads.",
        )
      // a folder outside the exports folder names what is allowed instead
      expect(await destinationError(await post('admin', { ...fields(), destination: '/var/exports/' }))).toContain(
        'use an S3 prefix under s3://reports/access-log/ or s3://archive/',
      )
      expect(await listSchedules(SYSTEM)).toEqual([])

      for (const [name, destination] of [
        ['nightly', 's3://reports/access-log/'],
        ['weekly', 's3://reports/access-log/weekly/'],
        ['archived', 's3://archive/2026/'],
      ]) {
        const added = await post('admin', { ...fields(), name, destination })
        expect(added.status).toBe(302)
      }
      expect((await listSchedules(SYSTEM)).map((s) => s.destination).sort()).toEqual([
        's3://archive/2026/',
        's3://reports/access-log/',
        's3://reports/access-log/weekly/',
      ])
    })
  })
})

describe('downloading a run’s file', () => {
  const get = (who: keyof typeof people, runId: string) =>
    call(download.loader, `/admin/exports/${runId}/download`, {
      headers: { Cookie: people[who].cookie },
      params: { runId },
    })

  it('streams the recorded file of a succeeded run to the admin side, by session or token, and nothing else', async () => {
    await addSchedule(SYSTEM, { ...fields(), intent: undefined })
    const run = await ranByHand('nightly')
    expect(run.status).toBe('succeeded')
    const written = await readFile(run.location ?? '', 'utf8')

    for (const who of ['admin', 'coach'] as const) {
      const response = await get(who, run.id)
      expect(response.status).toBe(200)
      expect(response.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
      expect(response.headers.get('Content-Disposition')).toBe(
        `attachment; filename="${path.basename(run.location ?? '')}"`,
      )
      expect(await response.text()).toBe(written)
    }
    // the same rule as the page's links, in JSON: a learner is refused, a visitor asked to sign in
    const refused = await get('learner', run.id)
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({ message: 'Scheduled exports are for the admin side.' })
    const anonymous = await call(download.loader, `/admin/exports/${run.id}/download`, { params: { runId: run.id } })
    expect(anonymous.status).toBe(401)
    expect(await anonymous.json()).toMatchObject({ message: expect.stringMatching(/sign in/) })

    // a Bearer token does as the session does, as for /files
    const byToken = (token: string) =>
      call(download.loader, `/admin/exports/${run.id}/download`, { params: { runId: run.id }, token })
    const coachDownload = await byToken(people.coach.token)
    expect(coachDownload.status).toBe(200)
    expect(await coachDownload.text()).toBe(written)
    expect((await byToken(people.learner.token)).status).toBe(403)
    expect((await byToken('not-a-token')).status).toBe(401)
    expect(await body<PageData>(await open('coach'))).toMatchObject({ canDownload: true })

    // a failed run has no file, and an id that is no run names nothing
    const gone = `${await mkdtemp(path.join(os.tmpdir(), 'portal-schedule-'))}/`
    await addSchedule(SYSTEM, { ...fields(), intent: undefined, name: 'broken', destination: gone })
    await rm(gone, { recursive: true })
    const failed = await ranByHand('broken')
    expect(failed.status).toBe('failed')
    expect((await get('admin', failed.id)).status).toBe(404)
    expect((await get('admin', '../../etc/passwd')).status).toBe(404)
    expect((await get('admin', '00000000-0000-4000-8000-000000000000')).status).toBe(404)
  })
})

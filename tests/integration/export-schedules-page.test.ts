import { mkdir, mkdtemp, readFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { addSchedule, listRuns, listSchedules, runSchedule } from '#app/modules/exports/service.server.ts'
import * as page from '#app/routes/admin+/exports.tsx'
import * as download from '#app/routes/admin+/exports_.$runId.download.ts'
import { sequelize } from '#db/client.ts'
import { makeAdmin, makeCoach, makeLearner } from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'
import { sessionCookieFor, toastOf } from '#tests/sessions.ts'

// The Scheduled exports page and its download route, driven as a browser without JavaScript drives them.

type Reply = { result: { status?: string; error?: Record<string, string[]> } }
type PageData = { schedules: { name: string }[]; runs: { id: string }[]; canManage: boolean }

const cookies = {} as Record<'admin' | 'coach' | 'learner', string>
let dir: string

beforeAll(async () => {
  const [admin, coach, learner] = await Promise.all([makeAdmin(), makeCoach(), makeLearner()])
  cookies.admin = await sessionCookieFor(admin.userName)
  cookies.coach = await sessionCookieFor(coach.userName)
  cookies.learner = await sessionCookieFor(learner.userName)
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

const open = (who: keyof typeof cookies) => call(page.loader, '/admin/exports', { headers: { Cookie: cookies[who] } })

const post = (who: keyof typeof cookies, fields: Record<string, string | string[]>) => {
  const form = new URLSearchParams()
  for (const [name, value] of Object.entries(fields))
    for (const v of Array.isArray(value) ? value : [value]) form.append(name, v)
  return call(page.action, '/admin/exports', { method: 'POST', headers: { Cookie: cookies[who] }, body: form })
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
      message: expect.stringMatching(/^nightly: 0 rows exported to /),
    })
    expect((await listRuns(SYSTEM)).filter((r) => r.scheduleName === 'nightly')).toHaveLength(1)

    const removed = await post('admin', { intent: 'remove', name: 'nightly' })
    expect(await toastOf(removed)).toMatchObject({ type: 'success' })
    expect(await listSchedules(SYSTEM)).toEqual([])
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

describe('downloading a run’s file', () => {
  const get = (who: keyof typeof cookies, runId: string) =>
    call(download.loader, `/admin/exports/${runId}/download`, { headers: { Cookie: cookies[who] }, params: { runId } })

  it('streams the recorded file of a succeeded run to the admin side, and nothing else', async () => {
    await addSchedule(SYSTEM, { ...fields(), intent: undefined })
    const run = await runSchedule(SYSTEM, 'nightly')
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
    expect((await get('learner', run.id)).headers.get('Location')).toBe('/courses')

    // a failed run has no file, and an id that is no run names nothing
    await addSchedule(SYSTEM, {
      ...fields(),
      intent: undefined,
      name: 'broken',
      destination: '/nonexistent-portal-folder/',
    })
    const failed = await runSchedule(SYSTEM, 'broken')
    expect((await get('admin', failed.id)).status).toBe(404)
    expect((await get('admin', '../../etc/passwd')).status).toBe(404)
    expect((await get('admin', '00000000-0000-4000-8000-000000000000')).status).toBe(404)
  })
})

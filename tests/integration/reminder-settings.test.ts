import { within } from '@testing-library/dom'
import { beforeAll, describe, expect, it } from 'vitest'
import { documentedAnswer, openApiDocument } from '#app/modules/api-docs/openapi.server.ts'
import { editCourseDetails, getCourseDetail, setCourseReminders } from '#app/modules/courses/admin.server.ts'
import { DEFAULT_PLAN } from '#app/modules/deadlines/plan.ts'
import { reminderSettings, saveReminderSettings } from '#app/modules/deadlines/service.server.ts'
import { AFTER_MESSAGE, BEFORE_MESSAGE } from '#app/modules/deadlines/settings-form.ts'
import { ServiceError } from '#app/modules/errors.ts'
import { editProgram, getProgram } from '#app/modules/programs/service.server.ts'
import * as coursePage from '#app/routes/admin+/course.$courseId.tsx'
import * as programPage from '#app/routes/admin+/program.$programId.tsx'
import * as editProgramPage from '#app/routes/admin+/program.$programId_.edit.tsx'
import * as remindersPage from '#app/routes/admin+/reminders.tsx'
import * as courseRoute from '#app/routes/api+/category.course_.$courseId.ts'
import * as editCourseRoute from '#app/routes/api+/category.editCourseDetails.ts'
import * as editProgramRoute from '#app/routes/api+/program.editProgram.$programId.ts'
import { db } from '#db/client.ts'
import { assignCourse, makeCourse, makeProgram, makeStoredFile } from '#tests/factories.ts'
import { postedBy, renderRoute, type RouteModule } from '#tests/render.tsx'
import { body, call } from '#tests/requests.ts'
import { signedInPeople, toastOf, type SignedInPerson } from '#tests/sessions.ts'

// Where admins set the reminders: the Reminders page (the portal's plan, and whether learners may turn the
// mails off), read by coaches; the reminders switch of a course (its page) and of a program (Edit Program),
// and the same switch through the /api's edit calls, documented.

const PAGE = '/admin/reminders'
let people: Record<'admin' | 'coach' | 'learner', SignedInPerson>

beforeAll(async () => {
  people = await signedInPeople('admin', 'coach', 'learner')
})

const save = (who: SignedInPerson, fields: Record<string, string>) =>
  call(remindersPage.action as never, PAGE, {
    method: 'POST',
    headers: { Cookie: who.cookie },
    body: new URLSearchParams(fields),
  })

const render = (who: SignedInPerson, form?: [string, string][]) =>
  renderRoute(remindersPage as RouteModule, PAGE, { cookie: who.cookie, form })

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  if (!(error instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${String(error)}`)
  return error
}

// the tests of this file share one database: each that changes the plan starts from the default
const reset = () => saveReminderSettings(people.admin, { plan: DEFAULT_PLAN, learnersMayOptOut: false })

describe('the Reminders page', () => {
  it('shows an admin the plan in words and a form holding it; saving a new plan round-trips', async () => {
    await reset()
    const page = await render(people.admin)
    expect(page.getByRole('heading', { name: 'Reminders', level: 1 })).toBeInTheDocument()
    expect(page.getByTestId('plan-sentence')).toHaveTextContent(
      'Reminders go 7 and 1 days before; 1, 3 and 7 days overdue.',
    )
    expect(page.getByText(/from 08:00 on its day in that time zone/)).toBeInTheDocument()
    expect(page.getByText('Learners cannot turn reminder mails off.')).toBeInTheDocument()
    const form = page.getByRole('form', { name: 'Change the plan' })
    expect(within(form).getByRole('textbox', { name: 'Days before the due date' })).toHaveValue('7, 1')
    expect(within(form).getByRole('textbox', { name: 'Days overdue' })).toHaveValue('1, 3, 7')
    // without JavaScript the switch is two radio buttons, "No" chosen: off by default, with the reason
    const optOut = within(form).getByRole('group', { name: 'Learners may turn reminder mails off' })
    expect(within(optOut).getByRole('radio', { name: 'No' })).toBeChecked()
    expect(within(form).getByText(/compliance training/)).toBeInTheDocument()
    expect(postedBy(form)).toEqual([
      ['before', '7, 1'],
      ['after', '1, 3, 7'],
      ['learnersMayOptOut', 'false'],
    ])

    const saved = await save(people.admin, { before: '14 3, 0', after: '2,2, 10', learnersMayOptOut: 'true' })
    expect(saved.status).toBe(302)
    expect(saved.headers.get('Location')).toBe(PAGE)
    expect(await toastOf(saved)).toMatchObject({
      type: 'success',
      message: 'Reminder plan saved. Reminders go 14, 3 and 0 days before; 2 and 10 days overdue.',
    })
    // what the sweep reads: sorted, each day once
    expect(await reminderSettings()).toEqual({ plan: { before: [14, 3, 0], after: [2, 10] }, learnersMayOptOut: true })

    const again = await render(people.admin)
    expect(again.getByRole('textbox', { name: 'Days before the due date' })).toHaveValue('14, 3, 0')
    expect(again.getByRole('textbox', { name: 'Days overdue' })).toHaveValue('2, 10')
    expect(again.getByRole('radio', { name: 'Yes' })).toBeChecked()
    expect(again.getByText('Learners may turn reminder mails off on their profile.')).toBeInTheDocument()
  })

  it('takes an empty side as no reminders on that side, and says so when both are empty', async () => {
    await reset()
    const saved = await save(people.admin, { before: '', after: '1', learnersMayOptOut: 'false' })
    expect(await toastOf(saved)).toMatchObject({ message: 'Reminder plan saved. Reminders go 1 day overdue.' })
    expect((await reminderSettings()).plan).toEqual({ before: [], after: [1] })
    await save(people.admin, { before: ' ', after: '', learnersMayOptOut: 'false' })
    expect((await reminderSettings()).plan).toEqual({ before: [], after: [] })
    expect((await render(people.admin)).getByTestId('plan-sentence')).toHaveTextContent(
      'No reminders are sent: both lists of days are empty.',
    )
  })

  it('refuses days it cannot read with each field’s message beside it, keeps what was typed and saves nothing', async () => {
    await reset()
    for (const [fields, errors] of [
      [{ before: '7, a week', after: '1' }, { before: BEFORE_MESSAGE }],
      [{ before: '7', after: '0, 3' }, { after: AFTER_MESSAGE }],
      [
        { before: '400', after: '1.5' },
        { before: BEFORE_MESSAGE, after: AFTER_MESSAGE },
      ],
      [{ before: '-1', after: '1' }, { before: BEFORE_MESSAGE }],
      [{ before: '1 2 3 4 5 6 7 8 9 10 11', after: '1' }, { before: BEFORE_MESSAGE }],
    ] as const) {
      const refused = await save(people.admin, { ...fields, learnersMayOptOut: 'true' })
      expect(refused.status, JSON.stringify(fields)).toBe(400)
      const { result } = await body<{ result: { error: Record<string, string[]> } }>(refused)
      expect(result.error).toEqual(Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, [v]])))
    }
    expect(await reminderSettings()).toEqual({ plan: DEFAULT_PLAN, learnersMayOptOut: false })

    // the page shown again: the message under its field, tied to it, and what was typed kept
    const page = await render(people.admin, [
      ['before', '7, a week'],
      ['after', '1, 3'],
      ['learnersMayOptOut', 'true'],
    ])
    const before = page.getByRole('textbox', { name: 'Days before the due date' })
    expect(before).toHaveValue('7, a week')
    expect(before).toHaveAttribute('aria-invalid', 'true')
    expect(before).toHaveAccessibleDescription(BEFORE_MESSAGE)
    expect(page.getByRole('textbox', { name: 'Days overdue' })).toHaveValue('1, 3')
    expect(page.getByRole('radio', { name: 'Yes' })).toBeChecked()
  })

  it('lets a coach read the plan with no form controls, and refuses a coach’s save with a toast', async () => {
    await reset()
    const page = await render(people.coach)
    expect(page.getByTestId('plan-sentence')).toHaveTextContent('7 and 1 days before; 1, 3 and 7 days overdue')
    expect(page.getAllByText(/Only admins change/).length).toBeGreaterThan(0)
    expect(page.queryByRole('form')).toBeNull()
    expect(page.queryByRole('textbox')).toBeNull()
    expect(page.queryByRole('radio')).toBeNull()
    expect(page.queryByRole('button')).toBeNull()
    expect(page.getByText('1, 3, 7')).toBeInTheDocument()

    const refused = await save(people.coach, { before: '1', after: '', learnersMayOptOut: 'true' })
    expect(refused.status).toBe(302)
    expect(refused.headers.get('Location')).toBe(PAGE)
    expect(await toastOf(refused)).toMatchObject({ type: 'error', message: 'Only admins can change the reminders.' })
    expect(await reminderSettings()).toEqual({ plan: DEFAULT_PLAN, learnersMayOptOut: false })
    // the service itself refuses a coach with a 403
    expect(await refusal(saveReminderSettings(people.coach, { plan: { before: [1], after: [] } }))).toMatchObject({
      status: 403,
    })
  })

  it('keeps a learner out', async () => {
    const opened = await call(remindersPage.loader as never, PAGE, { headers: { Cookie: people.learner.cookie } })
    expect(opened.status).toBe(302)
    expect(opened.headers.get('Location')).toBe('/courses')
    const posted = await save(people.learner, { before: '1', after: '1' })
    expect(posted.status).toBe(302)
    expect(await toastOf(posted)).toMatchObject({ type: 'error' })
  })
})

async function courseReminders(id: string) {
  const { Course } = await db()
  return (await Course.findByPk(id))!.reminders
}
async function programReminders(id: string) {
  const { Program } = await db()
  return (await Program.findByPk(id))!.reminders
}

describe('a course’s reminders switch', () => {
  const pathOf = (id: string, query = '') => `/admin/course/${id}?tab=labs${query}`
  const post = (who: SignedInPerson, id: string, fields: Record<string, string>) =>
    call(coursePage.action as never, pathOf(id, '&intent=reminders'), {
      method: 'POST',
      headers: { Cookie: who.cookie },
      body: new URLSearchParams(fields),
      params: { courseId: id },
    })
  const renderCourse = (who: SignedInPerson, id: string) =>
    renderRoute(coursePage as RouteModule, pathOf(id), { cookie: who.cookie, pattern: '/admin/course/:courseId' })

  it('is on for a new course; an admin switches it off and on from the page, without JavaScript', async () => {
    const { id } = await makeCourse()
    expect(await courseReminders(id)).toBe(true)
    const page = await renderCourse(people.admin, id)
    const panel = page.getByRole('region', { name: 'Reminders' })
    expect(panel).toHaveTextContent(/On: learners with a due date on this course are mailed reminders/)
    const form = within(panel).getByRole('button', { name: 'Save reminders' }).closest('form')
    expect(form).toHaveAttribute('action', pathOf(id, '&intent=reminders'))
    expect(postedBy(form)).toEqual([['reminders', 'true']])

    const off = await post(people.admin, id, { reminders: 'false' })
    expect(off.status).toBe(302)
    expect(off.headers.get('Location')).toBe(pathOf(id))
    expect(await toastOf(off)).toMatchObject({
      type: 'success',
      message: 'Reminders about due dates are off for this course: its learners get none.',
    })
    expect(await courseReminders(id)).toBe(false)
    expect((await renderCourse(people.admin, id)).getByRole('region', { name: 'Reminders' })).toHaveTextContent(
      /Off: learners get no reminder mails about this course/,
    )
    await post(people.admin, id, { reminders: 'true' })
    expect(await courseReminders(id)).toBe(true)
  })

  it('a coach sees its state with no switch and may not change it; a missing value changes nothing', async () => {
    const { id } = await makeCourse()
    await setCourseReminders(people.admin, id, { reminders: false })
    const panel = (await renderCourse(people.coach, id)).getByRole('region', { name: 'Reminders' })
    expect(panel).toHaveTextContent(/Off: learners get no reminder mails about this course/)
    expect(panel).toHaveTextContent('Only admins switch reminders on or off.')
    expect(within(panel).queryByRole('button')).toBeNull()
    expect(within(panel).queryByRole('radio')).toBeNull()

    const refused = await post(people.coach, id, { reminders: 'true' })
    expect(refused.status).toBe(302)
    expect(await toastOf(refused)).toMatchObject({ type: 'error' })
    expect(await courseReminders(id)).toBe(false)
    expect(await refusal(setCourseReminders(people.coach, id, { reminders: true }))).toMatchObject({ status: 403 })

    const empty = await post(people.admin, id, {})
    expect(await toastOf(empty)).toMatchObject({ type: 'error', message: expect.stringMatching(/reminders/) })
    expect(await courseReminders(id)).toBe(false)
    expect(
      await refusal(setCourseReminders(people.admin, '00000000-0000-4000-8000-000000000000', { reminders: true })),
    ).toMatchObject({ status: 404 })
  })
})

describe('a program’s reminders switch', () => {
  const fields = (courseId: string, more: Record<string, string> = {}) =>
    new URLSearchParams({
      title: 'Reminded Program',
      path: 'p',
      learningPath: 'lp',
      duration: '2 weeks',
      description: 'With due dates.',
      price: '0',
      'courses[0]': courseId,
      ...more,
    })
  const postEdit = (who: SignedInPerson, programId: string, form: URLSearchParams) => {
    const data = new FormData()
    for (const [name, value] of form) data.append(name, value)
    return call(editProgramPage.action as never, `/admin/program/${programId}/edit`, {
      method: 'POST',
      headers: { Cookie: who.cookie },
      body: data,
      params: { programId },
    })
  }

  it('Edit Program holds the switch; switching it off is saved, and left out it is kept', async () => {
    const course = await makeCourse()
    const { id } = await makeProgram([course.id])
    expect(await programReminders(id)).toBe(true)
    const page = await renderRoute(editProgramPage as RouteModule, `/admin/program/${id}/edit`, {
      cookie: people.admin.cookie,
      pattern: '/admin/program/:programId/edit',
    })
    const group = page.getByRole('group', { name: 'Send reminders about due dates' })
    expect(within(group).getByRole('radio', { name: 'On' })).toBeChecked()

    const off = await postEdit(people.admin, id, fields(course.id, { reminders: 'false' }))
    expect(off.status).toBe(302)
    expect(await programReminders(id)).toBe(false)
    // the edit page's other saves, and the /api's calls, that leave it out keep it
    await postEdit(people.admin, id, fields(course.id))
    expect(await programReminders(id)).toBe(false)
    expect((await getProgram(people.coach, id)).reminders).toBe(false)

    // the program page says so to a coach, who has no switch
    const shown = await renderRoute(programPage as RouteModule, `/admin/program/${id}`, {
      cookie: people.coach.cookie,
      pattern: '/admin/program/:programId',
    })
    const panel = shown.getByRole('region', { name: 'Reminders' })
    expect(panel).toHaveTextContent(/Off: learners get no reminder mails about this program/)
    expect(panel).toHaveTextContent('Only admins switch reminders on or off.')
    expect(within(panel).queryByRole('radio')).toBeNull()
  })

  it('the service refuses a coach and keeps the switch', async () => {
    const course = await makeCourse()
    const { id } = await makeProgram([course.id])
    const input = {
      programId: id,
      title: 'P',
      path: 'p',
      learningPath: 'l',
      duration: 'd',
      description: 'x',
      price: 1,
      courses: [course.id],
      reminders: false,
    }
    expect(await refusal(editProgram(people.coach, input))).toMatchObject({ status: 403 })
    expect(await programReminders(id)).toBe(true)
  })
})

describe('the /api’s edit calls', () => {
  it('editCourseDetails takes `reminders`, keeps it when left out, and answers it as documented', async () => {
    const { id } = await makeCourse()
    await assignCourse(people.learner.id, id)
    const image = await makeStoredFile('course_image')
    const edit = (extra: Record<string, unknown>) =>
      call(editCourseRoute.action as never, '/api/category/editCourseDetails', {
        method: 'PUT',
        json: { courseId: id, title: 'Reminded Course', description: 'Due soon.', courseImage: image.key, ...extra },
        token: people.admin.token,
      })
    const off = await edit({ reminders: false })
    expect(off.status).toBe(200)
    const answer = await body<{ course: Record<string, unknown> }>(off)
    expect(answer.course).toMatchObject({ reminders: false, title: 'Reminded Course' })
    const checked = documentedAnswer('PUT', '/api/category/editCourseDetails', 200).safeParse(answer)
    expect(checked.error?.issues ?? []).toEqual([])
    expect(await courseReminders(id)).toBe(false)

    expect((await edit({})).status).toBe(200)
    expect(await courseReminders(id)).toBe(false)
    expect((await edit({ reminders: 'yes please' })).status).toBe(400)
    expect(await courseReminders(id)).toBe(false)
    expect((await edit({ reminders: true })).status).toBe(200)
    expect(await courseReminders(id)).toBe(true)

    // a learner's course has no switch in it
    const asLearner = await body<{ message: Record<string, unknown> }>(
      await call(courseRoute.loader as never, `/api/category/course/${id}`, {
        params: { courseId: id },
        token: people.learner.token,
      }),
    )
    expect(asLearner.message).not.toHaveProperty('reminders')
    expect((await getCourseDetail(people.coach, id)).reminders).toBe(true)

    // a coach is refused
    const refused = await call(editCourseRoute.action as never, '/api/category/editCourseDetails', {
      method: 'PUT',
      json: { courseId: id, title: 'x', description: 'x', courseImage: image.key, reminders: false },
      token: people.coach.token,
    })
    expect(refused.status).toBe(403)
    expect(
      await refusal(
        editCourseDetails(people.coach, {
          courseId: id,
          title: 'x',
          description: 'x',
          courseImage: image.key,
          reminders: false,
        }),
      ),
    ).toMatchObject({ status: 403 })
    expect(await courseReminders(id)).toBe(true)
  })

  it('editProgram takes `reminders` and answers it as documented', async () => {
    const course = await makeCourse()
    const { id } = await makeProgram([course.id])
    const edited = await call(editProgramRoute.action as never, `/api/program/editProgram/${id}`, {
      method: 'PUT',
      json: {
        title: 'P',
        path: 'p',
        learningPath: 'l',
        duration: 'd',
        description: 'x',
        price: 1,
        courses: [course.id],
        reminders: false,
      },
      params: { programId: id },
      token: people.admin.token,
    })
    expect(edited.status).toBe(200)
    const answer = await body<{ program: Record<string, unknown> }>(edited)
    expect(answer.program).toMatchObject({ reminders: false })
    const checked = documentedAnswer('PUT', '/api/program/editProgram/{programId}', 200).safeParse(answer)
    expect(checked.error?.issues ?? []).toEqual([])
    expect(await programReminders(id)).toBe(false)
  })

  it('the OpenAPI document names the field in both calls’ bodies and answers', () => {
    const document = openApiDocument() as unknown as {
      paths: Record<
        string,
        Record<string, { description?: string; requestBody: { content: Record<string, { schema: unknown }> } }>
      >
      components: { schemas: Record<string, { properties: Record<string, { type?: unknown; description?: string }> }> }
    }
    const bodyOf = (path: string) => {
      const schema = document.paths[path].put.requestBody.content['application/json'].schema as {
        properties?: Record<string, { description?: string }>
        $ref?: string
      }
      return schema.properties ?? document.components.schemas[schema.$ref!.split('/').at(-1)!].properties
    }
    for (const path of ['/api/category/editCourseDetails', '/api/program/editProgram/{programId}']) {
      expect(bodyOf(path).reminders?.description, path).toMatch(/reminders about due dates.*left out keeps/)
      expect(document.paths[path].put.description, path).toMatch(/`reminders`/)
    }
    for (const name of ['CourseDetail', 'Program'])
      expect(document.components.schemas[name].properties.reminders, name).toMatchObject({ type: 'boolean' })
  })
})

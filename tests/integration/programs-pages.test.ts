import { within } from '@testing-library/dom'
import { beforeEach, describe, expect, it } from 'vitest'
import { getProgram } from '#app/modules/programs/service.server.ts'
import * as programPage from '#app/routes/admin+/program.$programId.tsx'
import * as editPage from '#app/routes/admin+/program.$programId_.edit.tsx'
import * as rearrangePage from '#app/routes/admin+/program.$programId_.rearrange.tsx'
import { db } from '#db/client.ts'
import { assignCourse, assignProgram, makeCourse, makeProgram, makeStoredFile } from '#tests/factories.ts'
import { renderRoute, type RouteModule } from '#tests/render.tsx'
import { call } from '#tests/requests.ts'
import { signedInPeople, toastOf, type SignedInPerson } from '#tests/sessions.ts'

// The program's pages as a browser without JavaScript uses them: the detail page, Edit Program,
// Rearrange Program and the delete dialog's form.

type Part = [name: string, value: string | File]
let admin: SignedInPerson
let coach: SignedInPerson
let learner: SignedInPerson
let courses: { id: string; title: string }[]
let program: { id: string }
let image: { key: string; name: string }

beforeEach(async () => {
  ;({ admin, coach, learner } = await signedInPeople('admin', 'coach', 'learner'))
  courses = [
    await makeCourse({ title: 'Pages Alpha' }),
    await makeCourse({ title: 'Pages Beta' }),
    await makeCourse({ title: 'Pages Gamma' }),
  ]
  program = await makeProgram([courses[0].id, courses[1].id])
  image = await makeStoredFile('program_image', { uploadedBy: admin.id })
  const { Program } = await db()
  await Program.update(
    {
      title: 'Pages Program',
      imageKey: image.key,
      description: 'Two courses.',
      path: 'p',
      learningPath: 'lp',
      duration: '2 weeks',
      price: '10.00',
    },
    { where: { id: program.id } },
  )
})

const path = () => `/admin/program/${program.id}`
const render = (route: RouteModule, url: string, cookie = admin.cookie, form?: Part[]) =>
  renderRoute(route, url, {
    cookie,
    form,
    pattern: url.split('?')[0].replace(/^\/admin\/program\/[^/]+/, '/admin/program/:programId'),
  })
function post(route: { action: unknown }, url: string, parts: Part[], cookie = admin.cookie) {
  const form = new FormData()
  for (const [name, value] of parts) form.append(name, value)
  return call(route.action as never, url, {
    method: 'POST',
    body: form,
    headers: { Cookie: cookie },
    params: { programId: program.id },
  })
}
const open = (route: { loader: unknown }, url: string, cookie = admin.cookie, programId = program.id) =>
  call(route.loader as never, url, { headers: { Cookie: cookie }, params: { programId } })

describe('the program page', () => {
  it('shows the program, its courses in order and its learners with links to their pages', async () => {
    await assignProgram(learner.id, program.id)
    const page = await render(programPage as RouteModule, path())
    expect(page.getByRole('heading', { level: 1, name: 'Pages Program' })).toBeInTheDocument()
    const list = page.getByRole('list', { name: 'Courses in order' })
    expect(
      within(list)
        .getAllByRole('link')
        .map((link) => link.textContent),
    ).toEqual(['Pages Alpha', 'Pages Beta'])
    expect(page.getByRole('link', { name: `${learner.firstName} ${learner.lastName}` })).toHaveAttribute(
      'href',
      `/admin/user/${learner.id}`,
    )
    for (const name of ['Edit Program', 'Rearrange Courses', 'Delete Program'])
      expect(page.getByRole('link', { name })).toBeInTheDocument()
  })

  it('lets a coach read it without the edit links, keeps a learner out and answers an unknown id with 404', async () => {
    const page = await render(programPage as RouteModule, path(), coach.cookie)
    expect(page.getByRole('heading', { level: 1, name: 'Pages Program' })).toBeInTheDocument()
    for (const name of ['Edit Program', 'Rearrange Courses', 'Delete Program'])
      expect(page.queryByRole('link', { name })).not.toBeInTheDocument()
    expect((await open(programPage, path(), learner.cookie)).status).toBe(302)
    const missing = await open(programPage, '/admin/program/x', admin.cookie, '00000000-0000-4000-8000-000000000000')
    expect(missing.status).toBe(404)
  })

  it('refuses the delete while learners are assigned, saying how many, and deletes once the admin confirms', async () => {
    await assignCourse(learner.id, courses[0].id)
    await assignProgram(learner.id, program.id)
    const dialog = await render(programPage as RouteModule, `${path()}?delete`, admin.cookie, [['intent', 'delete']])
    expect(dialog.getByRole('alert')).toHaveTextContent('This program is assigned to 1 learner.')
    expect(dialog.getByRole('checkbox', { name: /Unassign its learner and delete the program/ })).not.toBeChecked()

    const refused = await post(programPage, `${path()}?delete`, [['intent', 'delete']])
    expect(refused.status).toBe(409)
    expect((await getProgram(admin, program.id)).learners).toHaveLength(1)

    const coachTried = await post(
      programPage,
      `${path()}?delete`,
      [
        ['intent', 'delete'],
        ['confirmUnassign', 'on'],
      ],
      coach.cookie,
    )
    expect(coachTried.status).toBe(302)
    expect(await toastOf(coachTried)).toMatchObject({ type: 'error' })

    const deleted = await post(programPage, `${path()}?delete`, [
      ['intent', 'delete'],
      ['confirmUnassign', 'on'],
    ])
    expect(deleted.status).toBe(302)
    expect(deleted.headers.get('Location')).toBe('/admin/programs')
    expect(await toastOf(deleted)).toMatchObject({ type: 'success', message: 'Program deleted.' })
    const { Program, CourseAssignment } = await db()
    expect(await Program.findByPk(program.id)).toBeNull()
    expect(await CourseAssignment.count({ where: { userId: learner.id, courseId: courses[0].id } })).toBe(1)
  })
})

describe('Edit Program', () => {
  const fields = (title: string): Part[] => [
    ['title', title],
    ['path', 'data'],
    ['learningPath', 'lp'],
    ['duration', '3 weeks'],
    ['description', 'Edited.'],
    ['price', '20'],
  ]

  it('starts from the program: its fields, its courses ticked and listed first in their order, its image kept', async () => {
    const page = await render(editPage as RouteModule, `${path()}/edit`)
    expect(page.getByRole('heading', { level: 1, name: 'Edit Program' })).toBeInTheDocument()
    expect(page.getByRole('textbox', { name: 'Program Name' })).toHaveValue('Pages Program')
    expect(page.getByRole('spinbutton', { name: 'Price' })).toHaveValue(10)
    const boxes = within(page.getByRole('group', { name: 'Courses' })).getAllByRole('checkbox')
    expect(boxes.slice(0, 2).map((box) => [box.getAttribute('value'), (box as HTMLInputElement).checked])).toEqual([
      [courses[0].id, true],
      [courses[1].id, true],
    ])
    expect(boxes.find((box) => box.getAttribute('value') === courses[2].id)).not.toBeChecked()
    // the current image rides along, so a form saved without choosing another keeps it
    const form = page.getByRole('textbox', { name: 'Program Name' }).closest('form')
    const kept = form?.querySelector<HTMLInputElement>('input[type="hidden"][name="programImage"]')
    expect(JSON.parse(kept?.value ?? '{}')).toMatchObject({ key: image.key })
  })

  it('shows the new form’s messages beside their fields and keeps what was typed', async () => {
    const page = await render(editPage as RouteModule, `${path()}/edit`, admin.cookie, [
      ...fields(''),
      ['courses[0]', courses[1].id],
    ])
    const name = page.getByRole('textbox', { name: 'Program Name' })
    expect(name).toBeInvalid()
    expect(name).toHaveAccessibleDescription('Program Name is required field.')
    expect(page.getByRole('textbox', { name: 'Program Duration' })).toHaveValue('3 weeks')
    expect((await getProgram(admin, program.id)).title).toBe('Pages Program')
  })

  it('saves, keeps the current image when no other is chosen, and goes back to the program with a message', async () => {
    const response = await post(editPage, `${path()}/edit`, [
      ...fields('Edited Program'),
      ['courses[0]', courses[2].id],
      ['courses[1]', courses[0].id],
      ['programImage', JSON.stringify({ key: image.key, name: image.name, link: '' })],
      ['courseImage', new File([], '', { type: 'application/octet-stream' })],
    ])
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe(path())
    expect(await toastOf(response)).toMatchObject({ type: 'success', message: 'Program updated.' })
    const edited = await getProgram(admin, program.id)
    expect(edited.title).toBe('Edited Program')
    expect(edited.courses.map((c) => c._id)).toEqual([courses[2].id, courses[0].id])
    expect(edited.programImage?.key).toBe(image.key)
  })
})

describe('Rearrange Program', () => {
  it('takes the new order as position numbers, without JavaScript, and goes back to the program', async () => {
    const page = await render(rearrangePage as RouteModule, `${path()}/rearrange`)
    expect(page.getByRole('spinbutton', { name: 'Position of Pages Alpha' })).toHaveValue(1)
    const response = await post(rearrangePage, `${path()}/rearrange`, [
      [`position:${courses[0].id}`, '2'],
      [`position:${courses[1].id}`, '1'],
    ])
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe(path())
    expect((await getProgram(admin, program.id)).courses.map((c) => c._id)).toEqual([courses[1].id, courses[0].id])
  })
})

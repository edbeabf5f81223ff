import { within } from '@testing-library/dom'
import { beforeAll, describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { storage } from '#app/modules/files/storage.server.ts'
import { listPrograms } from '#app/modules/programs/service.server.ts'
import * as addDocuments from '#app/routes/admin+/addDocuments.tsx'
import * as addScenarios from '#app/routes/admin+/addScenarios.tsx'
import * as newProgram from '#app/routes/admin+/newProgram.tsx'
import * as programs from '#app/routes/admin+/programs.tsx'
import * as addCourseDocumentRoute from '#app/routes/api+/category.addCourseDocument.ts'
import * as addCourseImageRoute from '#app/routes/api+/category.addCourseImage.ts'
import { db } from '#db/client.ts'
import { makeCourse } from '#tests/factories.ts'
import { elfBytes, pdfBytes, pngBytes } from '#tests/fixtures/files.ts'
import { renderRoute, type RouteModule } from '#tests/render.tsx'
import { body, call } from '#tests/requests.ts'
import { toastOf, signedInPeople, type SignedInPerson } from '#tests/sessions.ts'

// The admin pages that add documents, scenarios and programs, and the Program List, driven the way
// a browser drives them: multipart posts with the file (no JavaScript) or with the JSON of a file
// uploaded before (JavaScript), and a session cookie from the sign-in page.

type Reply = { result: { status?: string; error?: Record<string, string[]>; initialValue?: Record<string, unknown> } }
type FileInfo = { key: string; link: string; name: string }
type Part = [name: string, value: string | File]

let session: Record<'admin' | 'coach' | 'learner', SignedInPerson>
let sql: { id: string; title: string }
let modelling: { id: string; title: string }
let warehouse: { id: string; title: string }

beforeAll(async () => {
  session = await signedInPeople('admin', 'coach', 'learner')
  sql = await makeCourse({ title: 'Admin Pages SQL' })
  modelling = await makeCourse({ title: 'Admin Pages Modelling' })
  warehouse = await makeCourse({ title: 'Admin Pages Warehouse' })
})

const pdf = async (name = 'notes.pdf') =>
  new File([new Uint8Array(await pdfBytes())], name, { type: 'application/pdf' })
const png = (name = 'cover.png') => new File([new Uint8Array(pngBytes())], name, { type: 'image/png' })
/** An executable renamed to look harmless. */
const disguised = (name: string, type: string) => new File([new Uint8Array(elfBytes())], name, { type })
/** What a browser sends for a file input left empty. */
const noFile = () => new File([], '', { type: 'application/octet-stream' })

/** A page's form posted as multipart, in the order of its fields, as a browser posts it. */
function post(route: { action: unknown }, path: string, parts: Part[], cookie = session.admin.cookie) {
  const form = new FormData()
  for (const [name, value] of parts) form.append(name, value)
  return call(route.action as never, path, { method: 'POST', body: form, headers: { Cookie: cookie } })
}
const open = (route: { loader: unknown }, path: string, cookie = session.admin.cookie) =>
  call(route.loader as never, path, { headers: { Cookie: cookie } })

/** A file uploaded through the upload call first, as FileUpload does with JavaScript on. */
async function uploaded(route: { action: unknown }, field: string, file: File): Promise<FileInfo> {
  const form = new FormData()
  form.append(field, file)
  const response = await call(route.action as never, '/x', { method: 'POST', body: form, token: session.admin.token })
  expect(response.status).toBe(200)
  return (await body<{ fileInfo: FileInfo }>(response)).fileInfo
}

/**
 * The page as the server renders it before any JavaScript runs, for the admin unless told: its loader
 * (and, given a form, its action first) and then the component. What a browser without JavaScript gets.
 */
const renderPage = (page: RouteModule, path: string, options: { cookie?: string; form?: Part[] } = {}) =>
  renderRoute(page, path, { cookie: session.admin.cookie, ...options })

/** The form a field belongs to. */
const formOf = (field: HTMLElement) => field.closest('form') as HTMLFormElement

/** The names of a form's fields in the order they are posted (a multipart body keeps that order). */
const postedOrder = (form: HTMLFormElement) =>
  Array.from(form.elements).flatMap((element) => {
    const name = element.getAttribute('name')
    return name ? [name] : []
  })

/** Every field of a form a person fills in has a name a screen reader says (a label, mostly). */
function expectEveryFieldNamed(form: HTMLFormElement) {
  const fields = Array.from(form.querySelectorAll('input:not([type="hidden"]), select, textarea'))
  expect(fields.length).toBeGreaterThan(0)
  for (const field of fields) expect(field, field.outerHTML).toHaveAccessibleName()
}

async function storedFileCount() {
  const { StoredFile } = await db()
  return StoredFile.count()
}

async function entriesOf(courseId: string) {
  const { ContentEntry, StoredFile } = await db()
  const rows = await ContentEntry.findAll({
    where: { courseId },
    include: [{ model: StoredFile, as: 'file' }],
    order: [
      ['kind', 'ASC'],
      ['orderId', 'ASC'],
    ],
  })
  return rows.map((row) => ({
    kind: row.kind,
    title: row.title,
    orderId: row.orderId,
    purpose: row.file?.purpose,
    uploadedBy: row.file?.uploadedBy,
    fileKey: row.fileKey,
  }))
}

describe('Program List, before any program exists', () => {
  it('says No Data Found', async () => {
    const page = await renderPage(programs as RouteModule, '/admin/programs')
    expect(page.getByRole('heading', { level: 1, name: 'Program List' })).toBeInTheDocument()
    expect(page.getByText('No Data Found')).toBeInTheDocument()
  })
})

describe('Add Documents and Add Scenarios', () => {
  it('render a form that works without JavaScript, the course preselected and every input labelled', async () => {
    const page = await renderPage(addDocuments as RouteModule, `/admin/addDocuments?courseId=${sql.id}`)
    expect(page.getByRole('heading', { level: 1, name: 'Add Documents' })).toBeInTheDocument()
    const course = page.getByRole('combobox', { name: 'Course' })
    const form = formOf(course)
    expect(form).toHaveAttribute('method', 'post')
    expect(form).toHaveAttribute('enctype', 'multipart/form-data')
    expect(form).toHaveFormValues({ documentType: 'Document', courseId: sql.id })
    expect(within(course).getByRole('option', { name: 'Select a course' })).toHaveValue('')
    expect(course).toHaveDisplayValue(sql.title)
    const file = page.getByLabelText('Document')
    expect(file).toHaveAttribute('type', 'file')
    expect(file).toHaveAttribute('name', 'courseDocument')
    expect(file).toHaveAttribute('accept', '.csv,.pdf,.docx,.ppt,.pptx')
    expect(file).toHaveAccessibleDescription(expect.stringContaining('csv, pdf, docx, ppt or pptx, up to 50 MB'))
    // what comes before the file in the body can still be read when the file is refused
    expect(postedOrder(form)).toEqual(['documentType', 'courseId', 'courseDocument'])
    expectEveryFieldNamed(form)
    expect(page.getByRole('link', { name: 'Cancel' })).toHaveAttribute('href', `/admin/course/${sql.id}?tab=documents`)

    const scenarios = await renderPage(addScenarios as RouteModule, '/admin/addScenarios')
    expect(scenarios.getByRole('heading', { level: 1, name: 'Add Scenarios' })).toBeInTheDocument()
    const scenarioCourse = scenarios.getByRole('combobox', { name: 'Course' })
    expect(formOf(scenarioCourse)).toHaveFormValues({ documentType: 'Scenarios', courseId: '' })
    expect(scenarioCourse).toHaveDisplayValue('Select a course')
  })

  it('show a refused file’s message beside the file and keep the course, without JavaScript', async () => {
    const page = await renderPage(addScenarios as RouteModule, '/admin/addScenarios', {
      form: [
        ['documentType', 'Scenarios'],
        ['courseId', modelling.id],
        ['courseDocument', disguised('case.pdf', 'application/pdf')],
      ],
    })
    const file = page.getByLabelText('Scenario')
    expect(file).toBeInvalid()
    expect(file).toHaveAccessibleDescription(
      expect.stringMatching(/Only csv, pdf, docx, ppt and pptx files are accepted\.$/),
    )
    expect(page.getByRole('combobox', { name: 'Course' })).toHaveDisplayValue(modelling.title)

    const empty = await renderPage(addScenarios as RouteModule, '/admin/addScenarios', {
      form: [
        ['documentType', 'Scenarios'],
        ['courseId', ''],
        ['courseDocument', noFile()],
      ],
    })
    expect(empty.getByRole('combobox', { name: 'Course' })).toHaveAccessibleDescription('Please select a course')
    expect(empty.getByLabelText('Scenario')).toHaveAccessibleDescription(
      expect.stringMatching(/Please Upload a document$/),
    )
  })

  it('preselect the course named by ?courseId= and offer every course', async () => {
    const response = await open(addDocuments, `/admin/addDocuments?courseId=${sql.id}`)
    expect(response.status).toBe(200)
    const data = await body<{ courses: { _id: string; title: string }[]; courseId: string }>(response)
    expect(data.courseId).toBe(sql.id)
    expect(data.courses).toEqual(
      expect.arrayContaining([
        { _id: sql.id, title: sql.title },
        { _id: modelling.id, title: modelling.title },
      ]),
    )
    // an unknown or malformed course preselects nothing rather than failing
    for (const wrong of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const other = await body<{ courseId: string }>(await open(addScenarios, `/admin/addScenarios?courseId=${wrong}`))
      expect(other.courseId).toBe('')
    }
  })

  it('add a document posted with the form (no JavaScript) and go to the documents tab with a toast', async () => {
    const course = await makeCourse()
    const response = await post(addDocuments, '/admin/addDocuments', [
      ['documentType', 'Document'],
      ['courseId', course.id],
      ['courseDocument', await pdf('week-1.pdf')],
    ])
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe(`/admin/course/${course.id}?tab=documents`)
    expect(await toastOf(response)).toMatchObject({ type: 'success', message: 'Document added.' })
    expect(await entriesOf(course.id)).toEqual([
      {
        kind: 'document',
        title: 'week-1.pdf',
        orderId: 0,
        purpose: 'document',
        uploadedBy: session.admin.id,
        fileKey: expect.any(String),
      },
    ])
  })

  it('add a scenario uploaded before (JavaScript) and go to the scenarios tab with a toast', async () => {
    const course = await makeCourse()
    const first = await uploaded(addCourseDocumentRoute, 'courseDocument', await pdf('case-1.pdf'))
    const response = await post(addScenarios, '/admin/addScenarios', [
      ['documentType', 'Scenarios'],
      ['courseId', course.id],
      ['document', JSON.stringify(first)],
    ])
    expect(response.headers.get('Location')).toBe(`/admin/course/${course.id}?tab=scenarios`)
    expect(await toastOf(response)).toMatchObject({ type: 'success', message: 'Scenario added.' })

    // the page decides the type: a hidden field edited to "Document" still files a scenario, next in line
    const second = await uploaded(addCourseDocumentRoute, 'courseDocument', await pdf('case-2.pdf'))
    const again = await post(addScenarios, '/admin/addScenarios', [
      ['documentType', 'Document'],
      ['courseId', course.id],
      ['document', JSON.stringify(second)],
    ])
    expect(again.headers.get('Location')).toBe(`/admin/course/${course.id}?tab=scenarios`)
    expect(await entriesOf(course.id)).toEqual([
      expect.objectContaining({ kind: 'scenario', title: 'case-1.pdf', orderId: 0, fileKey: first.key }),
      expect.objectContaining({ kind: 'scenario', title: 'case-2.pdf', orderId: 1, fileKey: second.key }),
    ])
  })

  it('answer a form with neither course nor file with both of the old client’s messages', async () => {
    const before = await storedFileCount()
    const response = await post(addDocuments, '/admin/addDocuments', [
      ['documentType', 'Document'],
      ['courseId', ''],
      ['courseDocument', noFile()],
    ])
    expect(response.status).toBe(400)
    const { result } = await body<Reply>(response)
    expect(result.error?.courseId).toEqual(['Please select a course'])
    expect(result.error?.document).toEqual(['Please Upload a document'])
    expect(await storedFileCount()).toBe(before)
  })

  it('keep the chosen course and ask for the file when none came', async () => {
    const response = await post(addScenarios, '/admin/addScenarios', [
      ['documentType', 'Scenarios'],
      ['courseId', sql.id],
      ['courseDocument', noFile()],
    ])
    expect(response.status).toBe(400)
    const { result } = await body<Reply>(response)
    expect(result.error).toEqual({ document: ['Please Upload a document'] })
    expect(result.initialValue?.courseId).toBe(sql.id)
  })

  it('delete the file a refused form brought, so nothing is left behind', async () => {
    const before = await storedFileCount()
    const response = await post(addDocuments, '/admin/addDocuments', [
      ['documentType', 'Document'],
      ['courseId', ''],
      ['courseDocument', await pdf()],
    ])
    expect(response.status).toBe(400)
    expect((await body<Reply>(response)).result.error).toEqual({ courseId: ['Please select a course'] })
    expect(await storedFileCount()).toBe(before)

    // a course that vanished in the meantime: the service refuses, the file goes too
    const gone = await post(addDocuments, '/admin/addDocuments', [
      ['documentType', 'Document'],
      ['courseId', '00000000-0000-4000-8000-000000000000'],
      ['courseDocument', await pdf()],
    ])
    expect(gone.status).toBe(404)
    expect((await body<Reply>(gone)).result.error?.['']).toEqual(['Course not found.'])
    expect(await storedFileCount()).toBe(before)
  })

  it('refuse a file of the wrong type with the 415 message beside the file, keep the course, store nothing', async () => {
    const course = await makeCourse()
    const before = await storedFileCount()
    const response = await post(addDocuments, '/admin/addDocuments', [
      ['documentType', 'Document'],
      ['courseId', course.id],
      ['courseDocument', disguised('slides.pdf', 'application/pdf')],
    ])
    expect(response.status).toBe(415)
    const { result } = await body<Reply>(response)
    // shown beside the file field, whichever way the file came
    expect(result.error?.document).toEqual(['Only csv, pdf, docx, ppt and pptx files are accepted.'])
    expect(result.initialValue?.courseId).toBe(course.id)
    expect(await storedFileCount()).toBe(before)
    expect(await entriesOf(course.id)).toEqual([])
  })

  it('refuse a file uploaded as something else than a course document', async () => {
    const course = await makeCourse()
    const image = await uploaded(addCourseImageRoute, 'courseImage', png())
    const response = await post(addDocuments, '/admin/addDocuments', [
      ['documentType', 'Document'],
      ['courseId', course.id],
      ['document', JSON.stringify(image)],
    ])
    expect(response.status).toBe(400)
    expect((await body<Reply>(response)).result.error?.document).toEqual(['Please Upload a document'])
    expect(await entriesOf(course.id)).toEqual([])
    // a file it did not bring is not the form's to delete
    expect(await storage().get(image.key)).toBeDefined()
  })

  it('send a coach back with a toast and a learner out of the admin area', async () => {
    for (const route of [addDocuments, addScenarios]) {
      const path = route === addDocuments ? '/admin/addDocuments' : '/admin/addScenarios'
      const coach = await open(route, path, session.coach.cookie)
      expect(coach.status).toBe(302)
      expect(coach.headers.get('Location')).toBe('/admin/courses')
      expect(await toastOf(coach)).toMatchObject({
        type: 'error',
        message: 'Only admins can change courses and their contents.',
      })
      const learner = await open(route, path, session.learner.cookie)
      expect(learner.headers.get('Location')).toBe('/courses')
      const anonymous = await call(route.loader as never, path)
      expect(anonymous.headers.get('Location')).toBe(`/sign-in?redirectTo=${encodeURIComponent(path)}`)
    }

    const course = await makeCourse()
    const before = await storedFileCount()
    for (const role of ['coach', 'learner'] as const) {
      const response = await post(
        addDocuments,
        '/admin/addDocuments',
        [
          ['documentType', 'Document'],
          ['courseId', course.id],
          ['courseDocument', await pdf()],
        ],
        session[role].cookie,
      )
      expect(response.status).toBe(302)
      expect(response.headers.get('Location')).toBe(role === 'coach' ? '/admin/courses' : '/courses')
    }
    expect(await storedFileCount()).toBe(before)
    expect(await entriesOf(course.id)).toEqual([])
  })
})

/** The fields of a complete Add New Program form, before the courses and the image. */
const programFields = (title: string): Part[] => [
  ['title', title],
  ['path', 'data-engineering'],
  ['learningPath', 'From SQL to the warehouse'],
  ['duration', '12 weeks'],
  ['description', 'Three courses that build on each other.'],
  ['price', '499.50'],
]

async function programNamed(title: string) {
  return (await listPrograms(SYSTEM)).rows.find((program) => program.title === title)
}

describe('Add New Program', () => {
  it('renders a form that works without JavaScript: every field labelled, courses in the order listed', async () => {
    const page = await renderPage(newProgram as RouteModule, '/admin/newProgram')
    expect(page.getByRole('heading', { level: 1, name: 'Add New Program' })).toBeInTheDocument()
    for (const label of [
      'Program Name',
      'Program Path',
      'Program Learning Path',
      'Program Duration',
      'Program Description',
      'Price',
    ])
      expect(page.getByRole(label === 'Price' ? 'spinbutton' : 'textbox', { name: label })).toBeInTheDocument()
    const form = formOf(page.getByRole('textbox', { name: 'Program Name' }))
    expect(form).toHaveAttribute('method', 'post')
    expect(form).toHaveAttribute('enctype', 'multipart/form-data')
    expectEveryFieldNamed(form)

    // each checkbox carries its place in the list, so the ticked ones arrive in the order listed
    const { courses } = await body<{ courses: { _id: string; title: string }[] }>(
      await open(newProgram, '/admin/newProgram'),
    )
    const group = page.getByRole('group', { name: 'Courses' })
    expect(group).toHaveAccessibleDescription(
      'Tick the courses the program bundles. The program keeps them in the order listed here.',
    )
    const boxes = within(group).getAllByRole('checkbox')
    expect(boxes.map((box) => [box.getAttribute('name'), box.getAttribute('value')])).toEqual(
      courses.map((course, index) => [`courses[${index}]`, course._id]),
    )
    expect(within(group).getByRole('checkbox', { name: sql.title })).toHaveAttribute('value', sql.id)
    const file = page.getByLabelText('Program Image (optional)')
    expect(file).toHaveAttribute('type', 'file')
    expect(file).toHaveAttribute('name', 'courseImage')
    // the picker tells the rules of the upload it goes through (addCourseImage)
    expect(file).toHaveAttribute('accept', '.png,.gif,.jpg,.jpeg')
    expect(file).toHaveAccessibleDescription(expect.stringContaining('png, gif or jpeg, up to 5 MB'))
    // the image is the last field, so a refused image leaves every other field readable
    expect(postedOrder(form).at(-1)).toBe('courseImage')
  })

  it('shows the old client’s messages beside their fields and keeps what was typed and ticked, without JavaScript', async () => {
    const page = await renderPage(newProgram as RouteModule, '/admin/newProgram', {
      form: [
        ...programFields('Kept Program Title').filter(([name]) => name !== 'price'),
        ['price', ''],
        ['courses[5]', modelling.id],
        ['courseImage', noFile()],
      ],
    })
    const price = page.getByRole('spinbutton', { name: 'Price' })
    expect(price).toBeInvalid()
    expect(price).toHaveAccessibleDescription('Price is required field.')
    expect(page.getByRole('textbox', { name: 'Program Name' })).toHaveValue('Kept Program Title')
    expect(page.getByRole('checkbox', { name: modelling.title })).toBeChecked()
    expect(page.getByRole('checkbox', { name: sql.title })).not.toBeChecked()

    const none = await renderPage(newProgram as RouteModule, '/admin/newProgram', {
      form: [...programFields('No Courses Title'), ['courseImage', noFile()]],
    })
    expect(none.getByRole('group', { name: 'Courses' })).toHaveAccessibleDescription(
      expect.stringMatching(/Please select a course\.$/),
    )
  })

  it('offers every course to choose from', async () => {
    const response = await open(newProgram, '/admin/newProgram')
    expect(response.status).toBe(200)
    const { courses } = await body<{ courses: { _id: string; title: string }[] }>(response)
    expect(courses).toEqual(expect.arrayContaining([{ _id: warehouse.id, title: warehouse.title }]))
  })

  it('creates a program from a form posted with its image (no JavaScript), courses in the order listed', async () => {
    // the checkboxes carry their place in the list; only the ticked ones are posted
    const response = await post(newProgram, '/admin/newProgram', [
      ...programFields('Program Without Script'),
      ['courses[0]', modelling.id],
      ['courses[2]', sql.id],
      ['courseImage', png('program.png')],
    ])
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe('/admin/programs')
    expect(await toastOf(response)).toMatchObject({ type: 'success', message: 'Program created.' })
    const program = await programNamed('Program Without Script')
    expect(program).toMatchObject({
      path: 'data-engineering',
      learningPath: 'From SQL to the warehouse',
      duration: '12 weeks',
      description: 'Three courses that build on each other.',
      price: 499.5,
      courses: [
        { _id: modelling.id, title: modelling.title },
        { _id: sql.id, title: sql.title },
      ],
    })
    expect(program?.programImage?.name).toBe('program.png')
    const { StoredFile } = await db()
    expect(await StoredFile.findByPk(program!.programImage!.key)).toMatchObject({
      purpose: 'course_image',
      uploadedBy: session.admin.id,
    })
  })

  it('creates a program with an image uploaded before and the order the admin chose (JavaScript)', async () => {
    const image = await uploaded(addCourseImageRoute, 'courseImage', png('chosen.png'))
    // the hidden inputs follow the sortable list, whatever order they arrive in
    const response = await post(newProgram, '/admin/newProgram', [
      ...programFields('Program With Script'),
      ['courses[1]', sql.id],
      ['courses[0]', warehouse.id],
      ['courses[2]', modelling.id],
      ['programImage', JSON.stringify(image)],
      ['courseImage', noFile()],
    ])
    expect(response.headers.get('Location')).toBe('/admin/programs')
    const program = await programNamed('Program With Script')
    expect(program?.courses.map((c) => c._id)).toEqual([warehouse.id, sql.id, modelling.id])
    expect(program?.programImage?.key).toBe(image.key)
  })

  it('creates a program without an image: the image is optional', async () => {
    const response = await post(newProgram, '/admin/newProgram', [
      ...programFields('Program Without Image'),
      ['courses[0]', sql.id],
      ['courseImage', noFile()],
    ])
    expect(response.headers.get('Location')).toBe('/admin/programs')
    expect(await programNamed('Program Without Image')).toMatchObject({
      programImage: null,
      courses: [{ _id: sql.id }],
    })
  })

  it('answers an empty form with every one of the old client’s messages and deletes the image it brought', async () => {
    const before = await storedFileCount()
    const response = await post(newProgram, '/admin/newProgram', [
      ['title', ''],
      ['path', ' '],
      ['learningPath', ''],
      ['duration', ''],
      ['description', ''],
      ['price', ''],
      ['courseImage', png()],
    ])
    expect(response.status).toBe(400)
    const { result } = await body<Reply>(response)
    expect(result.error).toEqual({
      title: ['Program Name is required field.'],
      path: ['Program Path is required field.'],
      learningPath: ['Program Learning Path is required field.'],
      duration: ['Program Duration is required field.'],
      description: ['Program Description is required field.'],
      price: ['Price is required field.'],
      courses: ['Please select a course.'],
    })
    expect(await storedFileCount()).toBe(before)
  })

  it('keeps what was typed and the chosen courses when one field is missing', async () => {
    const response = await post(newProgram, '/admin/newProgram', [
      ...programFields('Program Missing Price').filter(([name]) => name !== 'price'),
      ['price', 'free'],
      ['courses[3]', sql.id],
      ['courses[1]', warehouse.id],
      ['courseImage', noFile()],
    ])
    expect(response.status).toBe(400)
    const { result } = await body<Reply>(response)
    expect(result.error).toEqual({ price: ['Price must be a number.'] })
    expect(result.initialValue).toMatchObject({ title: 'Program Missing Price', courses: [warehouse.id, sql.id] })
    expect(await programNamed('Program Missing Price')).toBeUndefined()
  })

  it('refuses a course that does not exist', async () => {
    const response = await post(newProgram, '/admin/newProgram', [
      ...programFields('Program Of Nothing'),
      ['courses[0]', '00000000-0000-4000-8000-000000000000'],
    ])
    expect(response.status).toBe(400)
    expect((await body<Reply>(response)).result.error?.courses).toEqual(['Please select a course.'])
    expect(await programNamed('Program Of Nothing')).toBeUndefined()
  })

  it('refuses an image of the wrong type with the 415 message beside it, keeps the fields, stores nothing', async () => {
    const before = await storedFileCount()
    const response = await post(newProgram, '/admin/newProgram', [
      ...programFields('Program Bad Image'),
      ['courses[0]', modelling.id],
      ['courses[1]', sql.id],
      ['courseImage', disguised('cover.png', 'image/png')],
    ])
    expect(response.status).toBe(415)
    const { result } = await body<Reply>(response)
    expect(result.error?.programImage).toEqual(['Only png, gif and jpeg images are accepted.'])
    expect(result.initialValue).toMatchObject({
      title: 'Program Bad Image',
      price: '499.50',
      courses: [modelling.id, sql.id],
    })
    expect(await storedFileCount()).toBe(before)
    expect(await programNamed('Program Bad Image')).toBeUndefined()
  })

  it('sends a coach back to the Program List with a toast and a learner out of the admin area', async () => {
    const coach = await open(newProgram, '/admin/newProgram', session.coach.cookie)
    expect(coach.headers.get('Location')).toBe('/admin/programs')
    expect(await toastOf(coach)).toMatchObject({ type: 'error', message: expect.stringMatching(/Only admins/) })
    expect((await open(newProgram, '/admin/newProgram', session.learner.cookie)).headers.get('Location')).toBe(
      '/courses',
    )
    for (const role of ['coach', 'learner'] as const) {
      const response = await post(
        newProgram,
        '/admin/newProgram',
        [...programFields(`Program By ${role}`), ['courses[0]', sql.id]],
        session[role].cookie,
      )
      expect(response.status).toBe(302)
      expect(response.headers.get('Location')).toBe(role === 'coach' ? '/admin/programs' : '/courses')
      expect(await programNamed(`Program By ${role}`)).toBeUndefined()
    }
  })
})

describe('Program List', () => {
  type ListData = {
    rows: { _id: string; title: string; description: string; image: string | null; courses: string[] }[]
    total: number
    query: { page: number; size: number; q: string }
    canEdit: boolean
  }
  const list = async (search: string, cookie = session.admin.cookie) =>
    body<ListData>(await open(programs, `/admin/programs${search}`, cookie))

  beforeAll(async () => {
    // nine of one family (past the first page of 7) and one other, made through the page's action
    for (const n of [3, 1, 9, 2, 8, 4, 7, 5, 6]) {
      const response = await post(newProgram, '/admin/newProgram', [
        ...programFields(`Zephyr Track ${n}`),
        ['courses[0]', warehouse.id],
        ['courses[1]', sql.id],
        ...(n === 1 ? ([['courseImage', png()]] as Part[]) : []),
      ])
      expect(response.status).toBe(302)
    }
    await post(newProgram, '/admin/newProgram', [...programFields('Lone Program'), ['courses[0]', sql.id]])
  })

  it('searches by name whatever the case and pages 7 at a time, sorted by name', async () => {
    const first = await list('?q=zEPHYR')
    expect(first.total).toBe(9)
    expect(first.rows.map((r) => r.title)).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => `Zephyr Track ${n}`))
    expect(first.query).toMatchObject({ page: 1, size: 7, q: 'zEPHYR' })

    const second = await list('?q=zephyr&page=2')
    expect(second.total).toBe(9)
    expect(second.rows.map((r) => r.title)).toEqual(['Zephyr Track 8', 'Zephyr Track 9'])

    const wide = await list('?q=ZEPHYR&size=14&sort=title&dir=desc')
    expect(wide.rows).toHaveLength(9)
    expect(wide.rows[0].title).toBe('Zephyr Track 9')

    expect((await list('?q=no such program')).rows).toEqual([])
    // the search box's text is taken literally, LIKE's wildcards too
    expect((await list('?q=%25')).total).toBe(0)
  })

  it('shows each program’s image, description and courses in order', async () => {
    const { rows } = await list('?q=zephyr track 1')
    expect(rows).toEqual([
      {
        _id: expect.any(String),
        title: 'Zephyr Track 1',
        description: 'Three courses that build on each other.',
        image: expect.stringMatching(/^\/files\//),
        courses: [warehouse.title, sql.title],
      },
    ])
    expect((await list('?q=zephyr track 2')).rows[0].image).toBeNull()
  })

  it('renders image, name and description, the button for admins only, and rows that open the program', async () => {
    const page = await renderPage(programs as RouteModule, '/admin/programs?q=zephyr')
    const table = page.getByRole('table', { name: 'Program List' })
    for (const header of ['Image', 'Name', 'Description'])
      expect(within(table).getByRole('columnheader', { name: new RegExp(`^${header}`) })).toBeInTheDocument()
    const [, row] = within(table).getAllByRole('row')
    expect(within(row).getByText('Zephyr Track 1')).toBeInTheDocument()
    expect(within(row).getByText('Three courses that build on each other.')).toBeInTheDocument()
    const add = page.getByRole('link', { name: 'Add New Program' })
    expect(add).toHaveAttribute('href', '/admin/newProgram')
    expect(add).toHaveClass('btn-primary')
    // the name is the row's link to the program's page
    const [open] = within(row).getAllByRole('link')
    expect(open).toHaveAccessibleName('Zephyr Track 1')
    expect(open).toHaveAttribute('href', expect.stringMatching(/^\/admin\/program\/[0-9a-f-]{36}$/))

    const coach = await renderPage(programs as RouteModule, '/admin/programs?q=zephyr', {
      cookie: session.coach.cookie,
    })
    expect(coach.getByRole('cell', { name: /^Zephyr Track 1/ })).toBeInTheDocument()
    expect(coach.queryByRole('link', { name: 'Add New Program' })).not.toBeInTheDocument()

    const nothing = await renderPage(programs as RouteModule, '/admin/programs?q=no-such-program')
    expect(nothing.getByText(/^No program matches/)).toBeInTheDocument()
  })

  it('lets a coach read the list without the Add New Program button, and keeps a learner out', async () => {
    expect((await list('')).canEdit).toBe(true)
    const coach = await list('?q=lone', session.coach.cookie)
    expect(coach.canEdit).toBe(false)
    expect(coach.rows.map((r) => r.title)).toEqual(['Lone Program'])
    const learner = await open(programs, '/admin/programs', session.learner.cookie)
    expect(learner.headers.get('Location')).toBe('/courses')
  })
})

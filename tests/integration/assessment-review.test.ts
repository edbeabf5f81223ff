import { randomBytes, randomUUID } from 'node:crypto'
import { within } from '@testing-library/dom'
import { beforeAll, describe, expect, it } from 'vitest'
import { listAllAssessments } from '#app/modules/assessments/service.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import * as listPage from '#app/routes/admin+/assignmentDocumentList.tsx'
import * as viewerPage from '#app/routes/admin+/assignmentDocumentViewer.$assignmentDocumentId.tsx'
import * as listRoute from '#app/routes/api+/assignmentDocuments.getAssignmentDocuments.ts'
import * as individualRoute from '#app/routes/api+/assignmentDocuments.getIndividualAssignmentDocument.$id.ts'
import { sequelize, db } from '#db/client.ts'
import { assignCourse, makeCourse, makeDocument, makeStoredFile, makeUser } from '#tests/factories.ts'
import { renderRoute, type RouteModule } from '#tests/render.tsx'
import { body, call } from '#tests/requests.ts'
import { sessionCookieFor, signedInPeople, type SignedInPerson } from '#tests/sessions.ts'

// Reviewing learners' assessment uploads on the admin side: the two /api calls with the old client's
// expanded shape (learner, course and scenario as objects), and the User Assignment Documents list and viewer pages.

type Expanded = {
  _id: string
  document: { key: string; link: string; name: string }
  courseId: { _id: string; title: string }
  userId: { _id: string; firstName: string; lastName: string; email: string }
  relatedScenarioId: { _id: string; document: { name: string } }
  createdAt: string
}
type ListReply = { data: Expanded[]; total?: number; page?: number; size?: number }
type Row = {
  _id: string
  firstName: string
  lastName: string
  email: string
  courseTitle: string
  scenarioName: string
  fileName: string
}
type ListPage = { rows: Row[]; total: number; query: { page: number; size: number; q: string } }

const tag = () => randomBytes(4).toString('hex')
let minutes = 0

/**
 * A learner's upload registered against a scenario of an assigned course, as uploadAssignmentDocument
 * leaves it; each one a minute newer than the one before, so "newest first" is certain.
 */
async function makeAssessment(
  options: {
    firstName?: string
    lastName?: string
    email?: string
    courseTitle?: string
    scenarioName?: string
    fileName?: string
    contentType?: string
  } = {},
) {
  const id = tag()
  const learner = await makeUser({
    firstName: options.firstName ?? 'Ada',
    lastName: options.lastName ?? `Learner${id}`,
    email: options.email,
  })
  const course = await makeCourse({ title: options.courseTitle ?? `Review course ${id}` })
  await assignCourse(learner.id, course.id)
  const scenario = await makeDocument(course.id, { kind: 'scenario', name: options.scenarioName ?? `case-${id}.pdf` })
  const file = await makeStoredFile('assessment', {
    uploadedBy: learner.id,
    name: options.fileName ?? `answer-${id}.pdf`,
    contentType: options.contentType,
  })
  const { AssessmentUpload } = await db()
  const upload = await AssessmentUpload.create({
    userId: learner.id,
    courseId: course.id,
    scenarioId: scenario.id,
    fileKey: file.key,
  })
  minutes += 1
  const createdAt = new Date(Date.UTC(2026, 0, 1, 9, minutes))
  await (
    await sequelize()
  ).query(`UPDATE assessment_uploads SET created_at = :createdAt WHERE id = :id`, {
    replacements: { id: upload.id, createdAt },
  })
  return { id: upload.id, learner, course, scenario, file, createdAt }
}

const listCall = (path: string, token?: string) => call(listRoute.loader as never, path, { token })
const individualCall = (id: string, token?: string) =>
  call(individualRoute.loader as never, `/api/assignmentDocuments/getIndividualAssignmentDocument/${id}`, {
    token,
    params: { id },
  })
const open = (route: { loader: unknown }, path: string, cookie: string, params: Record<string, string> = {}) =>
  call(route.loader as never, path, { headers: { Cookie: cookie }, params })

let people: Record<'admin' | 'coach' | 'learner', SignedInPerson>

beforeAll(async () => {
  people = await signedInPeople('admin', 'coach', 'learner')
})

describe('GET /api/assignmentDocuments/getAssignmentDocuments', () => {
  it('gives the admin side every upload, newest first, expanded as the old client reads it', async () => {
    const older = await makeAssessment({
      firstName: 'Olga',
      lastName: 'Older',
      courseTitle: 'Review Warehousing',
      scenarioName: 'Star schema case.pdf',
      fileName: 'olga answer.pdf',
    })
    const newer = await makeAssessment()

    for (const role of ['admin', 'coach'] as const) {
      const response = await listCall('/api/assignmentDocuments/getAssignmentDocuments', people[role].token)
      expect(response.status).toBe(200)
      const { data, ...rest } = await body<ListReply>(response)
      expect(rest).toEqual({})
      const { AssessmentUpload } = await db()
      expect(data).toHaveLength(await AssessmentUpload.count())
      const ids = data.map((item) => item._id)
      expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id))
      expect(data.find((item) => item._id === older.id)).toEqual({
        _id: older.id,
        document: { key: older.file.key, link: `/files/${older.file.key}`, name: 'olga answer.pdf' },
        courseId: { _id: older.course.id, title: 'Review Warehousing' },
        userId: {
          _id: older.learner.id,
          firstName: 'Olga',
          lastName: 'Older',
          email: older.learner.email,
        },
        relatedScenarioId: { _id: older.scenario.id, document: { name: 'Star schema case.pdf' } },
        createdAt: older.createdAt.toISOString(),
      })
    }
  })

  it('is for the admin side only: 401 without a token, 403 for a learner, even one with uploads', async () => {
    const own = await makeAssessment()
    expect((await listCall('/api/assignmentDocuments/getAssignmentDocuments')).status).toBe(401)
    for (const token of [people.learner.token, own.learner.token]) {
      const refused = await listCall('/api/assignmentDocuments/getAssignmentDocuments', token)
      expect(refused.status).toBe(403)
      expect(await body(refused)).toEqual({ message: 'Only the admin side reviews assessments.' })
    }
  })

  it('searches names, email, course title and file name without regard to case', async () => {
    const id = tag()
    const a = await makeAssessment({ firstName: 'Quentin', lastName: `Quill${id}`, fileName: `notes-${id}.pdf` })
    const b = await makeAssessment({ courseTitle: `Modelling ${id.toUpperCase()}`, email: `mail-${id}@example.com` })
    const c = await makeAssessment({ scenarioName: `scenario-${id}.pdf` })
    const search = async (q: string) =>
      (
        await body<ListReply>(
          await listCall(
            `/api/assignmentDocuments/getAssignmentDocuments?q=${encodeURIComponent(q)}`,
            people.admin.token,
          ),
        )
      ).data.map((item) => item._id)

    expect(await search(id.toUpperCase())).toEqual([c.id, b.id, a.id])
    expect(await search(`quentin quill${id}`)).toEqual([a.id])
    expect(await search(`QUILL${id}`)).toEqual([a.id])
    expect(await search(`mail-${id}@EXAMPLE`)).toEqual([b.id])
    expect(await search(`modelling ${id}`)).toEqual([b.id])
    expect(await search(`NOTES-${id}`)).toEqual([a.id])
    expect(await search(`scenario-${id}`)).toEqual([c.id])
    // LIKE's wildcards are searched for as themselves
    expect(await search('%')).toEqual([])
    expect(await search(`${id}_`)).toEqual([])
  })

  it('pages with ?page=&size=, keeping the newest first, and refuses a bad page', async () => {
    const id = tag()
    const made = []
    for (let i = 0; i < 3; i++) made.push(await makeAssessment({ courseTitle: `Paged ${id} ${i}` }))
    const page = (n: number) =>
      listCall(`/api/assignmentDocuments/getAssignmentDocuments?q=Paged%20${id}&page=${n}&size=2`, people.coach.token)
    const first = await body<ListReply>(await page(1))
    expect(first).toMatchObject({ total: 3, page: 1, size: 2 })
    expect(first.data.map((item) => item._id)).toEqual([made[2].id, made[1].id])
    const second = await body<ListReply>(await page(2))
    expect(second.data.map((item) => item._id)).toEqual([made[0].id])
    expect((await body<ListReply>(await page(3))).data).toEqual([])
    expect((await page(0)).status).toBe(400)
  })
})

describe('GET /api/assignmentDocuments/getIndividualAssignmentDocument/{id}', () => {
  it('answers a list holding the one upload, to the admin side and to the learner who sent it', async () => {
    const upload = await makeAssessment({ firstName: 'Ines', lastName: 'Individual', fileName: 'ines.pdf' })
    for (const token of [people.admin.token, people.coach.token, upload.learner.token]) {
      const response = await individualCall(upload.id, token)
      expect(response.status).toBe(200)
      const { data } = await body<ListReply>(response)
      expect(data).toHaveLength(1)
      expect(data[0]).toMatchObject({
        _id: upload.id,
        document: { key: upload.file.key, link: `/files/${upload.file.key}`, name: 'ines.pdf' },
        courseId: { _id: upload.course.id, title: upload.course.title },
        userId: { _id: upload.learner.id, firstName: 'Ines', lastName: 'Individual', email: upload.learner.email },
        relatedScenarioId: { _id: upload.scenario.id, document: { name: expect.any(String) } },
      })
    }
  })

  it('refuses another learner and anonymous callers, and knows no unknown or malformed id', async () => {
    const upload = await makeAssessment()
    expect((await individualCall(upload.id)).status).toBe(401)
    const stranger = await individualCall(upload.id, people.learner.token)
    expect(stranger.status).toBe(403)
    expect(await body(stranger)).toEqual({ message: 'You can read only your own assessments.' })
    for (const id of [randomUUID(), 'not-a-uuid', "1' OR '1'='1"]) {
      const missing = await individualCall(id, people.admin.token)
      expect(missing.status).toBe(404)
      expect(await body(missing)).toEqual({ message: 'Assessment not found.' })
    }
  })
})

describe('listAllAssessments', () => {
  it('sorts by name, email or course in either direction', async () => {
    const id = tag()
    const b = await makeAssessment({ firstName: 'Bea', lastName: `B${id}`, courseTitle: `Sorted ${id} A` })
    const a = await makeAssessment({ firstName: 'Abe', lastName: `C${id}`, courseTitle: `Sorted ${id} C` })
    const c = await makeAssessment({ firstName: 'Cy', lastName: `A${id}`, courseTitle: `Sorted ${id} B` })
    const sorted = async (sort: 'firstName' | 'lastName' | 'course' | 'createdAt', dir?: 'asc' | 'desc') =>
      (await listAllAssessments(SYSTEM, { q: `Sorted ${id}`, sort, dir })).rows.map((row) => row._id)
    expect(await sorted('firstName')).toEqual([a.id, b.id, c.id])
    expect(await sorted('lastName')).toEqual([c.id, b.id, a.id])
    expect(await sorted('lastName', 'desc')).toEqual([a.id, b.id, c.id])
    expect(await sorted('course')).toEqual([b.id, c.id, a.id])
    expect(await sorted('createdAt')).toEqual([c.id, a.id, b.id])
    expect(await sorted('createdAt', 'asc')).toEqual([b.id, a.id, c.id])
  })
})

describe('the User Assignment Documents page', () => {
  it('lists uploads 7 to a page with search, and 14 or 21 on request', async () => {
    const id = tag()
    const made = []
    for (let i = 0; i < 8; i++)
      made.push(await makeAssessment({ firstName: 'Paula', lastName: `Page${i}`, courseTitle: `Listed ${id}` }))
    const list = async (query: string, cookie = people.admin.cookie) => {
      const response = await open(listPage, `/admin/assignmentDocumentList?${query}`, cookie)
      expect(response.status).toBe(200)
      return body<ListPage>(response)
    }

    const first = await list(`q=listed+${id.toUpperCase()}`)
    expect(first.total).toBe(8)
    expect(first.query).toMatchObject({ page: 1, size: 7 })
    expect(first.rows).toHaveLength(7)
    expect(first.rows[0]).toEqual({
      _id: made[7].id,
      firstName: 'Paula',
      lastName: 'Page7',
      email: made[7].learner.email,
      courseTitle: `Listed ${id}`,
      scenarioName: expect.stringMatching(/^case-.+\.pdf$/),
      fileName: expect.stringMatching(/^answer-.+\.pdf$/),
    })
    const second = await list(`q=Listed+${id}&page=2`, people.coach.cookie)
    expect(second.rows.map((row) => row._id)).toEqual([made[0].id])
    expect((await list(`q=Listed+${id}&size=14`)).rows).toHaveLength(8)
    const byLastName = await list(`q=Listed+${id}&sort=lastName&dir=asc&size=21`)
    expect(byLastName.rows.map((row) => row.lastName)).toEqual(made.map((_, i) => `Page${i}`))
  })

  it('says No Assignment found when nothing matches, and renders the table without JavaScript', async () => {
    const empty = await body<ListPage>(
      await open(listPage, `/admin/assignmentDocumentList?q=nothing-${tag()}`, people.admin.cookie),
    )
    expect(empty).toMatchObject({ rows: [], total: 0 })

    const upload = await makeAssessment({ fileName: `rendered-${tag()}.pdf` })
    const page = await renderPage(listPage, `/admin/assignmentDocumentList?q=${upload.file.name}`)
    expect(page.getByRole('heading', { level: 1, name: 'User Assignment Documents' })).toBeInTheDocument()
    const table = page.getByRole('table', { name: 'User Assignment Documents' })
    for (const header of ['First Name', 'Last Name', 'Email', 'Related Course', 'Related Scenario', 'File Name'])
      expect(within(table).getByRole('columnheader', { name: new RegExp(`^${header}`) })).toBeInTheDocument()
    expect(within(table).getByRole('link', { name: upload.file.name })).toHaveAttribute(
      'href',
      `/admin/assignmentDocumentViewer/${upload.id}`,
    )
    const none = await renderPage(listPage, `/admin/assignmentDocumentList?q=none-${tag()}`)
    expect(none.getByText(/^No Assignment found/)).toBeInTheDocument()
  })

  it('keeps learners out of the admin area and sends the signed-out to sign in', async () => {
    const learner = await open(listPage, '/admin/assignmentDocumentList', people.learner.cookie)
    expect(learner.status).toBe(302)
    expect(learner.headers.get('Location')).toBe('/courses')
    const anonymous = await call(listPage.loader as never, '/admin/assignmentDocumentList')
    expect(anonymous.headers.get('Location')).toBe(
      `/sign-in?redirectTo=${encodeURIComponent('/admin/assignmentDocumentList')}`,
    )
  })
})

describe('the assessment viewer page', () => {
  const path = (id: string) => `/admin/assignmentDocumentViewer/${id}`
  const view = (id: string, cookie: string) => open(viewerPage, path(id), cookie, { assignmentDocumentId: id })

  it('shows the admin side the learner, the file, a Download link and a PDF frame', async () => {
    const upload = await makeAssessment({ firstName: 'Vera', lastName: 'Viewer', fileName: 'vera plan.pdf' })
    for (const cookie of [people.admin.cookie, people.coach.cookie]) {
      const response = await view(upload.id, cookie)
      expect(response.status).toBe(200)
      expect(await body(response)).toMatchObject({
        shown: true,
        assessment: {
          _id: upload.id,
          firstName: 'Vera',
          lastName: 'Viewer',
          contentType: 'application/pdf',
          document: { key: upload.file.key, link: `/files/${upload.file.key}`, name: 'vera plan.pdf' },
        },
      })
    }
    // what a browser gets before (or without) JavaScript: the frame itself, no loading overlay over it
    const page = await renderPage(viewerPage, path(upload.id), people.coach.cookie)
    expect(page.getByRole('heading', { level: 1, name: 'Vera Viewer' })).toBeInTheDocument()
    const download = page.getByRole('link', { name: 'Download' })
    expect(download).toHaveAttribute('href', `/files/${upload.file.key}`)
    expect(download).toHaveAttribute('download', 'vera plan.pdf')
    expect(page.getByTitle('vera plan.pdf (PDF)')).toHaveAttribute('src', `/files/${upload.file.key}`)
    expect(page.queryByRole('status')).not.toBeInTheDocument()
    expect(page.queryByText('Loading…')).not.toBeInTheDocument()
    const breadcrumb = page.getByRole('navigation', { name: 'Breadcrumb' })
    expect(within(breadcrumb).getByRole('link', { name: 'User Assignment Documents' })).toHaveAttribute(
      'href',
      '/admin/assignmentDocumentList',
    )
  })

  it('offers a file the browser cannot show by download only', async () => {
    const upload = await makeAssessment({
      fileName: 'plan.docx',
      contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    })
    expect(await body(await view(upload.id, people.admin.cookie))).toMatchObject({ shown: false })
    const page = await renderPage(viewerPage, path(upload.id), people.admin.cookie)
    expect(page.queryByTitle(/\(PDF\)$/)).not.toBeInTheDocument()
    expect(page.getByText('This file cannot be shown in the browser. Download it to open it.')).toBeInTheDocument()
    expect(page.getByRole('link', { name: 'Download' })).toHaveAttribute('download', 'plan.docx')
  })

  it('answers 404 for an unknown or malformed id and sends a learner, even the owner, away', async () => {
    for (const id of [randomUUID(), 'nope']) {
      const missing = await view(id, people.admin.cookie)
      expect(missing.status).toBe(404)
    }
    const upload = await makeAssessment()
    const owner = await sessionCookieFor(upload.learner.userName)
    for (const cookie of [owner, people.learner.cookie]) {
      const response = await view(upload.id, cookie)
      expect(response.status).toBe(302)
      expect(response.headers.get('Location')).toBe('/courses')
    }
  })
})

/** The page as the server renders it before any JavaScript runs, for the admin unless told. */
const renderPage = (page: RouteModule, path: string, cookie = people.admin.cookie) =>
  renderRoute(page, path, {
    cookie,
    pattern: path.startsWith('/admin/assignmentDocumentViewer/')
      ? '/admin/assignmentDocumentViewer/:assignmentDocumentId'
      : undefined,
  })

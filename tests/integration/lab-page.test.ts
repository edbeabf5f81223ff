import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { practiceVersion } from '#app/modules/labs/practice.server.ts'
import { closeSandbox } from '#app/modules/labs/sandbox.server.ts'
import { importLab } from '#app/modules/labs/service.server.ts'
import * as coursePage from '#app/routes/_learner+/course.$courseId._index.tsx'
import * as labPage from '#app/routes/_learner+/course.$courseId.lab.$labId.tsx'
import * as practiceRoute from '#app/routes/_learner+/course.$courseId.lab.$labId_.practice.ts'
import { assignCourse, makeCourse, makeLearner, labFolderOf } from '#tests/factories.ts'
import { call } from '#tests/requests.ts'
import { sessionCookieFor, toastOf } from '#tests/sessions.ts'

// The learner's lab page: the course page lists the lab, the lab page loads for a learner assigned the course
// (Markdown as escaped HTML) and sends anyone else back to My Courses as a video page does; its action grades
// an attempt (the grading, the hints it opens, the SQL kept in the form), shows a refused statement at the SQL
// field and an empty one as the form's own validation.

const LAB = `title: Cities
description: Cities and *their* countries. <script>alert(1)</script>
minutes: 10
dataset: data.sql
exercises:
  - key: swiss
    title: Swiss cities
    prompt: List the **Swiss** cities, as \`name\`.
    solution: SELECT name FROM city WHERE country = 'CH'
    hints:
      - Filter on the country.
`
const DATA =
  "CREATE TABLE city (name text NOT NULL, country char(2)); INSERT INTO city VALUES ('Bern', 'CH'), ('Lyon', 'FR');"

let courseId = ''
let labId = ''
let cookie = ''

beforeAll(async () => {
  const course = await makeCourse()
  courseId = course.id
  labId = (
    await importLab(SYSTEM, {
      folder: labFolderOf(LAB, DATA),
      course: course.id,
    })
  ).id
  const learner = await makeLearner()
  await assignCourse(learner.id, courseId)
  cookie = await sessionCookieFor(learner.userName)
}, 60_000)

afterAll(() => closeSandbox())

type Page = {
  course: { title: string }
  lab: {
    title: string
    description: string
    tables: { name: string; columns: { name: string }[] }[]
    exercises: { key: string; prompt: string; passed: boolean; attempts: number; hints: string[] }[]
  }
  /** the practice files and dataset; null where the files are not built; absent for a lab with nothing to practise */
  practice?: { dataset: string; version: string } | null
}
type Reply = {
  result: { status?: string; error?: Record<string, string[] | null>; initialValue?: Record<string, unknown> }
  grading?: { passed: boolean; message: string; rows: string[][]; extraRows: string[][]; position?: number }
}

const open = (as: string, id = labId) =>
  call(labPage.loader as never, `/course/${courseId}/lab/${id}`, {
    headers: { Cookie: as },
    params: { courseId, labId: id },
  })

const send = (sql: string, exercise = 'swiss') =>
  call(labPage.action as never, `/course/${courseId}/lab/${labId}`, {
    method: 'POST',
    headers: { Cookie: cookie },
    body: new URLSearchParams({ exercise, sql }),
    params: { courseId, labId },
  })

describe('the lab page', () => {
  it('is listed on the course page with the exercises passed', async () => {
    const page = (await (
      await call(coursePage.loader as never, `/course/${courseId}`, {
        headers: { Cookie: cookie },
        params: { courseId },
      })
    ).json()) as { labs: unknown[] }
    expect(page.labs).toEqual([{ id: labId, title: 'Cities', minutes: 10, exercises: 1, passed: 0 }])
  })

  it('loads for a learner assigned the course, its Markdown as HTML with raw HTML escaped', async () => {
    const response = await open(cookie)
    expect(response.status).toBe(200)
    const page = (await response.json()) as Page
    expect(page.lab.title).toBe('Cities')
    expect(page.lab.description).toContain('<em>their</em>')
    expect(page.lab.description).toContain('&lt;script&gt;')
    expect(page.lab.description).not.toContain('<script>')
    expect(page.lab.tables).toEqual([
      { name: 'city', columns: expect.arrayContaining([expect.objectContaining({ name: 'name' })]) },
    ])
    expect(page.lab.exercises[0]).toMatchObject({
      key: 'swiss',
      prompt: expect.stringContaining('<strong>Swiss</strong>'),
      passed: false,
      attempts: 0,
      hints: [],
    })
    // its exercise can be practised in the browser (where the practice files are built, at the dataset's version)
    expect(page).toHaveProperty('practice')
    if (page.practice) expect(page.practice.dataset).toContain(`/lab/${labId}/practice?v=${page.practice.version}`)
  })

  it('sends a learner not assigned the course back to My Courses, as a video page does; an unknown lab is 404', async () => {
    const outsider = await makeLearner()
    const refused = await open(await sessionCookieFor(outsider.userName))
    expect(refused.status).toBe(302)
    expect(refused.headers.get('Location')).toBe('/courses')
    expect(await toastOf(refused)).toMatchObject({ type: 'error', message: 'This course is not assigned to you.' })
    const missing = await open(cookie, '00000000-0000-4000-8000-000000000000')
    expect(missing.status).toBe(404)
  })

  it('grades a wrong answer (extra rows, a hint opened), an error with its place, then a right one', async () => {
    const wrong = (await (await send('SELECT name FROM city')).json()) as Reply
    expect(wrong.grading).toMatchObject({ passed: false, rows: [['Bern'], ['Lyon']], extraRows: [['Lyon']] })
    // the SQL stays in the form
    expect(wrong.result.initialValue).toMatchObject({ exercise: 'swiss', sql: 'SELECT name FROM city' })
    const error = (await (await send('SELECT nme FROM city')).json()) as Reply
    expect(error.grading).toMatchObject({ passed: false, message: 'column "nme" does not exist', position: 8 })
    const right = (await (await send("SELECT name FROM city WHERE country = 'CH'")).json()) as Reply
    expect(right.grading).toMatchObject({ passed: true })
    const page = (await (await open(cookie)).json()) as Page
    expect(page.lab.exercises[0]).toMatchObject({ passed: true, attempts: 3 })
    expect(page.lab.exercises[0].hints).toEqual(['<p>Filter on the country.</p>'])
  })

  it('shows a refused statement at the SQL field, and an empty one as the form’s own error', async () => {
    const refused = await send('DELETE FROM city')
    expect(refused.status).toBe(400)
    const reply = (await refused.json()) as Reply
    expect(reply.grading).toBeUndefined()
    expect(reply.result.error?.sql?.[0]).toMatch(/DELETE is not allowed here/)
    expect(reply.result.initialValue).toMatchObject({ sql: 'DELETE FROM city' })
    const empty = (await (await send('   ')).json()) as Reply
    expect(empty.result.error?.sql).toEqual(['Write an SQL statement first.'])
  })
})

describe('the practice dataset', () => {
  const fetchDataset = (as: string | undefined, query = '', id = labId) =>
    call(practiceRoute.loader as never, `/course/${courseId}/lab/${id}/practice${query}`, {
      headers: as ? { Cookie: as } : {},
      params: { courseId, labId: id },
    })
  type Dataset = { version: string; statements: { text: string }[]; files: Record<string, string> }

  it('is the lab’s statements for an assigned learner, kept for good at the version the lab page links', async () => {
    const current = await fetchDataset(cookie)
    expect(current.status).toBe(200)
    // an address without the version may change: asked again each time
    expect(current.headers.get('Cache-Control')).toBe('private, no-cache')
    const dataset = (await current.json()) as Dataset
    expect(dataset.statements.map((s) => s.text)).toEqual([
      'CREATE TABLE city (name text NOT NULL, country char(2))',
      "INSERT INTO city VALUES ('Bern', 'CH'), ('Lyon', 'FR')",
    ])
    expect(dataset.version).toMatch(/^[0-9a-f]{32}$/)
    const versioned = await fetchDataset(cookie, `?v=${dataset.version}`)
    expect(versioned.headers.get('Cache-Control')).toBe('private, max-age=31536000, immutable')
    const stale = await fetchDataset(cookie, '?v=0123456789abcdef0123456789abcdef')
    expect(stale.headers.get('Cache-Control')).toBe('private, no-cache')
    expect(((await stale.json()) as Dataset).version).toBe(dataset.version)
  })

  it('gets a new version when a re-import changes the dataset, and keeps it when nothing changed', async () => {
    const course = await makeCourse()
    const folder = (data: string) => labFolderOf(LAB, data)
    const { id } = await importLab(SYSTEM, { folder: folder(DATA), course: course.id })
    const before = await practiceVersion(id)
    await importLab(SYSTEM, { folder: folder(DATA), course: course.id })
    expect(await practiceVersion(id)).toBe(before)
    await importLab(SYSTEM, { folder: folder(`${DATA}\nINSERT INTO city VALUES ('Basel', 'CH');`), course: course.id })
    expect(await practiceVersion(id)).not.toBe(before)
  })

  it('is refused to a learner not assigned the course, to someone signed out, and for a lab of another course', async () => {
    const outsider = await makeLearner()
    const refused = await fetchDataset(await sessionCookieFor(outsider.userName))
    expect(refused.status).toBe(403)
    expect(refused.headers.get('Cache-Control')).toBe('no-store')
    expect(await refused.text()).toBe('This course is not assigned to you.\n')
    const signedOut = await fetchDataset(undefined)
    expect(signedOut.status).toBe(302)
    expect(signedOut.headers.get('Location')).toMatch(/^\/sign-in/)
    const missing = await fetchDataset(cookie, '', '00000000-0000-4000-8000-000000000000')
    expect(missing.status).toBe(404)
    const other = await importLab(SYSTEM, { folder: labFolderOf(LAB, DATA), course: (await makeCourse()).id })
    expect((await fetchDataset(cookie, '', other.id)).status).toBe(403)
  })
})

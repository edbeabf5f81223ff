import { strToU8, zipSync } from 'fflate'
import { QueryTypes } from 'sequelize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { labResults } from '#app/modules/labs/admin.server.ts'
import { closeSandbox } from '#app/modules/labs/sandbox.server.ts'
import { importLab } from '#app/modules/labs/service.server.ts'
import * as coursePage from '#app/routes/admin+/course.$courseId.tsx'
import * as resultsPage from '#app/routes/admin+/lab.$labId.tsx'
import * as exportRoute from '#app/routes/admin+/lab.$labId_.export.ts'
import * as rearrangePage from '#app/routes/admin+/rearrangeLabs.$courseId.tsx'
import { sequelize } from '#db/client.ts'
import { assignCourse, makeAdmin, makeCoach, makeCourse, makeLearner, makeUser, labFolderOf } from '#tests/factories.ts'
import { renderRoute, type RouteModule } from '#tests/render.tsx'
import { BASE, call, multipartRequest } from '#tests/requests.ts'
import { sessionCookieFor, toastOf } from '#tests/sessions.ts'

// The admin side of SQL labs as a browser without JavaScript uses it: the Labs tab of a course (a zip
// uploaded and imported, shown and hidden, ordered, deleted with its sandbox databases), and a lab's
// results page and CSV export for admins and coaches.

const labYaml = (title: string, extra = '') => `title: ${title}
minutes: 12
dataset: data.sql
exercises:
  - key: swiss
    title: Swiss cities
    prompt: List the Swiss cities.
    solution: SELECT name FROM city WHERE country = 'CH'
${extra}`
const DATA =
  "CREATE TABLE city (name text NOT NULL, country char(2)); INSERT INTO city VALUES ('Bern', 'CH'), ('Lyon', 'FR');"

const zipOf = (files: Record<string, string>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])))

let adminCookie = ''
let coachCookie = ''
let learnerCookie = ''

beforeAll(async () => {
  adminCookie = await sessionCookieFor((await makeAdmin()).userName)
  coachCookie = await sessionCookieFor((await makeCoach()).userName)
  learnerCookie = await sessionCookieFor((await makeLearner()).userName)
})

afterAll(() => closeSandbox())

const rows = async <T>(text: string, bind: unknown[] = []) =>
  (await sequelize()).query<T & object>(text, { bind, type: QueryTypes.SELECT })

/** Posts the Add Lab form of a course's page, as multipart, with a zip in its file field. */
async function upload(courseId: string, zip: Uint8Array, name = 'lab.zip') {
  const form = new FormData()
  form.append('labZip', new File([new Uint8Array(zip)], name, { type: 'application/zip' }))
  const request = multipartRequest(`${BASE}/admin/course/${courseId}?tab=labs&intent=addLab`, form, {
    Cookie: adminCookie,
  })
  try {
    return (await coursePage.action({ request, params: { courseId }, context: {} as never })) as Response
  } catch (thrown) {
    if (thrown instanceof Response) return thrown
    throw thrown
  }
}

const post = (courseId: string, intent: string, body: Record<string, string>, cookie = adminCookie) =>
  call(coursePage.action as never, `/admin/course/${courseId}?tab=labs&intent=${intent}`, {
    method: 'POST',
    body: new URLSearchParams(body),
    params: { courseId },
    headers: { Cookie: cookie },
  })

const loadCourse = async (courseId: string, cookie = adminCookie) => {
  const response = await call(coursePage.loader as never, `/admin/course/${courseId}?tab=labs`, {
    params: { courseId },
    headers: { Cookie: cookie },
  })
  return (await response.json()) as {
    canEdit: boolean
    labs: { id: string; title: string; visible: boolean; exercises: number; minutes: number; builtAt: string }[]
  }
}

async function buildLab(courseId: string, title: string) {
  return importLab(SYSTEM, {
    folder: labFolderOf(labYaml(title), DATA),
    course: courseId,
  })
}

const databases = async () => (await rows<{ datname: string }>('SELECT datname FROM pg_database')).map((r) => r.datname)

describe('the Labs tab of a course', () => {
  it('creates a lab from an uploaded zip, and updates it from a second one, keeping attempts', async () => {
    const course = await makeCourse()
    const created = await upload(course.id, zipOf({ 'cities/lab.yaml': labYaml('Cities'), 'cities/data.sql': DATA }))
    expect(created.status).toBe(302)
    expect(created.headers.get('Location')).toBe(`/admin/course/${course.id}?tab=labs`)
    expect(await toastOf(created)).toMatchObject({ type: 'success', message: 'Lab "Cities" created with 1 exercise.' })
    const [lab] = (await loadCourse(course.id)).labs
    expect(lab).toMatchObject({ title: 'Cities', exercises: 1, minutes: 12, visible: true })
    expect(lab.builtAt).toEqual(expect.any(String))

    const learner = await makeLearner()
    const [exercise] = await rows<{ id: string }>('SELECT id FROM lab_exercises WHERE lab_id = $1', [lab.id])
    await rows(
      `INSERT INTO lab_attempts (exercise_id, user_id, sql, passed, message, duration_ms)
       VALUES ($1, $2, 'SELECT 1', false, 'Wrong rows.', 4) RETURNING id`,
      [exercise.id, learner.id],
    )
    const extra = `  - key: all
    title: All cities
    prompt: List every city.
    solution: SELECT name FROM city
`
    const updated = await upload(course.id, zipOf({ 'lab.yaml': labYaml('Cities', extra), 'data.sql': DATA }))
    expect(await toastOf(updated)).toMatchObject({
      message: `Lab "Cities" updated: exercises 1 kept, 1 added, 0 removed; learners' attempts are kept.`,
    })
    const labs = (await loadCourse(course.id)).labs
    expect(labs).toHaveLength(1)
    expect(labs[0]).toMatchObject({ id: lab.id, exercises: 2 })
    const kept = await rows<{ n: number }>(
      'SELECT count(*)::int AS n FROM lab_attempts WHERE user_id = $1 AND exercise_id = $2',
      [learner.id, exercise.id],
    )
    expect(kept[0].n).toBe(1)
  }, 60_000)

  it('shows what is wrong with a zip at the file field, and creates nothing', async () => {
    const course = await makeCourse()
    const cases: [Uint8Array, string, RegExp][] = [
      [strToU8('not a zip at all'), 'lab.zip', /zip/i],
      [
        zipOf({ 'lab.yaml': 'title: Broken\nexercises: []\n', 'data.sql': DATA }),
        'lab.zip',
        /^lab\.yaml is not a valid lab/,
      ],
      [zipOf({ 'lab.yaml': labYaml('Bad data'), 'data.sql': 'CREATE TABLE oops (' }), 'lab.zip', /^data\.sql/],
      [zipOf({ 'lab.yaml': labYaml('Ok'), 'data.sql': DATA }), 'lab.txt', /Only a \.zip/],
    ]
    for (const [zip, name, message] of cases) {
      const refused = await upload(course.id, zip, name)
      expect(refused.status, String(message)).toBeGreaterThanOrEqual(400)
      const reply = (await refused.json()) as { intent: string; error: string }
      expect(reply.intent).toBe('addLab')
      expect(reply.error).toMatch(message)
    }
    expect((await loadCourse(course.id)).labs).toEqual([])

    // the reply is drawn at the file field, the form as it was
    const page = await renderRoute(coursePage as RouteModule, `/admin/course/${course.id}?tab=labs&intent=addLab`, {
      cookie: adminCookie,
      pattern: '/admin/course/:courseId',
      form: [['labZip', new File([strToU8('nope')], 'lab.zip', { type: 'application/zip' })]],
    })
    const field = page.getByLabelText('Zipped lab folder')
    expect(field).toHaveAttribute('aria-invalid', 'true')
    expect(field).toHaveAccessibleDescription(expect.stringMatching(/zip/i))
  }, 60_000)

  it('hides and shows a lab, puts the labs in order, and deletes one with its databases', async () => {
    const course = await makeCourse()
    const first = await buildLab(course.id, 'First')
    const second = await buildLab(course.id, 'Second')

    const hidden = await post(course.id, 'visibility', { labId: first.id, visible: 'false' })
    expect(await toastOf(hidden)).toMatchObject({ message: 'Lab "First" is hidden from learners.' })
    expect((await loadCourse(course.id)).labs.map((l) => [l.title, l.visible])).toEqual([
      ['First', false],
      ['Second', true],
    ])
    await post(course.id, 'visibility', { labId: first.id, visible: 'true' })
    expect((await loadCourse(course.id)).labs[0].visible).toBe(true)

    // the rearrange page, with JavaScript (ids in order) and without it (position numbers)
    const order = new URLSearchParams([
      ['order', second.id],
      ['order', first.id],
    ])
    const saved = await call(rearrangePage.action as never, `/admin/rearrangeLabs/${course.id}`, {
      method: 'POST',
      body: order,
      params: { courseId: course.id },
      headers: { Cookie: adminCookie },
    })
    expect(saved.headers.get('Location')).toBe(`/admin/course/${course.id}?tab=labs`)
    expect((await loadCourse(course.id)).labs.map((l) => l.title)).toEqual(['Second', 'First'])
    await call(rearrangePage.action as never, `/admin/rearrangeLabs/${course.id}`, {
      method: 'POST',
      body: new URLSearchParams({ [`position:${first.id}`]: '1', [`position:${second.id}`]: '2' }),
      params: { courseId: course.id },
      headers: { Cookie: adminCookie },
    })
    expect((await loadCourse(course.id)).labs.map((l) => l.title)).toEqual(['First', 'Second'])
    // an order that leaves a lab out is refused above the list
    const partial = await call(rearrangePage.action as never, `/admin/rearrangeLabs/${course.id}`, {
      method: 'POST',
      body: new URLSearchParams([['order', first.id]]),
      params: { courseId: course.id },
      headers: { Cookie: adminCookie },
    })
    expect(partial.status).toBe(400)

    // Delete asks first: the dialog, drawn as the page section it is without JavaScript
    const asked = await renderRoute(
      coursePage as RouteModule,
      `/admin/course/${course.id}?tab=labs&delete=${first.id}`,
      {
        cookie: adminCookie,
        pattern: '/admin/course/:courseId',
      },
    )
    expect(asked.getByText(/Delete “First”\? This cannot be undone/)).toBeInTheDocument()

    const [{ database, state_copies }] = await rows<{ database: string; state_copies: string[] }>(
      'SELECT database, state_copies FROM labs WHERE id = $1',
      [first.id],
    )
    expect(await databases()).toContain(database)
    const deleted = await post(course.id, 'deleteLab', { labId: first.id })
    expect(await toastOf(deleted)).toMatchObject({ message: 'Lab "First" deleted.' })
    expect((await loadCourse(course.id)).labs.map((l) => l.title)).toEqual(['Second'])
    const left = await databases()
    for (const name of [database, ...state_copies]) expect(left).not.toContain(name)
    // a lab of another course is not this course's to delete
    const other = await makeCourse()
    const refused = await post(other.id, 'deleteLab', { labId: second.id })
    expect(await toastOf(refused)).toMatchObject({ type: 'error', message: 'This course has no such lab.' })
  }, 60_000)

  it('is read-only for a coach: no upload, show/hide or delete; their posts are refused', async () => {
    const course = await makeCourse()
    const lab = await buildLab(course.id, 'Coached')
    const loaded = await loadCourse(course.id, coachCookie)
    expect(loaded.canEdit).toBe(false)
    expect(loaded.labs.map((l) => l.title)).toEqual(['Coached'])
    const page = await renderRoute(coursePage as RouteModule, `/admin/course/${course.id}?tab=labs`, {
      cookie: coachCookie,
      pattern: '/admin/course/:courseId',
    })
    expect(page.getByRole('link', { name: 'Coached' })).toHaveAttribute('href', `/admin/lab/${lab.id}`)
    expect(page.queryByRole('heading', { name: 'Add Lab' })).not.toBeInTheDocument()
    expect(page.queryByRole('button', { name: /Hide|Show/ })).not.toBeInTheDocument()
    expect(page.queryByRole('link', { name: /Delete/ })).not.toBeInTheDocument()
    const refused = await post(course.id, 'deleteLab', { labId: lab.id }, coachCookie)
    expect(refused.status).toBe(302)
    expect((await loadCourse(course.id)).labs).toHaveLength(1)
  }, 60_000)
})

describe('a lab’s results', () => {
  it('lists assigned learners and anyone with attempts, opens one learner’s attempts, and exports them', async () => {
    const course = await makeCourse()
    const lab = await buildLab(course.id, 'Results')
    const [exercise] = await rows<{ id: string }>('SELECT id FROM lab_exercises WHERE lab_id = $1', [lab.id])
    const assigned = await makeUser({ firstName: 'Ada', lastName: 'Assigned' })
    await assignCourse(assigned.id, course.id)
    const idle = await makeUser({ firstName: 'Ida', lastName: 'Idle' })
    await assignCourse(idle.id, course.id)
    // not assigned (any more), but has attempts; a name a spreadsheet would run
    const formula = await makeUser({ firstName: '=HYPERLINK("x")', lastName: 'Zed' })
    const attempt = (userId: string, sql: string, passed: boolean, at: string) =>
      rows(
        `INSERT INTO lab_attempts (exercise_id, user_id, sql, passed, message, duration_ms, created_at)
         VALUES ($1, $2, $3, $4, $5, 7, $6) RETURNING id`,
        [exercise.id, userId, sql, passed, passed ? 'Correct.' : 'Wrong rows.', at],
      )
    await attempt(assigned.id, 'SELECT name FROM city', false, '2026-03-01T10:00:00Z')
    await attempt(assigned.id, "SELECT name FROM city WHERE country = 'CH'", true, '2026-03-01T10:05:00Z')
    await attempt(formula.id, '=1+1', false, '2026-03-02T09:00:00Z')

    const load = async (query = '', cookie = coachCookie) =>
      call(resultsPage.loader as never, `/admin/lab/${lab.id}${query}`, {
        params: { labId: lab.id },
        headers: { Cookie: cookie },
      })
    const data = (await (await load()).json()) as {
      learners: {
        userId: string
        passed: number
        exercises: number
        attempts: number
        lastAttemptAt: string | null
        assigned: boolean
      }[]
      open: null
    }
    expect(data.open).toBeNull()
    expect(
      data.learners.map((l) => [l.userId, l.passed, l.exercises, l.attempts, l.lastAttemptAt, l.assigned]),
    ).toEqual([
      [formula.id, 0, 1, 1, '2026-03-02T09:00:00.000Z', false],
      [assigned.id, 1, 1, 2, '2026-03-01T10:05:00.000Z', true],
      [idle.id, 0, 1, 0, null, true],
    ])

    // a coach opens a learner: each attempt with its SQL in a <pre>, and no form on the page
    const page = await renderRoute(resultsPage as RouteModule, `/admin/lab/${lab.id}?learner=${assigned.id}`, {
      cookie: coachCookie,
      pattern: '/admin/lab/:labId',
    })
    const attempts = page.getAllByTestId('lab-attempt')
    expect(attempts).toHaveLength(2)
    expect(attempts[1].querySelector('pre')?.textContent).toBe("SELECT name FROM city WHERE country = 'CH'")
    expect(attempts[0]).toHaveTextContent(/Failed.*Wrong rows\./s)
    expect(attempts[0].ownerDocument.querySelector('form')).toBeNull()
    expect(page.getByRole('link', { name: 'Export CSV' })).toHaveAttribute('href', `/admin/lab/${lab.id}/export`)

    // the export: every attempt, formulas neutralised
    const csv = await call(exportRoute.loader as never, `/admin/lab/${lab.id}/export`, {
      params: { labId: lab.id },
      headers: { Cookie: coachCookie },
    })
    expect(csv.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
    expect(csv.headers.get('Content-Disposition')).toContain('Results-results.csv')
    const lines = (await csv.text()).trimEnd().split('\r\n')
    expect(lines).toEqual([
      'learner,username,email,exercise,exercise title,passed,message,duration ms,attempted at,sql',
      `"'=HYPERLINK(""x"") Zed",${formula.userName},${formula.email},swiss,Swiss cities,no,Wrong rows.,7,2026-03-02T09:00:00.000Z,'=1+1`,
      `Ada Assigned,${assigned.userName},${assigned.email},swiss,Swiss cities,no,Wrong rows.,7,2026-03-01T10:00:00.000Z,SELECT name FROM city`,
      `Ada Assigned,${assigned.userName},${assigned.email},swiss,Swiss cities,yes,Correct.,7,2026-03-01T10:05:00.000Z,SELECT name FROM city WHERE country = 'CH'`,
    ])
  }, 60_000)

  it('refuses a learner: the admin area sends them away, and the service answers 403', async () => {
    const course = await makeCourse()
    const lab = await buildLab(course.id, 'Private')
    for (const route of [resultsPage, exportRoute]) {
      const response = await call(route.loader as never, `/admin/lab/${lab.id}`, {
        params: { labId: lab.id },
        headers: { Cookie: learnerCookie },
      })
      expect(response.status).toBe(302)
      expect(response.headers.get('Location')).toBe('/courses')
      expect(await toastOf(response)).toMatchObject({ message: 'You do not have access to the admin area.' })
    }
    const learner = await makeLearner()
    await expect(labResults(learner, lab.id)).rejects.toMatchObject({ status: 403 })
    const missing = await call(resultsPage.loader as never, '/admin/lab/nope', {
      params: { labId: 'nope' },
      headers: { Cookie: adminCookie },
    })
    expect(missing.status).toBe(404)
  }, 60_000)
})

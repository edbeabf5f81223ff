import { beforeAll, describe, expect, it } from 'vitest'
import { accessLogReport } from '#app/modules/access-log/service.server.ts'
import { expandedAssessment, listAllAssessments } from '#app/modules/assessments/service.server.ts'
import { ROLE } from '#app/modules/auth/roles.ts'
import { listCatalogue, listCourseTitles } from '#app/modules/courses/catalogue.server.ts'
import { listPrograms } from '#app/modules/programs/service.server.ts'
import { listUsers } from '#app/modules/users/service.server.ts'
import * as documentsRoute from '#app/routes/api+/assignmentDocuments.getAssignmentDocuments.ts'
import * as accessLogRoute from '#app/routes/api+/category.accessLog.ts'
import * as allUsersRoute from '#app/routes/api+/category.allusers.ts'
import * as coursesRoute from '#app/routes/api+/category.courses.ts'
import * as courseTitlesRoute from '#app/routes/api+/category.coursesList.ts'
import * as programsRoute from '#app/routes/api+/program.getPrograms.ts'
import * as adminsRoute from '#app/routes/api+/user.usersList.admin.ts'
import * as learnersRoute from '#app/routes/api+/user.usersList.user.ts'
import { db, sequelize } from '#db/client.ts'
import {
  makeAdmin,
  makeCourse,
  makeDocument,
  makeLearner,
  makeProgram,
  makeStoredFile,
  makeSuperAdmin,
  recordWatched,
} from '#tests/factories.ts'
import { call } from '#tests/requests.ts'

// The /api list calls the old client reads whole (no ?page=&size=) stream their answer from a database
// cursor. What they answer must be, byte for byte, what building the whole list in memory answered;
// refusals still come before the first byte; and the rows are read as the answer is taken, on one
// pooled connection that goes back to the pool however the answer ends.

type Admin = Awaited<ReturnType<typeof makeAdmin>>
let admin: Admin
let learner: Awaited<ReturnType<typeof makeLearner>>
let courseId: string

const GENERATED_LEARNERS = 20_000

beforeAll(async () => {
  admin = await makeAdmin()
  await makeSuperAdmin()
  learner = await makeLearner()
  const sql = await sequelize()
  // many learners, several created in the same second so the id decides their order
  await sql.query(
    `INSERT INTO users (first_name, last_name, user_name, email, role_id, created_at)
     SELECT 'Gen', 'Learner ' || g, 'gen' || g, 'gen' || g || '@example.com', $1,
            timestamptz '2026-01-01' + (g / 3) * interval '1 second'
       FROM generate_series(1, ${GENERATED_LEARNERS}) g`,
    { bind: [ROLE.learner] },
  )

  const { Course, Program, AssessmentUpload } = await db()
  const first = await makeCourse({ title: 'Zeta "quoted" course', videos: [{ duration: 100 }, { duration: 50 }] })
  const second = await makeCourse({ title: 'alpha course', videos: [{ duration: null }] })
  const third = await makeCourse({ title: 'Ärger course' })
  courseId = first.id
  const cover = await makeStoredFile('course_image')
  await Course.update({ imageKey: cover.key }, { where: { id: second.id } })

  // a program's courses keep their own order; one has an image and a price, one has neither
  const priced = await makeProgram([third.id, first.id, second.id])
  const programCover = await makeStoredFile('program_image')
  await Program.update({ imageKey: programCover.key, price: '12.50' }, { where: { id: priced.id } })
  await makeProgram([second.id])
  await makeProgram([])

  await recordWatched(learner.id, first.id, first.videos[0], 40)
  await recordWatched(learner.id, first.id, first.videos[1], 50)
  await recordWatched(learner.id, second.id, second.videos[0], 10)

  for (const [index, course] of [first, second].entries()) {
    const scenario = await makeDocument(course.id, { kind: 'scenario', name: `case-${index}.pdf` })
    const file = await makeStoredFile('assessment', { uploadedBy: learner.id, name: `answer-${index}.pdf` })
    await AssessmentUpload.create({
      userId: learner.id,
      courseId: course.id,
      scenarioId: scenario.id,
      fileKey: file.key,
    })
  }
}, 120_000)

type Route = { loader: unknown; action: unknown }
const get = (route: Route, path: string, options: { token?: string; signal?: AbortSignal } = {}) =>
  call(route.loader as never, path, { token: options.token ?? admin.token, signal: options.signal })
const post = (route: Route, path: string, json: unknown, token = admin.token) =>
  call(route.action as never, path, { method: 'POST', json, token })

/** The answer's text, which must be exactly what the whole list built in memory gave. */
async function expectAnswer(response: Response, expected: object) {
  expect(response.status).toBe(200)
  expect(response.headers.get('Content-Type')).toBe('application/json; charset=utf-8')
  expect(await response.text()).toBe(JSON.stringify(expected))
}

describe('the unpaged /api lists answer what the whole list in memory answered', () => {
  it('the learners and the admins, searched or not', async () => {
    const learners = await listUsers(admin, 'learner', {})
    expect(learners.rows.length).toBe(GENERATED_LEARNERS + 1)
    await expectAnswer(await get(learnersRoute, '/api/user/usersList/user'), { message: learners.rows })
    const searched = await listUsers(admin, 'learner', { q: 'GEN1999' })
    expect(searched.rows.length).toBe(11)
    await expectAnswer(await get(learnersRoute, '/api/user/usersList/user?q=GEN1999'), { message: searched.rows })
    // LIKE's wildcards are taken literally
    await expectAnswer(await get(learnersRoute, '/api/user/usersList/user?q=gen_'), { message: [] })
    const admins = await listUsers(admin, 'admin', {})
    expect(admins.rows.length).toBeGreaterThanOrEqual(2)
    await expectAnswer(await get(adminsRoute, '/api/user/usersList/admin'), { message: admins.rows })
  })

  it('the access log, unfiltered and filtered', async () => {
    const all = (await accessLogReport(admin, {})).rows
    expect(all.length).toBe(3)
    await expectAnswer(await get(allUsersRoute, '/api/category/allusers'), { data: all })
    const filter = { courses: [courseId] }
    const filtered = (await accessLogReport(admin, filter)).rows
    expect(filtered.length).toBe(2)
    await expectAnswer(await post(accessLogRoute, '/api/category/accessLog', filter), { data: filtered })
  })

  it('the course titles and the catalogue', async () => {
    const titles = (await listCourseTitles(admin)).rows
    expect(titles.length).toBe(3)
    await expectAnswer(await get(courseTitlesRoute, '/api/category/coursesList'), { courses: titles })
    const catalogue = (await listCatalogue(learner, {})).rows
    expect(catalogue.filter((course) => course.courseImage !== null)).toHaveLength(1)
    await expectAnswer(await get(coursesRoute, '/api/category/courses', { token: learner.token }), {
      courses: catalogue,
    })
    const searched = (await listCatalogue(learner, { q: 'ALPHA' })).rows
    expect(searched).toHaveLength(1)
    await expectAnswer(await get(coursesRoute, '/api/category/courses?q=ALPHA', { token: learner.token }), {
      courses: searched,
    })
  })

  it('the programs, each with its image, price and courses in their order', async () => {
    const programs = (await listPrograms(learner)).rows
    expect(programs.map((program) => program.courses.length).sort()).toEqual([0, 1, 3])
    expect(programs.filter((program) => program.programImage && program.price === 12.5)).toHaveLength(1)
    await expectAnswer(await get(programsRoute, '/api/program/getPrograms', { token: learner.token }), {
      data: programs,
    })
  })

  it('the assessments, expanded, searched or not', async () => {
    const all = (await listAllAssessments(admin)).rows.map(expandedAssessment)
    expect(all).toHaveLength(2)
    await expectAnswer(await get(documentsRoute, '/api/assignmentDocuments/getAssignmentDocuments'), { data: all })
    const searched = (await listAllAssessments(admin, { q: 'answer-1' })).rows.map(expandedAssessment)
    expect(searched).toHaveLength(1)
    await expectAnswer(await get(documentsRoute, '/api/assignmentDocuments/getAssignmentDocuments?q=answer-1'), {
      data: searched,
    })
  })

  it('keep the paged form as it was', async () => {
    const page = await get(learnersRoute, '/api/user/usersList/user?page=2&size=3')
    const rows = (await listUsers(admin, 'learner', {})).rows.slice(3, 6)
    expect(await page.json()).toEqual({ message: rows, total: GENERATED_LEARNERS + 1, page: 2, size: 3 })
    const programs = await get(programsRoute, '/api/program/getPrograms?page=1&size=2')
    expect(await programs.json()).toEqual({
      data: (await listPrograms(admin)).rows.slice(0, 2),
      total: 3,
      page: 1,
      size: 2,
    })
    const refused = await get(learnersRoute, '/api/user/usersList/user?page=0&size=3')
    expect(refused.status).toBe(400)
  })
})

describe('refusals come before the first byte, as JSON', () => {
  async function expectRefusal(response: Response, status: number) {
    expect(response.status).toBe(status)
    expect(response.headers.get('Content-Type')).toMatch(/^application\/json/)
    expect(await response.json()).toEqual({ message: expect.any(String) })
  }

  it('refuses learners the admin-side lists with 403', async () => {
    const token = learner.token
    await expectRefusal(await get(learnersRoute, '/api/user/usersList/user', { token }), 403)
    await expectRefusal(await get(adminsRoute, '/api/user/usersList/admin', { token }), 403)
    await expectRefusal(await get(allUsersRoute, '/api/category/allusers', { token }), 403)
    await expectRefusal(await post(accessLogRoute, '/api/category/accessLog', {}, token), 403)
    await expectRefusal(await get(documentsRoute, '/api/assignmentDocuments/getAssignmentDocuments', { token }), 403)
  })

  it('refuses a token that is no good with 401', async () => {
    const token = 'not-a-token'
    for (const [route, path] of [
      [learnersRoute, '/api/user/usersList/user'],
      [courseTitlesRoute, '/api/category/coursesList'],
      [coursesRoute, '/api/category/courses'],
      [programsRoute, '/api/program/getPrograms'],
    ] as const)
      await expectRefusal(await get(route, path, { token }), 401)
  })

  it('refuses a wrong access-log filter with 400 and what is wrong', async () => {
    const refused = await post(accessLogRoute, '/api/category/accessLog', { startDate: 'someday' })
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({ errors: { startDate: 'Start date must be a date.' } })
  })
})

describe('a long list is read as it is sent', () => {
  /** How many pooled connections are lent out right now. */
  const connectionsInUse = async () =>
    ((await sequelize()).connectionManager as unknown as { pool: { using: number } }).pool.using

  it('sends the first chunks while the query is still open, and gives the connection back at the end', async () => {
    const before = await connectionsInUse()
    const response = await get(learnersRoute, '/api/user/usersList/user')
    const reader = response.body!.getReader()
    const chunks: Uint8Array[] = []
    for (let i = 0; i < 3; i++) {
      const chunk = await reader.read()
      expect(chunk.done).toBe(false)
      chunks.push(chunk.value!)
      // the answer has begun and the cursor still holds its connection: the list was never whole
      expect(await connectionsInUse()).toBe(before + 1)
    }
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) chunks.push(chunk.value)
    expect(chunks.length).toBeGreaterThan(10)
    const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message: unknown[] }
    expect(answer.message).toHaveLength(GENERATED_LEARNERS + 1)
    await expect.poll(connectionsInUse).toBe(before)
  })

  it('closes the cursor and gives the connection back when the client goes away part-way', async () => {
    const before = await connectionsInUse()
    const client = new AbortController()
    const response = await get(learnersRoute, '/api/user/usersList/user', { signal: client.signal })
    const reader = response.body!.getReader()
    await reader.read()
    expect(await connectionsInUse()).toBe(before + 1)
    client.abort()
    await expect.poll(connectionsInUse).toBe(before)

    const cancelled = await get(learnersRoute, '/api/user/usersList/user')
    const cancelledReader = cancelled.body!.getReader()
    await cancelledReader.read()
    expect(await connectionsInUse()).toBe(before + 1)
    await cancelledReader.cancel()
    await expect.poll(connectionsInUse).toBe(before)

    // the connections given back are fit for the next caller
    const again = await get(learnersRoute, '/api/user/usersList/user')
    expect(((await again.json()) as { message: unknown[] }).message).toHaveLength(GENERATED_LEARNERS + 1)
    await expect.poll(connectionsInUse).toBe(before)
  })
})

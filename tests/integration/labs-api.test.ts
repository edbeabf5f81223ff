import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { closeSandbox } from '#app/modules/labs/sandbox.server.ts'
import { importLab } from '#app/modules/labs/service.server.ts'
import * as labsRoute from '#app/routes/api+/labs.ts'
import * as labRoute from '#app/routes/api+/labs_.$labId.ts'
import * as attemptsRoute from '#app/routes/api+/labs_.$labId_.attempts.ts'
import { sequelize } from '#db/client.ts'
import { assignCourse, makeCoach, makeCourse, makeLearner, labFolderOf } from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'

// The labs' /api: a learner lists the labs of an assigned course and opens one (its tables, its exercises
// with their state), sends attempts (graded and kept, hints opening after failures); a refused statement is a
// 400 naming it, a course not assigned a 403, a second attempt while one is graded a 429 with Retry-After.

const LAB = `title: Cities
description: Cities and their countries.
minutes: 10
dataset: data.sql
exercises:
  - key: swiss
    title: Swiss cities
    prompt: List the *Swiss* cities.
    solution: SELECT name FROM city WHERE country = 'CH'
    hints:
      - Filter on the country.
      - Its code is CH.
  - key: slow
    title: A slow one
    prompt: Anything.
    solution: SELECT name FROM city
`
const DATA =
  "CREATE TABLE city (name text NOT NULL, country char(2)); INSERT INTO city VALUES ('Bern', 'CH'), ('Lyon', 'FR');"

let courseId = ''
let labId = ''
let hiddenId = ''

beforeAll(async () => {
  const course = await makeCourse()
  courseId = course.id
  const folder = labFolderOf(LAB, DATA)
  labId = (await importLab(SYSTEM, { folder, course: course.id })).id
  const hidden = { ...folder, definition: { ...folder.definition, title: 'Hidden cities' } }
  hiddenId = (await importLab(SYSTEM, { folder: hidden, course: course.id })).id
  await (await sequelize()).query('UPDATE labs SET visibility = false WHERE id = $1', { bind: [hiddenId] })
}, 60_000)

afterAll(() => closeSandbox())

const attempt = (token: string, json: unknown, id = labId) =>
  call(attemptsRoute.action as never, `/api/labs/${id}/attempts`, {
    method: 'POST',
    json,
    token,
    params: { labId: id },
  })

describe('the labs /api', () => {
  it('lists the visible labs of an assigned course, and every lab to the admin side', async () => {
    const learner = await makeLearner()
    await assignCourse(learner.id, courseId)
    const listed = await call(labsRoute.loader as never, `/api/labs?courseId=${courseId}`, { token: learner.token })
    expect(listed.status).toBe(200)
    expect(await body(listed)).toEqual({
      data: [
        {
          id: labId,
          title: 'Cities',
          courseId,
          minutes: 10,
          exercises: [
            { key: 'swiss', title: 'Swiss cities', passed: false, attempts: 0 },
            { key: 'slow', title: 'A slow one', passed: false, attempts: 0 },
          ],
        },
      ],
    })
    const coach = await makeCoach()
    const all = await body<{ data: { title: string }[] }>(
      await call(labsRoute.loader as never, `/api/labs?courseId=${courseId}`, { token: coach.token }),
    )
    expect(all.data.map((l) => l.title).sort()).toEqual(['Cities', 'Hidden cities'])
  })

  it('opens a lab with its tables, grades attempts, keeps them and opens the hints one by one', async () => {
    const learner = await makeLearner()
    await assignCourse(learner.id, courseId)
    const opened = await body<{ data: Record<string, unknown> }>(
      await call(labRoute.loader as never, `/api/labs/${labId}`, { token: learner.token, params: { labId } }),
    )
    expect(opened.data).toMatchObject({
      title: 'Cities',
      description: 'Cities and their countries.',
      tables: [
        {
          name: 'city',
          columns: [
            { name: 'name', type: 'text' },
            { name: 'country', type: 'character(2)' },
          ],
        },
      ],
      exercises: [
        { key: 'swiss', prompt: 'List the *Swiss* cities.', points: 1, passed: false, attempts: 0, hints: [] },
        {},
      ],
    })

    const wrong = await attempt(learner.token, { exercise: 'swiss', sql: 'SELECT name FROM city' })
    expect(wrong.status).toBe(200)
    expect(await body(wrong)).toMatchObject({
      data: {
        passed: false,
        columns: ['name'],
        rows: [['Bern'], ['Lyon']],
        extraRows: [['Lyon']],
        hints: ['Filter on the country.'],
      },
    })
    const error = await body(await attempt(learner.token, { exercise: 'swiss', sql: 'SELECT nme FROM city' }))
    expect(error).toMatchObject({ data: { passed: false, message: 'column "nme" does not exist', position: 8 } })
    const right = await body(
      await attempt(learner.token, { exercise: 'swiss', sql: "select name from city where country = 'CH'" }),
    )
    expect(right).toMatchObject({
      data: { passed: true, attempts: 3, hints: ['Filter on the country.', 'Its code is CH.'] },
    })

    const [{ count }] = await (
      await sequelize()
    ).query<{ count: number }>('SELECT count(*)::int AS count FROM lab_attempts WHERE user_id = $1', {
      bind: [learner.id],
      type: 'SELECT' as never,
    })
    expect(count).toBe(3)
    const after = await body<{ data: { exercises: { key: string; passed: boolean; attempts: number }[] } }>(
      await call(labRoute.loader as never, `/api/labs/${labId}`, { token: learner.token, params: { labId } }),
    )
    expect(after.data.exercises[0]).toMatchObject({ key: 'swiss', passed: true, attempts: 3 })
  })

  it('refuses with 400 what the exercise does not take, and keeps no attempt of it', async () => {
    const learner = await makeLearner()
    await assignCourse(learner.id, courseId)
    for (const [sql, named] of [
      ['DELETE FROM city', /DELETE is not allowed here/],
      ['SELECT 1; SELECT 2', /single statement/],
      ["SELECT pg_read_file('/etc/passwd')", /pg_read_file\(\) is not allowed/],
      [`SELECT '${'x'.repeat(30_000)}'`, /The SQL is too long: 30009 bytes, where this exercise takes at most 20000/],
    ] as const) {
      const refused = await attempt(learner.token, { exercise: 'swiss', sql })
      expect(refused.status).toBe(400)
      expect((await body<{ message: string }>(refused)).message).toMatch(named)
    }
    // a megabyte of SQL is refused before it is read whole
    const huge = await attempt(learner.token, { exercise: 'swiss', sql: `SELECT '${'x'.repeat(1024 * 1024)}'` })
    expect(huge.status).toBe(413)
    expect((await body<{ message: string }>(huge)).message).toMatch(/too large/i)
    const missing = await attempt(learner.token, { exercise: 'swiss' })
    expect(missing.status).toBe(400)
    const listed = await body<{ data: { exercises: { attempts: number }[] }[] }>(
      await call(labsRoute.loader as never, `/api/labs?courseId=${courseId}`, { token: learner.token }),
    )
    expect(listed.data[0].exercises[0].attempts).toBe(0)
  })

  it('refuses a learner the labs of a course not assigned to them, and a hidden lab, as for videos', async () => {
    const outsider = await makeLearner()
    const listed = await call(labsRoute.loader as never, `/api/labs?courseId=${courseId}`, { token: outsider.token })
    expect(listed.status).toBe(403)
    const opened = await call(labRoute.loader as never, `/api/labs/${labId}`, {
      token: outsider.token,
      params: { labId },
    })
    expect(opened.status).toBe(403)
    expect((await attempt(outsider.token, { exercise: 'swiss', sql: 'SELECT 1' })).status).toBe(403)

    const learner = await makeLearner()
    await assignCourse(learner.id, courseId)
    const hidden = await call(labRoute.loader as never, `/api/labs/${hiddenId}`, {
      token: learner.token,
      params: { labId: hiddenId },
    })
    expect(hidden.status).toBe(403)
    expect((await attempt(learner.token, { exercise: 'swiss', sql: 'SELECT 1' }, hiddenId)).status).toBe(403)
    const none = '00000000-0000-4000-8000-000000000000'
    expect(
      (await call(labRoute.loader as never, `/api/labs/${none}`, { token: learner.token, params: { labId: none } }))
        .status,
    ).toBe(404)
  })

  it('answers 429 with Retry-After to a second attempt while the first is being graded', async () => {
    const learner = await makeLearner()
    await assignCourse(learner.id, courseId)
    const slow = attempt(learner.token, { exercise: 'slow', sql: 'SELECT name FROM city, pg_sleep(1)' })
    // the first is graded by now: vetting and the sandbox's connection take some milliseconds
    await new Promise((resolve) => setTimeout(resolve, 300))
    const second = await attempt(learner.token, { exercise: 'swiss', sql: 'SELECT name FROM city' })
    expect(second.status).toBe(429)
    expect(second.headers.get('Retry-After')).toBe('2')
    expect((await body<{ message: string }>(second)).message).toBe('Your previous attempt is still being graded.')
    expect(await body(await slow)).toMatchObject({ data: { passed: true } })
  })
})

import { within } from '@testing-library/dom'
import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
import { EXPORT_HEADERS, writeAccessLog } from '#app/modules/access-log/export.server.ts'
import { accessLogReport } from '#app/modules/access-log/service.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import * as accessLogPage from '#app/routes/admin+/accesslog.tsx'
import * as exportRoute from '#app/routes/admin+/accesslog_.export.ts'
import * as accessLogRoute from '#app/routes/api+/category.accessLog.ts'
import { sequelize } from '#db/client.ts'
import {
  assignCourse,
  makeAdmin,
  makeCoach,
  makeCourse,
  makeLab,
  makeLearner,
  makeUser,
  recordLabAttempt,
  recordWatched,
} from '#tests/factories.ts'
import { memorySink } from '#tests/fixtures/files.ts'
import { renderRoute, type RouteModule } from '#tests/render.tsx'
import { body, call } from '#tests/requests.ts'
import { sessionCookieFor } from '#tests/sessions.ts'

// Lab attempts in the access log: one row per learner and lab exercise attempted (first name, email, course,
// lab and exercise, passed once any attempt passed, the attempts, the last one's time), merged newest first
// with the video rows, filtered by course and by the last attempt's day; on the page and in the exports, and on
// the /api only when asked with `includeLabs` (its old client reads every row as a video).

const stamp = () => Date.now() % 1e6

const sql = async (text: string, bind: unknown[] = []) => (await sequelize()).query(text, { bind })

/** A course with one video and a lab of two exercises, and a learner assigned it. */
async function courseWithLab(title = `Labs ${stamp()}`) {
  const course = await makeCourse({ title, videos: [{ title: 'Intro', duration: 100 }] })
  const lab = await makeLab(course.id, { title: 'Cities', exercises: ['Swiss cities', 'Big cities'] })
  const learner = await makeLearner()
  await assignCourse(learner.id, course.id)
  return { course, lab, learner, swiss: lab.exercises[0], big: lab.exercises[1] }
}

const setViewedAt = (userId: string, at: string) =>
  sql('UPDATE video_progress SET updated_at = $2 WHERE user_id = $1', [userId, at])

const labReport = (input: Record<string, unknown>, page?: { offset: number; limit: number }) =>
  accessLogReport(SYSTEM, { ...input, includeLabs: true }, page)

const report = (json: unknown, token?: string, query = '') =>
  call(accessLogRoute.action as never, `/api/category/accessLog${query}`, { method: 'POST', json, token })

describe('lab rows of the access log', () => {
  it('are one per learner and exercise attempted: attempts, passed once any passed, the last attempt’s time', async () => {
    const { course, learner, swiss, big } = await courseWithLab()
    await recordLabAttempt(learner.id, swiss.id, false, '2026-03-03T09:00:00Z')
    await recordLabAttempt(learner.id, swiss.id, true, '2026-03-03T09:05:00Z')
    // a failed attempt after the pass: still passed, and the row's time moves on
    await recordLabAttempt(learner.id, swiss.id, false, '2026-03-04T10:00:00Z')
    await recordLabAttempt(learner.id, big.id, false, '2026-03-02T08:00:00Z')
    // the admin side trying the lab out is not a learner's history
    const admin = await makeAdmin()
    await recordLabAttempt(admin.id, swiss.id, true, '2026-03-05T08:00:00Z')

    const { rows, total } = await labReport({ courses: [course.id] })
    expect(total).toBe(2)
    const person = { name: `${learner.firstName} ${learner.lastName}`, firstName: learner.firstName }
    expect(rows).toEqual([
      {
        kind: 'lab',
        ...person,
        email: learner.email,
        courseName: course.title,
        chapter: 'Cities › Swiss cities',
        lab: 'Cities',
        exercise: 'Swiss cities',
        passed: true,
        attempts: 3,
        lastViewed: '2026-03-04T10:00:00.000Z',
      },
      {
        kind: 'lab',
        ...person,
        email: learner.email,
        courseName: course.title,
        chapter: 'Cities › Big cities',
        lab: 'Cities',
        exercise: 'Big cities',
        passed: false,
        attempts: 1,
        lastViewed: '2026-03-02T08:00:00.000Z',
      },
    ])
  })

  it('come in one newest-first order with the video rows, paged with one total', async () => {
    const { course, learner, swiss, big } = await courseWithLab()
    await recordWatched(learner.id, course.id, course.videos[0], 40)
    await setViewedAt(learner.id, '2026-03-03T12:00:00Z')
    await recordLabAttempt(learner.id, swiss.id, true, '2026-03-04T12:00:00Z')
    await recordLabAttempt(learner.id, big.id, false, '2026-03-02T12:00:00Z')

    const all = await labReport({ courses: [course.id] })
    expect(all.rows.map((r) => [r.chapter, r.lastViewed])).toEqual([
      ['Cities › Swiss cities', '2026-03-04T12:00:00.000Z'],
      ['Intro', '2026-03-03T12:00:00.000Z'],
      ['Cities › Big cities', '2026-03-02T12:00:00.000Z'],
    ])
    expect(all.rows[1]).toMatchObject({ kind: 'video', videoProgress: 40, videoDuration: 100 })
    const second = await labReport({ courses: [course.id] }, { offset: 1, limit: 1 })
    expect(second).toMatchObject({ total: 3, rows: [{ kind: 'video', chapter: 'Intro' }] })
    const third = await labReport({ courses: [course.id] }, { offset: 2, limit: 1 })
    expect(third.rows).toEqual([expect.objectContaining({ kind: 'lab', exercise: 'Big cities' })])
    // without a course chosen, the same merge over every course
    const everywhere = (await labReport({ startDate: '2026-03-02', endDate: '2026-03-04' })).rows.filter(
      (r) => r.email === learner.email,
    )
    expect(everywhere.map((r) => r.chapter)).toEqual(all.rows.map((r) => r.chapter))
  })

  it('are filtered by course, and by the day of the last attempt (in the filter’s time zone)', async () => {
    const sqlCourse = await courseWithLab(`Lab SQL ${stamp()}`)
    const etl = await courseWithLab(`Lab ETL ${stamp()}`)
    const learner = sqlCourse.learner
    await recordLabAttempt(learner.id, sqlCourse.swiss.id, false, '2026-03-03T10:00:00Z')
    await recordLabAttempt(learner.id, sqlCourse.swiss.id, true, '2026-03-09T23:30:00Z')
    await recordLabAttempt(learner.id, etl.swiss.id, true, '2026-03-05T10:00:00Z')

    const exercises = async (input: Record<string, unknown>) => {
      const { rows, total } = await labReport(input)
      const mine = rows.filter((r) => r.email === learner.email)
      expect(total, JSON.stringify(input)).toBe(rows.length)
      return mine.map((r) => `${r.courseName}: ${'exercise' in r ? r.exercise : r.chapter}`)
    }
    const both = [sqlCourse.course.id, etl.course.id]
    expect(await exercises({ courses: [etl.course.id] })).toEqual([`${etl.course.title}: Swiss cities`])
    expect(await exercises({ courses: both })).toEqual([
      `${sqlCourse.course.title}: Swiss cities`,
      `${etl.course.title}: Swiss cities`,
    ])
    // the first attempt's day no longer selects the row: the last one's does
    expect(await exercises({ courses: both, startDate: '2026-03-03', endDate: '2026-03-03' })).toEqual([])
    expect(await exercises({ courses: both, startDate: '03/09/2026', endDate: '03/09/2026' })).toEqual([
      `${sqlCourse.course.title}: Swiss cities`,
    ])
    // 23:30 UTC on 9 March is 10 March in Berlin
    expect(
      await exercises({ courses: both, startDate: '2026-03-10', endDate: '2026-03-10', timeZone: 'Europe/Berlin' }),
    ).toEqual([`${sqlCourse.course.title}: Swiss cities`])
    expect(await exercises({ courses: both, endDate: '2026-03-05' })).toEqual([`${etl.course.title}: Swiss cities`])
  })

  it('stay as history when the lab is hidden or the course unassigned, and follow attempts changed or gone', async () => {
    const { course, lab, learner, swiss, big } = await courseWithLab()
    await recordLabAttempt(learner.id, swiss.id, true, '2026-02-01T12:00:00Z')
    await recordLabAttempt(learner.id, big.id, false, '2026-02-02T12:00:00Z')
    await sql('UPDATE labs SET visibility = false WHERE id = $1', [lab.id])
    await sql('DELETE FROM course_assignments WHERE user_id = $1', [learner.id])
    const shown = async (input: Record<string, unknown> = {}) => {
      const { rows, total } = await labReport({ courses: [course.id], ...input })
      expect(total).toBe(rows.length)
      return rows.map((r) => ('exercise' in r ? `${r.exercise} ${r.attempts} ${r.passed}` : r.chapter))
    }
    expect(await shown()).toEqual(['Big cities 1 false', 'Swiss cities 1 true'])

    // an attempt corrected to another day moves its row, and its day's count
    await sql('UPDATE lab_attempts SET created_at = $2 WHERE exercise_id = $1', [big.id, '2026-01-15T12:00:00Z'])
    expect(await shown({ startDate: '2026-02-02', endDate: '2026-02-02' })).toEqual([])
    expect(await shown({ endDate: '2026-01-31' })).toEqual(['Big cities 1 false'])
    // an exercise the author took out of the lab goes with its attempts
    await sql('DELETE FROM lab_exercises WHERE id = $1', [big.id])
    expect(await shown()).toEqual(['Swiss cities 1 true'])
    // and a learner who leaves takes their rows along
    await sql('DELETE FROM users WHERE id = $1', [learner.id])
    expect(await shown()).toEqual([])
    const [[{ left }]] = (await sql(
      'SELECT count(*)::int AS left FROM lab_result_day_counts WHERE results <> 0 AND course_id = $1',
      [course.id],
    )) as [{ left: number }[], unknown]
    expect(left).toBe(0)
  })
})

describe('POST /api/category/accessLog and lab rows', () => {
  it('answers video rows only, as before, unless includeLabs asks for the lab rows with their kind', async () => {
    const { course, learner, swiss } = await courseWithLab()
    await recordWatched(learner.id, course.id, course.videos[0], 40)
    await setViewedAt(learner.id, '2026-03-03T12:00:00Z')
    await recordLabAttempt(learner.id, swiss.id, true, '2026-03-04T12:00:00Z')
    const admin = await makeAdmin()

    const plain = await body<{ data: Record<string, unknown>[] }>(await report({ courses: [course.id] }, admin.token))
    expect(plain.data).toEqual([
      {
        name: `${learner.firstName} ${learner.lastName}`,
        firstName: learner.firstName,
        email: learner.email,
        courseName: course.title,
        chapter: 'Intro',
        videoDuration: 100,
        videoProgress: 40,
        lastViewed: '2026-03-03T12:00:00.000Z',
      },
    ])
    const paged = await body<{ total: number }>(await report({ courses: [course.id] }, admin.token, '?page=1&size=7'))
    expect(paged.total).toBe(1)

    const withLabs = await body<{ data: Record<string, unknown>[] }>(
      await report({ courses: [course.id], includeLabs: true }, admin.token),
    )
    expect(withLabs.data).toEqual([
      expect.objectContaining({ kind: 'lab', chapter: 'Cities › Swiss cities', passed: true, attempts: 1 }),
      expect.objectContaining({ kind: 'video', chapter: 'Intro', videoProgress: 40 }),
    ])
    expect(withLabs.data[0]).not.toHaveProperty('videoProgress')
    const pagedWithLabs = await body<{ total: number; data: unknown[] }>(
      await report({ courses: [course.id], includeLabs: true }, admin.token, '?page=1&size=1'),
    )
    expect(pagedWithLabs).toMatchObject({ total: 2, data: [expect.objectContaining({ kind: 'lab' })] })
  })

  it('refuses an includeLabs that is not true or false, and keeps the log from learners', async () => {
    const admin = await makeAdmin()
    const wrong = await report({ includeLabs: 'yes' }, admin.token)
    expect(wrong.status).toBe(400)
    expect(await body(wrong)).toMatchObject({ errors: { includeLabs: 'Include labs must be true or false.' } })
    const learner = await makeLearner()
    expect((await report({ includeLabs: true }, learner.token)).status).toBe(403)
    expect((await report({ includeLabs: true })).status).toBe(401)
    const coach = await makeCoach()
    expect((await report({ includeLabs: true }, coach.token)).status).toBe(200)
  })
})

describe('the Access Log page and its exports with lab rows', () => {
  it('shows a lab row as the lab and exercise, its attempts and its result', async () => {
    const { course, learner, swiss, big } = await courseWithLab()
    await recordLabAttempt(learner.id, swiss.id, false, '2026-03-04T12:00:00Z')
    await recordLabAttempt(learner.id, swiss.id, true, '2026-03-04T12:01:00Z')
    await recordLabAttempt(learner.id, big.id, false, '2026-03-03T12:00:00Z')
    const cookie = await sessionCookieFor((await makeCoach()).userName)
    const page = await renderRoute(accessLogPage as RouteModule, `/admin/accesslog?course=${course.id}`, { cookie })
    const table = page.getByRole('table', { name: 'Access Log' })
    const [, passedRow, notPassedRow] = within(table).getAllByRole('row')
    const cells = (row: HTMLElement) => [...row.querySelectorAll('td')].map((td) => td.textContent)
    expect(cells(passedRow)).toEqual([
      learner.firstName,
      learner.email,
      course.title,
      'Lab: Cities › , exercise: Swiss cities',
      '2 attempts',
      'Passed',
      '03/04/2026',
    ])
    expect(cells(notPassedRow).slice(3, 6)).toEqual(['Lab: Cities › , exercise: Big cities', '1 attempt', 'Not passed'])
  })

  it('exports lab rows in CSV and JSON Lines, in the added columns, the video columns left empty', async () => {
    const { course, learner, swiss } = await courseWithLab()
    await recordWatched(learner.id, course.id, course.videos[0], 40)
    await setViewedAt(learner.id, '2026-03-03T12:00:00Z')
    await recordLabAttempt(learner.id, swiss.id, false, '2026-03-04T11:00:00Z')
    await recordLabAttempt(learner.id, swiss.id, true, '2026-03-04T12:00:00Z')

    // the existing columns keep their place; the lab's come after them
    expect(EXPORT_HEADERS).toEqual([
      'First Name',
      'Email ID',
      'Course Name',
      'Video title',
      'Video Duration',
      'Video Progress',
      'Last Viewed',
      'Last Name',
      'Learner ID',
      'Course ID',
      'Video ID',
      'Kind',
      'Lab title',
      'Exercise title',
      'Result',
      'Attempts',
      'Lab ID',
      'Exercise ID',
    ])
    const csv = memorySink()
    expect(await writeAccessLog(SYSTEM, { courses: [course.id] }, csv.sink)).toMatchObject({ rows: 2 })
    const records = parse(csv.text(), { columns: true }) as Record<string, string>[]
    expect(records).toEqual([
      expect.objectContaining({
        'First Name': learner.firstName,
        'Email ID': learner.email,
        'Course Name': course.title,
        'Video title': '',
        'Video Duration': '',
        'Video Progress': '',
        'Last Viewed': '2026-03-04T12:00:00.000Z',
        'Video ID': '',
        Kind: 'lab',
        'Lab title': 'Cities',
        'Exercise title': 'Swiss cities',
        Result: 'Passed',
        Attempts: '2',
        'Exercise ID': swiss.id,
      }),
      expect.objectContaining({
        'Video title': 'Intro',
        'Video Progress': '40',
        'Last Viewed': '2026-03-03T12:00:00.000Z',
        Kind: 'video',
        'Lab title': '',
        Result: '',
        Attempts: '',
      }),
    ])
    expect(records[0]['Lab ID']).toMatch(/^[0-9a-f-]{36}$/)

    const jsonl = memorySink()
    await writeAccessLog(SYSTEM, { courses: [course.id] }, jsonl.sink, { format: 'jsonl' })
    const objects = jsonl
      .text()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(objects).toEqual([
      expect.objectContaining({
        kind: 'lab',
        videoTitle: null,
        videoProgress: null,
        labTitle: 'Cities',
        exerciseTitle: 'Swiss cities',
        result: 'Passed',
        attempts: 2,
        exerciseId: swiss.id,
      }),
      expect.objectContaining({
        kind: 'video',
        videoTitle: 'Intro',
        videoProgress: 40,
        labTitle: null,
        attempts: null,
      }),
    ])
  })

  it('downloads the lab rows from the page’s Export CSV, for the admin side only', async () => {
    const { course, learner, swiss } = await courseWithLab()
    await recordLabAttempt(learner.id, swiss.id, false)
    const admin = await sessionCookieFor((await makeAdmin()).userName)
    const response = await call(exportRoute.loader as never, `/admin/accesslog/export?course=${course.id}`, {
      headers: { Cookie: admin },
    })
    expect(response.status).toBe(200)
    const records = parse(await response.text(), { columns: true }) as Record<string, string>[]
    expect(records.map((r) => [r.Kind, r['Exercise title'], r.Result, r.Attempts])).toEqual([
      ['lab', 'Swiss cities', 'Not passed', '1'],
    ])
    const other = await sessionCookieFor((await makeUser()).userName)
    const refused = await call(exportRoute.loader as never, `/admin/accesslog/export?course=${course.id}`, {
      headers: { Cookie: other },
    })
    expect(refused.status).toBe(302)
  })
})

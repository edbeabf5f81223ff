import { describe, expect, it } from 'vitest'
import { accessLogReport } from '#app/modules/access-log/service.server.ts'
import { recordProgress, recordVideoAudit } from '#app/modules/progress/service.server.ts'
import * as accessLogPage from '#app/routes/admin+/accesslog.tsx'
import * as accessLogRoute from '#app/routes/api+/category.accessLog.ts'
import * as allUsersRoute from '#app/routes/api+/category.allusers.ts'
import { sequelize } from '#db/client.ts'
import { assignCourse, makeAdmin, makeCoach, makeCourse, makeLearner, recordWatched } from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'
import { sessionCookieFor } from '#tests/sessions.ts'

type Entry = {
  firstName: string
  email: string
  courseName: string
  chapter: string
  videoProgress: number
  lastViewed: string
}

/** A new learner assigned a new course of one video titled `title`: the video as progress calls name it. */
async function oneVideo(title: string, duration: number | null = 100) {
  const learner = await makeLearner()
  const course = await makeCourse({ title: `${title} ${Date.now() % 1e6}`, videos: [{ title, duration }] })
  await assignCourse(learner.id, course.id)
  return { learner, course, video: { courseId: course.id, videoId: course.videos[0].id } }
}

async function viewing() {
  const learner = await makeLearner()
  const sql = await makeCourse({ title: `Log SQL ${Date.now() % 1e6}`, videos: [{ title: 'Select', duration: 100 }] })
  const etl = await makeCourse({ title: `Log ETL ${Date.now() % 1e6}`, videos: [{ title: 'Extract', duration: 200 }] })
  for (const course of [sql, etl]) await assignCourse(learner.id, course.id)
  await recordWatched(learner.id, sql.id, sql.videos[0], 40)
  await recordWatched(learner.id, etl.id, etl.videos[0], 90)
  // the SQL viewing was on 3 March 2026, the ETL one now
  await (
    await sequelize()
  ).query("UPDATE video_progress SET updated_at = '2026-03-03T10:00:00Z' WHERE user_id = :id AND course_id = :course", {
    replacements: { id: learner.id, course: sql.id },
  })
  return { learner, sql, etl }
}

const report = (json: unknown, token?: string, query = '') =>
  call(accessLogRoute.action as never, `/api/category/accessLog${query}`, { method: 'POST', json, token })

describe('POST /api/category/accessLog and GET /api/category/allusers', () => {
  it('report each learner’s furthest point and last view per video, filtered by course and dates', async () => {
    const { learner, sql, etl } = await viewing()
    const admin = await makeAdmin()
    const bySql = await body<{ data: Entry[] }>(await report({ courses: [sql.id] }, admin.token))
    expect(bySql.data).toEqual([
      expect.objectContaining({
        firstName: learner.firstName,
        email: learner.email,
        courseName: sql.title,
        chapter: 'Select',
        videoProgress: 40,
        lastViewed: '2026-03-03T10:00:00.000Z',
      }),
    ])
    const march = await body<{ data: Entry[] }>(
      // the report's MM/dd/yyyy and the date inputs' yyyy-MM-dd both name a day
      await report({ startDate: '03/03/2026', endDate: '2026-03-03', courses: [sql.id, etl.id] }, admin.token),
    )
    expect(march.data.map((e) => e.chapter)).toEqual(['Select'])
    const both = await body<{ data: Entry[] }>(await report({ courses: [sql.id, etl.id] }, admin.token))
    expect(both.data.map((e) => e.chapter)).toEqual(['Extract', 'Select']) // newest first
    const paged = await body<{ data: Entry[]; total: number }>(
      await report({ courses: [sql.id, etl.id] }, admin.token, '?page=2&size=1'),
    )
    expect(paged).toMatchObject({ total: 2, data: [expect.objectContaining({ chapter: 'Select' })] })
    const all = await body<{ data: Entry[] }>(
      await call(allUsersRoute.loader as never, '/api/category/allusers', { token: (await makeCoach()).token }),
    )
    expect(all.data.filter((e) => e.email === learner.email)).toHaveLength(2)
  })

  it('shows the furthest second really played, even after the learner went back (any video host)', async () => {
    const { learner, course, video } = await oneVideo('Load', 300)
    // played 0–50, then went back to the start; no video audits (Vimeo and <video> send none)
    await recordProgress(learner, { ...video, watched: [[0, 50]], position: 50 })
    await recordProgress(learner, { ...video, watched: [[0, 5]], position: 5 })
    const admin = await makeAdmin()
    const entries = await body<{ data: Entry[] }>(await report({ courses: [course.id] }, admin.token))
    expect(entries.data).toEqual([expect.objectContaining({ chapter: 'Load', videoProgress: 50 })])
  })

  it('follows a heartbeat a few seconds after the last, though its Last Viewed stays put', async () => {
    const { learner, course, video } = await oneVideo('Soon', 300)
    await recordProgress(learner, { ...video, watched: [[0, 20]], position: 20 })
    const admin = await makeAdmin()
    const first = await body<{ data: Entry[] }>(await report({ courses: [course.id] }, admin.token))
    await recordProgress(learner, { ...video, watched: [[20, 45]], position: 45 })
    const second = await body<{ data: Entry[] }>(await report({ courses: [course.id] }, admin.token))
    expect(second.data).toEqual([expect.objectContaining({ videoProgress: 45, lastViewed: first.data[0].lastViewed })])
  })

  it('shows the length the player reported for a video the admin gave no duration', async () => {
    const { learner, course, video } = await oneVideo('Open', null)
    await recordProgress(learner, { ...video, watched: [[0, 30]], position: 30, duration: 240 })
    const admin = await makeAdmin()
    const entries = await body<{ data: (Entry & { videoDuration: number | null })[] }>(
      await report({ courses: [course.id] }, admin.token),
    )
    expect(entries.data).toEqual([expect.objectContaining({ chapter: 'Open', videoDuration: 240, videoProgress: 30 })])
  })

  it('is for the admin side only, and answers bad filters with 400', async () => {
    const learner = await makeLearner()
    expect((await report({})).status).toBe(401)
    expect((await report({}, learner.token)).status).toBe(403)
    expect((await call(allUsersRoute.loader as never, '/x', { token: learner.token })).status).toBe(403)
    const admin = await makeAdmin()
    expect((await report({ startDate: 'yesterday' }, admin.token)).status).toBe(400)
    expect((await report({ courses: ['nope'] }, admin.token)).status).toBe(400)
    const backwards = await report({ startDate: '2026-05-02', endDate: '2026-05-01' }, admin.token)
    expect(await body(backwards)).toMatchObject({ errors: { endDate: 'End date must not be before the start date.' } })
  })
})

describe('the Access Log page', () => {
  it('filters with a GET form and shows the report’s columns, or what is wrong with the filter', async () => {
    const { sql } = await viewing()
    const cookie = await sessionCookieFor((await makeCoach()).userName)
    const page = (await (
      await call(
        accessLogPage.loader as never,
        `/admin/accesslog?course=${sql.id}&startDate=2026-03-01&endDate=2026-03-31`,
        {
          headers: { Cookie: cookie },
        },
      )
    ).json()) as { rows: Entry[]; total: number }
    expect(page.total).toBe(1)
    expect(page.rows[0]).toMatchObject({ chapter: 'Select', courseName: sql.title })
    const wrong = (await (
      await call(accessLogPage.loader as never, '/admin/accesslog?startDate=2026-04-02&endDate=2026-04-01', {
        headers: { Cookie: cookie },
      })
    ).json()) as { errors: Record<string, string> }
    expect(wrong.errors.endDate).toBe('End date must not be before the start date.')
  })
})

describe('viewing from either write path', () => {
  const setAt = async (table: 'video_progress' | 'video_audits', column: string, id: string, at: string) =>
    (await sequelize()).query(`UPDATE ${table} SET ${column} = :at WHERE user_id = :id`, { replacements: { id, at } })

  it('shows a learner whose player sends only video audits', async () => {
    const other = await oneVideo('Only audits')
    // the audit caps its progress at the furthest playhead on record, so none here yet
    await recordVideoAudit(other.learner, {
      ...other.video,
      userId: other.learner.id,
      videoDuration: 100,
      videoProgress: 0,
    })
    const admin = await makeAdmin()
    const { rows, total } = await accessLogReport(admin, { courses: [other.course.id] })
    expect(total).toBe(1)
    expect(rows).toEqual([expect.objectContaining({ email: other.learner.email, chapter: 'Only audits' })])
  })

  it('filters and shows Last Viewed by the latest of the heartbeat and the audit', async () => {
    const { learner, course, video } = await oneVideo('Latest')
    await recordProgress(learner, { ...video, watched: [[0, 30]], position: 30 })
    await recordVideoAudit(learner, { ...video, userId: learner.id, videoDuration: 100, videoProgress: 30 })
    await setAt('video_progress', 'updated_at', learner.id, '2026-03-03T10:00:00Z')
    await setAt('video_audits', 'last_viewed_at', learner.id, '2026-03-09T08:00:00Z')
    const admin = await makeAdmin()
    const march3 = await accessLogReport(admin, {
      courses: [course.id],
      startDate: '2026-03-03',
      endDate: '2026-03-03',
    })
    expect(march3).toMatchObject({ total: 0, rows: [] })
    const march9 = await accessLogReport(admin, {
      courses: [course.id],
      startDate: '2026-03-09',
      endDate: '2026-03-09',
    })
    expect(march9.total).toBe(1)
    expect(march9.rows[0]).toMatchObject({ lastViewed: '2026-03-09T08:00:00.000Z', videoProgress: 30 })
    // a newer heartbeat wins again
    await setAt('video_progress', 'updated_at', learner.id, '2026-03-12T10:00:00Z')
    const latest = await accessLogReport(admin, { courses: [course.id] })
    expect(latest.rows[0].lastViewed).toBe('2026-03-12T10:00:00.000Z')
  })

  it('reads dates in the filter’s time zone', async () => {
    const { learner, course, video } = await oneVideo('Zoned')
    await recordProgress(learner, { ...video, watched: [[0, 5]], position: 5 })
    await setAt('video_progress', 'updated_at', learner.id, '2026-03-03T23:30:00Z')
    const admin = await makeAdmin()
    const day = (date: string, timeZone?: string) =>
      accessLogReport(admin, { courses: [course.id], startDate: date, endDate: date, timeZone }).then((r) => r.total)
    expect(await day('2026-03-03')).toBe(1)
    expect(await day('2026-03-04', 'Europe/Berlin')).toBe(1)
    expect(await day('2026-03-03', 'Europe/Berlin')).toBe(0)
    await expect(accessLogReport(admin, { timeZone: 'Mars/Olympus' })).rejects.toThrow(/IANA/)
  })

  it('keeps the pager’s total equal to the rows as viewings move between days and learners leave', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse({
      title: `Totals ${Date.now() % 1e6}`,
      videos: [
        { title: 'One', duration: 100 },
        { title: 'Two', duration: 100 },
      ],
    })
    const learners = [await makeLearner(), await makeLearner(), await makeLearner()]
    const days = ['2026-02-01T12:00:00Z', '2026-02-02T12:00:00Z', '2026-02-03T12:00:00Z']
    for (const [index, learner] of learners.entries()) {
      await assignCourse(learner.id, course.id)
      for (const v of course.videos) {
        await recordProgress(learner, { courseId: course.id, videoId: v.id, watched: [[0, 5]], position: 5 })
      }
      await setAt('video_progress', 'updated_at', learner.id, days[index])
    }
    // learner 0 moves to the third day, learner 1 leaves
    await setAt('video_progress', 'updated_at', learners[0].id, days[2])
    await (await sequelize()).query('DELETE FROM users WHERE id = :id', { replacements: { id: learners[1].id } })
    const filters = [
      { courses: [course.id] },
      { courses: [course.id], startDate: '2026-02-01', endDate: '2026-02-02' },
      { courses: [course.id], startDate: '2026-02-03' },
      { courses: [course.id], endDate: '2026-02-02' },
    ]
    const totals = []
    for (const filter of filters) {
      const { rows, total } = await accessLogReport(admin, filter)
      expect(total).toBe(rows.length)
      totals.push(total)
    }
    expect(totals).toEqual([4, 0, 4, 0])
  })
})

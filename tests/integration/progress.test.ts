import { QueryTypes } from 'sequelize'
import { describe, expect, it } from 'vitest'
import { getCourseContents, listAssignedCourses } from '#app/modules/courses/learner.server.ts'
import { recordProgress } from '#app/modules/progress/service.server.ts'
import * as progressListRoute from '#app/routes/api+/category.getVideosProgress.ts'
import * as auditRoute from '#app/routes/api+/category.videoAudit.ts'
import * as progressRoute from '#app/routes/api+/category.videoProgress.ts'
import * as accessLogRoute from '#app/routes/api+/user.postAccessLog.ts'
import { db, sequelize } from '#db/client.ts'
import { assignCourse, makeAdmin, makeCoach, makeCourse, makeLearner } from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'

// The progress rules (docs/product.md#progress): unique seconds, skipping ahead, two tabs, the 90 % threshold,
// resume, prerequisites, visibility and the percent cap.

async function setup(videos: NonNullable<Parameters<typeof makeCourse>[0]>['videos'] = [{ duration: 100 }]) {
  const learner = await makeLearner()
  const course = await makeCourse({ videos })
  await assignCourse(learner.id, course.id)
  return { learner, course, video: course.videos[0] }
}

type Who = { id: string; token: string; roleId: number }
const beat = (who: Who, courseId: string, videoId: string, watched: [number, number][], position = 0) =>
  call(progressRoute.action as never, '/api/category/videoProgress', {
    method: 'POST',
    token: who.token,
    json: { courseId, videoId, watched, position },
  })

/** As if the last heartbeat was `seconds` ago (the plausibility rule measures elapsed time). */
async function wait(userId: string, videoId: string, seconds: number) {
  await (
    await sequelize()
  ).query(
    `UPDATE video_progress SET updated_at = now() - make_interval(secs => :seconds) WHERE user_id = :userId AND video_id = :videoId`,
    {
      replacements: { seconds, userId, videoId },
    },
  )
}

async function stored(userId: string, videoId: string) {
  const [row] = await (
    await sequelize()
  ).query<{ watched_seconds: number; completed: boolean; last_position: number }>(
    'SELECT watched_seconds, completed, last_position FROM video_progress WHERE user_id = :userId AND video_id = :videoId',
    { replacements: { userId, videoId }, type: QueryTypes.SELECT },
  )
  return row
}

describe('POST /api/category/videoProgress', () => {
  it('counts each second once, however often it is played', async () => {
    const { learner, course, video } = await setup()
    expect(await body(await beat(learner, course.id, video.id, [[0, 10]], 10))).toEqual({
      watchedSeconds: 10,
      completed: false,
      lastPosition: 10,
      duration: 100,
    })
    await beat(learner, course.id, video.id, [[5, 15]], 15)
    await beat(learner, course.id, video.id, [[0, 10]], 10)
    expect(await stored(learner.id, video.id)).toMatchObject({ watched_seconds: 15, last_position: 10 })
  })

  it('does not count what was skipped by seeking ahead', async () => {
    const { learner, course, video } = await setup()
    await beat(learner, course.id, video.id, [[0, 5]], 5)
    // the learner jumps to 95 and plays to the end: 5 + 5 seconds, not 100
    const answer = await body(await beat(learner, course.id, video.id, [[95, 100]], 100))
    expect(answer).toMatchObject({ watchedSeconds: 10, completed: false, lastPosition: 100 })
  })

  it('completes a video at 90 % of its seconds, not before, and keeps it complete', async () => {
    const { learner, course, video } = await setup()
    await beat(learner, course.id, video.id, [[0, 60]], 60)
    await wait(learner.id, video.id, 30)
    expect(await body(await beat(learner, course.id, video.id, [[60, 89]], 89))).toMatchObject({
      watchedSeconds: 89,
      completed: false,
    })
    expect(await body(await beat(learner, course.id, video.id, [[89, 90]], 90))).toMatchObject({
      watchedSeconds: 90,
      completed: true,
    })
    // watching the start again later moves the resume point but never undoes completion
    expect(await body(await beat(learner, course.id, video.id, [[0, 3]], 3))).toMatchObject({
      completed: true,
      lastPosition: 3,
    })
  })

  it('keeps both tabs’ seconds when two tabs report at the same moment', async () => {
    const { learner, course, video } = await setup([{ duration: 200 }])
    await beat(learner, course.id, video.id, [[0, 1]], 1)
    await wait(learner.id, video.id, 60)
    const tabs = await Promise.all([
      beat(learner, course.id, video.id, [[10, 30]], 30),
      beat(learner, course.id, video.id, [[100, 120]], 120),
      beat(learner, course.id, video.id, [[150, 170]], 170),
    ])
    for (const tab of tabs) expect(tab.status).toBe(200)
    expect((await stored(learner.id, video.id)).watched_seconds).toBe(61)
  })

  it('refuses more seconds than the time since the last heartbeat allows (429), recording nothing', async () => {
    const { learner, course, video } = await setup([{ duration: 600 }])
    const first = await beat(learner, course.id, video.id, [[0, 120]], 120)
    expect(first.status).toBe(429)
    expect(await stored(learner.id, video.id)).toBeUndefined()
    await beat(learner, course.id, video.id, [[0, 20]], 20)
    const tooMuch = await beat(learner, course.id, video.id, [[20, 70]], 70)
    expect(tooMuch.status).toBe(429)
    expect(await body(tooMuch)).toHaveProperty('message')
    expect((await stored(learner.id, video.id)).watched_seconds).toBe(20)
    // after 25 s at up to 2× speed, 50 more seconds are plausible
    await wait(learner.id, video.id, 25)
    expect((await beat(learner, course.id, video.id, [[20, 70]], 70)).status).toBe(200)
  })

  it('does not let many small heartbeats add up faster than viewing', async () => {
    const { learner, course, video } = await setup([{ duration: 143 }])
    let accepted = 0
    for (let start = 0; start < 143; start += 10) {
      const response = await beat(learner, course.id, video.id, [[start, Math.min(start + 10, 143)]], start + 10)
      if (response.status === 200) accepted++
    }
    // one minute of credit at most, then nothing until time passes
    const row = await stored(learner.id, video.id)
    expect(row.watched_seconds).toBeLessThanOrEqual(61)
    expect(row.completed).toBe(false)
    expect(accepted).toBeLessThanOrEqual(7)
    // sent all at once, too
    const other = await setup([{ duration: 143 }])
    await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        beat(other.learner, other.course.id, other.video.id, [[i * 9, i * 9 + 9]], i * 9 + 9),
      ),
    )
    expect((await stored(other.learner.id, other.video.id)).watched_seconds).toBeLessThanOrEqual(61)
  })

  it('never completes a video without a duration, and keeps the length its first heartbeat gave', async () => {
    const { learner, course, video } = await setup([{ duration: null }])
    const send = (duration: number, watched: [number, number][]) =>
      call(progressRoute.action as never, '/x', {
        method: 'POST',
        token: learner.token,
        json: { courseId: course.id, videoId: video.id, watched, position: watched.at(-1)?.[1] ?? 0, duration },
      })
    expect(await body(await send(40, [[0, 40]]))).toMatchObject({ watchedSeconds: 40, completed: false, duration: 40 })
    // a later heartbeat claiming a shorter video does not shorten it
    expect(await body(await send(1, [[0, 1]]))).toMatchObject({ completed: false, duration: 40 })
    // with no duration anywhere, there is no length to record against
    const fresh = await setup([{ duration: null }])
    const missing = await call(progressRoute.action as never, '/x', {
      method: 'POST',
      token: fresh.learner.token,
      json: { courseId: fresh.course.id, videoId: fresh.video.id, watched: [[0, 1]], position: 1 },
    })
    expect(missing.status).toBe(400)
  })

  it('refuses progress beyond the duration, negative or non-numeric values, recording nothing', async () => {
    const { learner, course, video } = await setup()
    for (const watched of [[[90, 101]], [[-5, 3]], [['a', 3]], [[5, 5]], 'all', [[0, 100000]]]) {
      const response = await call(progressRoute.action as never, '/x', {
        method: 'POST',
        token: learner.token,
        json: { courseId: course.id, videoId: video.id, watched, position: 1 },
      })
      expect(response.status, JSON.stringify(watched)).toBe(400)
    }
    expect((await beat(learner, course.id, video.id, [[0, 1]], 250)).status).toBe(400)
    expect(await stored(learner.id, video.id)).toBeUndefined()
  })

  it('refuses a course that is not assigned, a hidden video, a locked video, and the admin side', async () => {
    const { learner, course } = await setup([
      { duration: 100 },
      { duration: 100, after: [0] },
      { duration: 50, visibility: false },
    ])
    const [first, second, hidden] = course.videos
    const other = await makeCourse({ videos: [{}] })
    expect((await beat(learner, other.id, other.videos[0].id, [[0, 1]])).status).toBe(403)
    expect((await beat(learner, course.id, hidden.id, [[0, 1]])).status).toBe(404)
    const locked = await beat(learner, course.id, second.id, [[0, 1]])
    expect(locked.status).toBe(403)
    expect(await body(locked)).toEqual({
      message: `You have to finish ${first.title} videos to unlock this video`,
    })
    for (const who of [await makeAdmin(), await makeCoach()])
      expect((await beat(who, course.id, first.id, [[0, 1]])).status).toBe(403)
    expect((await call(progressRoute.action as never, '/x', { method: 'POST', json: {} })).status).toBe(401)
    expect(await stored(learner.id, second.id)).toBeUndefined()
  })

  it('unlocks the next video and raises the course percent once the prerequisite is complete', async () => {
    const { learner, course } = await setup([{ duration: 60 }, { duration: 60, after: [0] }])
    const [first, second] = course.videos
    expect((await getCourseContents(learner, course.id)).videos[1].lockedBy).toEqual([first.title])
    await beat(learner, course.id, first.id, [[0, 55]], 55)
    const contents = await getCourseContents(learner, course.id)
    expect(contents.videos.map((v) => [v.completed, v.lockedBy])).toEqual([
      [true, []],
      [false, []],
    ])
    expect(contents.percent).toBe(46) // 55 of 120 seconds
    expect((await listAssignedCourses(learner))[0].percent).toBe(46)
    expect((await beat(learner, course.id, second.id, [[0, 10]], 10)).status).toBe(200)
  })

  it('lets a hidden prerequisite lock nothing', async () => {
    const { learner, course } = await setup([
      { duration: 60, visibility: false },
      { duration: 60, after: [0] },
    ])
    expect((await getCourseContents(learner, course.id)).videos[0].lockedBy).toEqual([])
    expect((await beat(learner, course.id, course.videos[1].id, [[0, 5]], 5)).status).toBe(200)
  })

  it('keeps the resume point, given back by getVideosProgress to its owner only', async () => {
    const { learner, course, video } = await setup()
    await recordProgress(learner, { courseId: course.id, videoId: video.id, watched: [[0, 42]], position: 42 })
    const list = (who: Who, userId: string) =>
      call(progressListRoute.action as never, '/x', {
        method: 'POST',
        token: who.token,
        json: { userId, courseId: course.id },
      })
    const own = await body<{ data: unknown[] }>(await list(learner, learner.id))
    expect(own.data).toEqual([
      expect.objectContaining({ videoId: video.id, completed: false, watchedSeconds: 42, lastPosition: 42 }),
    ])
    const stranger = await makeLearner()
    expect((await list(stranger, learner.id)).status).toBe(403)
    expect((await list(await makeCoach(), learner.id)).status).toBe(200)
    // a video hidden since: its record is no longer the learner's to read, the admin side still sees it
    await (await db()).ContentEntry.update({ visibility: false }, { where: { id: video.id } })
    expect((await body<{ data: unknown[] }>(await list(learner, learner.id))).data).toEqual([])
    expect((await body<{ data: unknown[] }>(await list(await makeCoach(), learner.id))).data).toHaveLength(1)
  })
})

describe('POST /api/category/videoAudit', () => {
  it('keeps the furthest progress and refuses someone else’s, bad numbers and progress past the end', async () => {
    const { learner, course, video } = await setup()
    await recordProgress(learner, { courseId: course.id, videoId: video.id, watched: [[0, 45]], position: 45 })
    const audit = (json: Record<string, unknown>, who: Who = learner) =>
      call(auditRoute.action as never, '/x', {
        method: 'POST',
        token: who.token,
        json: { userId: learner.id, courseId: course.id, videoId: video.id, videoDuration: '100', ...json },
      })
    expect((await audit({ videoProgress: '40' })).status).toBe(200)
    expect((await audit({ videoProgress: '20' })).status).toBe(200)
    const [row] = await (
      await sequelize()
    ).query<{ video_progress: number }>('SELECT video_progress FROM video_audits WHERE user_id = :id', {
      replacements: { id: learner.id },
      type: QueryTypes.SELECT,
    })
    expect(row.video_progress).toBe(40)
    expect((await audit({ videoProgress: 'forty' })).status).toBe(400)
    expect((await audit({ videoProgress: '0x10' })).status).toBe(400)
    // never further than the learner's own progress, and with the portal's duration
    expect((await audit({ videoProgress: '90', videoDuration: '86400' })).status).toBe(200)
    const [capped] = await (
      await sequelize()
    ).query<{ video_progress: number; video_duration: number }>(
      'SELECT video_progress, video_duration FROM video_audits WHERE user_id = :id',
      { replacements: { id: learner.id }, type: QueryTypes.SELECT },
    )
    expect(capped).toEqual({ video_progress: 45, video_duration: 100 })
    expect((await audit({ videoProgress: '-2' })).status).toBe(400)
    expect((await audit({ videoProgress: '150', videoDuration: '200' })).status).toBe(400)
    expect((await audit({ videoProgress: '10' }, await makeLearner())).status).toBe(403)
  })
})

describe('POST /api/user/postAccessLog', () => {
  it('appends a row per ping, folds pings within 30 s, and checks the course', async () => {
    const { learner, course, video } = await setup()
    const ping = (json: Record<string, unknown>) =>
      call(accessLogRoute.action as never, '/x', {
        method: 'POST',
        token: learner.token,
        json: { recordedDate: new Date().toISOString(), ...json },
      })
    expect(await body(await ping({ pageName: 'My Courses' }))).toMatchObject({ recorded: true })
    expect(await body(await ping({ pageName: 'My Courses' }))).toMatchObject({ recorded: false })
    expect(await body(await ping({ pageName: 'Video', courseId: course.id, videoId: video.id }))).toMatchObject({
      recorded: true,
    })
    expect((await ping({ pageName: 'Somewhere' })).status).toBe(400)
    const other = await makeCourse({ videos: [{}] })
    expect((await ping({ pageName: 'Video', courseId: other.id, videoId: other.videos[0].id })).status).toBe(403)
    const [{ n }] = await (
      await sequelize()
    ).query<{ n: string }>('SELECT count(*) AS n FROM access_log_pings WHERE user_id = :id', {
      replacements: { id: learner.id },
      type: QueryTypes.SELECT,
    })
    expect(Number(n)).toBe(2)
  })
})

describe('one rule for the percent and the locks', () => {
  it('shows the same percent on My Courses and the course page, a video without duration counting for nothing', async () => {
    const { learner, course } = await setup([{ duration: 100 }, { duration: null }, { duration: 100, after: [1] }])
    await recordProgress(learner, {
      courseId: course.id,
      videoId: course.videos[0].id,
      watched: [[0, 50]],
      position: 50,
    })
    await recordProgress(learner, {
      courseId: course.id,
      videoId: course.videos[1].id,
      watched: [[0, 40]],
      position: 40,
      duration: 60,
    })
    const card = (await listAssignedCourses(learner))[0]
    const page = await getCourseContents(learner, course.id)
    expect(card.percent).toBe(25) // 50 of 200 seconds with a known duration
    expect(page.percent).toBe(card.percent)
    // the video without a duration can never complete, so it locks nothing
    expect(page.videos[2].lockedBy).toEqual([])
  })
})

import { QueryTypes } from 'sequelize'
import { describe, expect, it, vi } from 'vitest'
import { dashboardFigures, type DashboardFigures } from '#app/modules/dashboard/service.server.ts'
import * as dashboardPage from '#app/routes/admin+/dashboard.tsx'
import { sequelize } from '#db/client.ts'
import * as completionThroughPrograms from '#db/migrations/0013-completion-through-programs.ts'
import {
  assignCourse,
  assignProgram,
  makeAdmin,
  makeCoach,
  makeCourse,
  makeLearner,
  makeProgram,
  makeSuperAdmin,
  recordWatched,
} from '#tests/factories.ts'
import { call } from '#tests/requests.ts'
import { sessionCookieFor } from '#tests/sessions.ts'

// The dashboard's figures on viewing. Each test pins "today" to a day of its own, far from the clock,
// so the figures of one test are not moved by another's data.

async function run(text: string, replacements: Record<string, unknown> = {}) {
  return (await sequelize()).query(text, { replacements })
}

/** A page opened by a learner at an instant (the ping's trigger marks the learner active that UTC day). */
const ping = (userId: string, at: string) =>
  run(`INSERT INTO access_log_pings (user_id, page_name, recorded_at) VALUES (:userId, 'My Courses', :at)`, {
    userId,
    at,
  })

/** A learner's viewing of a video at an instant, as the heartbeat and audit triggers write it. */
const view = (userId: string, courseId: string, videoId: string, at: string) =>
  run(
    `INSERT INTO video_viewings AS v (user_id, video_id, course_id, last_viewed_at) VALUES (:userId, :videoId, :courseId, :at)
     ON CONFLICT (user_id, video_id) DO UPDATE SET last_viewed_at = EXCLUDED.last_viewed_at`,
    { userId, videoId, courseId, at },
  )

const completionOf = (figures: DashboardFigures, courseId: string) =>
  figures.completion.find((c) => c.courseId === courseId)

/**
 * The counts and tallies the triggers kept are what a recount from the assignments gives: a learner has a
 * course directly or through any program, once.
 */
async function expectCountsAsRecounted(courseIds: string[]) {
  const [rows] = await run(
    `WITH holders AS (
       SELECT user_id, course_id FROM course_assignments WHERE course_id IN (:courseIds)
       UNION
       SELECT pa.user_id, pc.course_id FROM program_assignments pa
         JOIN program_courses pc ON pc.program_id = pa.program_id WHERE pc.course_id IN (:courseIds))
     SELECT c.id,
            COALESCE(k.assigned, 0) AS assigned, COALESCE(k.completed, 0) AS completed,
            (SELECT count(*)::int FROM holders h WHERE h.course_id = c.id) AS assigned_recount,
            (SELECT count(*)::int FROM holders h
              WHERE h.course_id = c.id
                AND (SELECT count(*) FROM video_progress p JOIN content_entries e ON e.id = p.video_id
                      WHERE p.user_id = h.user_id AND p.course_id = h.course_id AND p.completed
                        AND e.kind = 'video' AND e.visibility)
                  = course_visible_videos(c.id)) AS completed_recount,
            (SELECT count(*)::int FROM course_completion_tallies t
              WHERE t.course_id = c.id AND t.assigned
                AND NOT EXISTS (SELECT 1 FROM holders h WHERE h.user_id = t.user_id AND h.course_id = t.course_id))
              AS stale_tallies
       FROM courses c LEFT JOIN course_completion_counts k ON k.course_id = c.id
      WHERE c.id IN (:courseIds)`,
    { courseIds },
  )
  for (const row of rows as {
    assigned: number
    assigned_recount: number
    completed: number
    completed_recount: number
    stale_tallies: number
  }[]) {
    expect(row.assigned).toBe(row.assigned_recount)
    expect(row.completed).toBe(row.completed_recount)
    expect(row.stale_tallies).toBe(0)
  }
  expect(rows).toHaveLength(courseIds.length)
}

describe('the dashboard figures', () => {
  it('count learners active in the last 7 and 30 UTC days, today included, by their last active day', async () => {
    const admin = await makeAdmin()
    const instants = [
      '2031-05-10T23:59:59Z', // today, last second: both
      '2031-05-04T00:00:00Z', // six days before, first second: both
      '2031-05-03T23:59:59Z', // seven days before: 30 only
      '2031-04-11T00:00:00Z', // 29 days before: 30 only
      '2031-04-10T23:59:59Z', // 30 days before: neither
      '2031-05-11T00:00:00Z', // tomorrow: neither
    ]
    for (const at of instants) await ping((await makeLearner()).id, at)
    // a learner active long ago and again in the week counts once
    const returning = await makeLearner()
    await ping(returning.id, '2031-03-01T12:00:00Z')
    await ping(returning.id, '2031-05-09T12:00:00Z')

    const figures = await dashboardFigures(admin, { today: '2031-05-10' })
    expect(figures.today).toBe('2031-05-10')
    expect(figures.activeLearners).toEqual({ last7Days: 3, last30Days: 5 })
    // a day later the first of those 30 days has dropped out, and the learner seen "tomorrow" is in
    expect((await dashboardFigures(admin, { today: '2031-05-11' })).activeLearners).toEqual({
      last7Days: 3,
      last30Days: 5,
    })
  })

  it('count views per day over the last 30 days with empty days as 0, and list the five most-watched videos', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse({
      title: `Dashboard Views ${Date.now() % 1e6}`,
      videos: [0, 1, 2, 3, 4, 5].map((i) => ({ title: `Clip ${i}` })),
    })
    const other = await makeCourse({ title: `Dashboard Other ${Date.now() % 1e6}`, videos: [{ title: 'Elsewhere' }] })
    const learners = await Promise.all([0, 1, 2, 3, 4].map(() => makeLearner()))
    // clip i is watched by 5 - i learners today (clip 5 by none); clip 5 by three learners before the window
    for (const [i, video] of course.videos.entries())
      for (const learner of learners.slice(0, 5 - i))
        await view(learner.id, course.id, video.id, '2032-03-15T08:00:00Z')
    for (const learner of learners.slice(0, 3))
      await view(learner.id, course.id, course.videos[5].id, '2032-02-14T23:59:59Z')
    // the other course's video: once on the window's first day, then by the same learner again two days
    // before today (a first view on another day counts again)
    await view(learners[0].id, other.id, other.videos[0].id, '2032-02-15T00:00:00Z')
    await view(learners[0].id, other.id, other.videos[0].id, '2032-03-13T10:00:00Z')

    const figures = await dashboardFigures(admin, { today: '2032-03-15' })
    expect(figures.viewsPerDay).toHaveLength(30)
    expect(figures.viewsPerDay[0]).toEqual({ day: '2032-02-15', views: 1 })
    expect(figures.viewsPerDay.at(-1)).toEqual({ day: '2032-03-15', views: 5 + 4 + 3 + 2 + 1 })
    expect(figures.viewsPerDay.at(-3)).toEqual({ day: '2032-03-13', views: 1 })
    expect(figures.viewsPerDay.filter((d) => d.views === 0)).toHaveLength(27)
    expect(figures.viewsPerDay.map((d) => d.day)).toContain('2032-02-29') // a leap day is a day too

    expect(figures.topVideos).toEqual([
      { videoId: course.videos[0].id, title: 'Clip 0', courseId: course.id, courseTitle: course.title, views: 5 },
      expect.objectContaining({ title: 'Clip 1', views: 4 }),
      expect.objectContaining({ title: 'Clip 2', views: 3 }),
      // a tie is in title order; Clip 5's views before the window and Clip 4's single one stay out
      expect.objectContaining({ title: 'Clip 3', views: 2 }),
      { videoId: other.videos[0].id, title: 'Elsewhere', courseId: other.id, courseTitle: other.title, views: 2 },
    ])
    // a day later Elsewhere's first view has left the window: 1 view, tied with Clip 4 and after it
    const later = await dashboardFigures(admin, { today: '2032-03-16' })
    expect(later.topVideos.map((v) => [v.title, v.views])).toEqual([
      ['Clip 0', 5],
      ['Clip 1', 4],
      ['Clip 2', 3],
      ['Clip 3', 2],
      ['Clip 4', 1],
    ])
  })

  it('show nothing but zeros and empty lists on days nobody watched', async () => {
    const figures = await dashboardFigures(await makeAdmin(), { today: '1999-01-31' })
    expect(figures.activeLearners).toEqual({ last7Days: 0, last30Days: 0 })
    expect(figures.viewsPerDay).toHaveLength(30)
    expect(figures.viewsPerDay.every((d) => d.views === 0)).toBe(true)
    expect(figures.topVideos).toEqual([])
  })

  it('count as complete the assigned learners who completed every visible video, hidden ones aside', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse({
      title: `Dashboard Completion ${Date.now() % 1e6}`,
      videos: [{ title: 'One' }, { title: 'Two' }, { title: 'Hidden', visibility: false }],
    })
    const [one, two, hidden] = course.videos
    const [finisher, partial, unassigned, idle] = await Promise.all([0, 1, 2, 3].map(() => makeLearner()))
    for (const learner of [finisher, partial, idle]) await assignCourse(learner.id, course.id)
    // finisher: both visible videos; partial: one visible and the hidden one; unassigned: all three
    for (const video of [one, two]) await recordWatched(finisher.id, course.id, video, 100)
    await recordWatched(partial.id, course.id, one, 100)
    await recordWatched(partial.id, course.id, hidden, 100)
    for (const video of [one, two, hidden]) await recordWatched(unassigned.id, course.id, video, 100)
    // idle watched a little, not enough to complete
    await recordWatched(idle.id, course.id, two, 10)

    const figures = await dashboardFigures(admin)
    expect(completionOf(figures, course.id)).toEqual({
      courseId: course.id,
      title: course.title,
      videos: 2,
      labs: 0,
      assigned: 3,
      completed: 1,
      percent: 33,
    })

    // idle finishes video two by a later heartbeat (an update of the row): still missing video one
    await run(`UPDATE video_progress SET completed = true WHERE user_id = :userId AND video_id = :videoId`, {
      userId: idle.id,
      videoId: two.id,
    })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 1 })

    // hiding video two leaves only "One" to complete: finisher and partial have, idle has not
    await run(`UPDATE content_entries SET visibility = false WHERE id = :id`, { id: two.id })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({
      videos: 1,
      completed: 2,
      percent: 67,
    })
    // shown again, it counts again
    await run(`UPDATE content_entries SET visibility = true WHERE id = :id`, { id: two.id })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ videos: 2, completed: 1 })

    // deleting video one: finisher and idle have completed what is left
    await run(`DELETE FROM content_entries WHERE id = :id`, { id: one.id })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({
      videos: 1,
      completed: 2,
      percent: 67,
    })

    // a new visible video: nobody has completed the course any more; gone again, the two are back
    const { ContentEntry, CourseAssignment, User } = await (await import('#db/client.ts')).db()
    const added = await ContentEntry.create({
      courseId: course.id,
      kind: 'video',
      orderId: 9,
      title: 'Added',
      embedUrl: 'https://www.youtube-nocookie.com/embed/added',
      duration: 100,
    })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ videos: 2, completed: 0 })
    await added.destroy()
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ videos: 1, completed: 2 })

    // assignments taken away and given: idle leaves, the learner who watched unassigned joins
    await CourseAssignment.destroy({ where: { userId: idle.id, courseId: course.id } })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ assigned: 2, completed: 1 })
    await assignCourse(unassigned.id, course.id)
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({
      assigned: 3,
      completed: 2,
      percent: 67,
    })
    // a deleted learner is gone from both counts
    await User.destroy({ where: { id: finisher.id } })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({
      assigned: 2,
      completed: 1,
      percent: 50,
    })

    // the counts and tallies the triggers kept are what a recount gives
    const [[counts]] = await run(
      `SELECT k.assigned, k.completed,
              (SELECT count(*)::int FROM course_assignments a WHERE a.course_id = k.course_id) AS assigned_recount,
              (SELECT count(*)::int FROM course_assignments a
                WHERE a.course_id = k.course_id
                  AND (SELECT count(*) FROM video_progress p JOIN content_entries e ON e.id = p.video_id
                        WHERE p.user_id = a.user_id AND p.course_id = a.course_id AND p.completed
                          AND e.kind = 'video' AND e.visibility)
                    = (SELECT count(*) FROM content_entries e
                        WHERE e.course_id = a.course_id AND e.kind = 'video' AND e.visibility)) AS completed_recount
         FROM course_completion_counts k WHERE k.course_id = :courseId`,
      { courseId: course.id },
    )
    expect(counts).toEqual({ assigned: 2, completed: 1, assigned_recount: 2, completed_recount: 1 })
    const [tallies] = await run(
      `SELECT t.user_id, t.completed_videos,
              (SELECT count(*)::int FROM video_progress p JOIN content_entries e ON e.id = p.video_id
                WHERE p.user_id = t.user_id AND p.course_id = t.course_id AND p.completed
                  AND e.kind = 'video' AND e.visibility) AS recount
         FROM course_completion_tallies t WHERE t.course_id = :courseId`,
      { courseId: course.id },
    )
    expect(tallies.length).toBeGreaterThan(0)
    for (const row of tallies as { completed_videos: number; recount: number }[])
      expect(row.completed_videos).toBe(row.recount)
  })

  it('count a learner once whether the course is theirs directly, through programs, or both', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse({
      title: `Dashboard Programs ${Date.now() % 1e6}`,
      videos: [{ title: 'One' }, { title: 'Two' }, { title: 'Hidden', visibility: false }],
    })
    const [one, two] = course.videos
    const sibling = await makeCourse({ videos: [{ title: 'Sibling' }] })
    const program = await makeProgram([course.id, sibling.id])
    const other = await makeProgram([course.id])
    const [direct, viaProgram, both, twoPrograms, outsider] = await Promise.all(
      [0, 1, 2, 3, 4].map(() => makeLearner()),
    )
    await assignCourse(direct.id, course.id)
    await assignProgram(viaProgram.id, program.id)
    await assignCourse(both.id, course.id)
    await assignProgram(both.id, program.id)
    await assignProgram(twoPrograms.id, program.id)
    await assignProgram(twoPrograms.id, other.id)
    // every visible video completed (the hidden one is not needed): through a program, and both ways;
    // the learner with it directly has one of the two; the outsider, not assigned at all, has both
    for (const learner of [viaProgram, both, outsider])
      for (const video of [one, two]) await recordWatched(learner.id, course.id, video, 100)
    await recordWatched(direct.id, course.id, one, 100)

    const figures = await dashboardFigures(admin)
    expect(completionOf(figures, course.id)).toMatchObject({ videos: 2, assigned: 4, completed: 2, percent: 50 })
    expect(completionOf(figures, sibling.id)).toMatchObject({ assigned: 3, completed: 0, percent: 0 })
    // the learner with it directly finishes: counted as the others are
    await recordWatched(direct.id, course.id, two, 100)
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 3, percent: 75 })
    await expectCountsAsRecounted([course.id, sibling.id])
  })

  it('keep a course counted while any way of having it is left, and drop it with the last one', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse({ title: `Dashboard Unassign ${Date.now() % 1e6}`, videos: [{ title: 'Only' }] })
    const program = await makeProgram([course.id])
    const other = await makeProgram([course.id])
    const [direct, viaProgram, twoPrograms] = await Promise.all([0, 1, 2].map(() => makeLearner()))
    await assignCourse(direct.id, course.id)
    await assignProgram(direct.id, program.id)
    await assignProgram(viaProgram.id, program.id)
    await assignProgram(twoPrograms.id, program.id)
    await assignProgram(twoPrograms.id, other.id)
    for (const learner of [direct, viaProgram, twoPrograms])
      await recordWatched(learner.id, course.id, course.videos[0], 100)
    const figure = async () => completionOf(await dashboardFigures(admin), course.id)
    expect(await figure()).toMatchObject({ assigned: 3, completed: 3 })

    const unassign = (userId: string, programId: string) =>
      run('DELETE FROM program_assignments WHERE user_id = :userId AND program_id = :programId', {
        userId,
        programId,
      })
    // the program taken away: still assigned directly, or through the other program
    await unassign(direct.id, program.id)
    await unassign(twoPrograms.id, program.id)
    expect(await figure()).toMatchObject({ assigned: 3, completed: 3 })
    // the only way viaProgram had it: gone from both counts
    await unassign(viaProgram.id, program.id)
    expect(await figure()).toMatchObject({ assigned: 2, completed: 2, percent: 100 })

    // the course taken out of the other program: twoPrograms no longer has it
    await run('DELETE FROM program_courses WHERE program_id = :programId AND course_id = :courseId', {
      programId: other.id,
      courseId: course.id,
    })
    expect(await figure()).toMatchObject({ assigned: 1, completed: 1 })
    // put back, at another place, it is theirs again; reordering the program changes nothing
    await run(`INSERT INTO program_courses (program_id, course_id, position) VALUES (:programId, :courseId, 5)`, {
      programId: other.id,
      courseId: course.id,
    })
    expect(await figure()).toMatchObject({ assigned: 2, completed: 2 })
    await run('UPDATE program_courses SET position = position + 1 WHERE program_id = :programId', {
      programId: other.id,
    })
    expect(await figure()).toMatchObject({ assigned: 2, completed: 2 })

    // a program given back, then deleted with its courses and assignments in one go
    await assignProgram(viaProgram.id, program.id)
    expect(await figure()).toMatchObject({ assigned: 3, completed: 3 })
    await run('DELETE FROM programs WHERE id = :id', { id: program.id })
    expect(await figure()).toMatchObject({ assigned: 2, completed: 2 })
    await expectCountsAsRecounted([course.id])
  })

  it('drop a learner whose two ways of having a course are taken away at once, by two transactions', async () => {
    const admin = await makeAdmin()
    const sql = await sequelize()
    const course = await makeCourse({ title: `Dashboard Race ${Date.now() % 1e6}`, videos: [{ title: 'Only' }] })
    const program = await makeProgram([course.id])
    const learner = await makeLearner()
    await assignCourse(learner.id, course.id)
    await assignProgram(learner.id, program.id)
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ assigned: 1 })

    // each transaction alone still sees the other way: only queueing on the tally row tells them apart
    const first = await sql.transaction()
    const second = await sql.transaction()
    try {
      await sql.query('DELETE FROM course_assignments WHERE user_id = :userId AND course_id = :courseId', {
        replacements: { userId: learner.id, courseId: course.id },
        transaction: first,
      })
      let settled = false
      const unassigned = sql
        .query('DELETE FROM program_assignments WHERE user_id = :userId AND program_id = :programId', {
          replacements: { userId: learner.id, programId: program.id },
          transaction: second,
        })
        .finally(() => {
          settled = true
        })
      // barrier: the second has finished, or waits for the first
      await vi.waitFor(
        async () => {
          if (settled) return
          const waiting = await sql.query(
            `SELECT pid FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query LIKE '%DELETE FROM program_assignments%'`,
            { type: QueryTypes.SELECT },
          )
          expect(waiting).toHaveLength(1)
        },
        { timeout: 10_000 },
      )
      await first.commit()
      await unassigned
      await second.commit()
    } catch (error) {
      for (const transaction of [first, second]) await transaction.rollback().catch(() => undefined)
      throw error
    }
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ assigned: 0 })
    await expectCountsAsRecounted([course.id])
  })

  it('count, once migrated, the learners who already had a course through a program', async () => {
    const admin = await makeAdmin()
    const sql = await sequelize()
    const migration = { name: '0013-completion-through-programs', context: (text: string) => sql.query(text) }
    // as before the migration: program assignments move nothing
    await completionThroughPrograms.down(migration)
    try {
      const course = await makeCourse({ title: `Dashboard Migrated ${Date.now() % 1e6}`, videos: [{ title: 'Only' }] })
      const program = await makeProgram([course.id])
      const [direct, viaProgram, both] = await Promise.all([0, 1, 2].map(() => makeLearner()))
      await assignCourse(direct.id, course.id)
      await assignCourse(both.id, course.id)
      for (const learner of [viaProgram, both]) await assignProgram(learner.id, program.id)
      await recordWatched(viaProgram.id, course.id, course.videos[0], 100)
      expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ assigned: 2, completed: 0 })

      await completionThroughPrograms.up(migration)
      expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ assigned: 3, completed: 1 })
      await expectCountsAsRecounted([course.id])
    } finally {
      // whatever happened above, the database is left migrated for the other tests
      const [{ present }] = await sql.query<{ present: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'course_has_learner') AS present`,
        { type: QueryTypes.SELECT },
      )
      if (!present) await completionThroughPrograms.up(migration)
    }
  })

  it('give a course without assigned learners or without visible videos no percent', async () => {
    const admin = await makeAdmin()
    const unassigned = await makeCourse({ videos: [{ title: 'Alone' }] })
    const empty = await makeCourse({ videos: [{ title: 'Only hidden', visibility: false }] })
    const learner = await makeLearner()
    await assignCourse(learner.id, empty.id)
    await recordWatched(learner.id, empty.id, empty.videos[0], 100)
    const figures = await dashboardFigures(admin)
    expect(completionOf(figures, unassigned.id)).toMatchObject({ assigned: 0, completed: 0, percent: null })
    expect(completionOf(figures, empty.id)).toMatchObject({ videos: 0, assigned: 1, completed: 0, percent: null })
  })

  it('is read by admins, the super admin and coaches, and refused to learners', async () => {
    for (const actor of [await makeAdmin(), await makeSuperAdmin(), await makeCoach()])
      expect((await dashboardFigures(actor, { today: '2031-01-01' })).viewsPerDay).toHaveLength(30)
    await expect(dashboardFigures(await makeLearner())).rejects.toMatchObject({ status: 403 })
    await expect(dashboardFigures(await makeAdmin(), { today: '2031-02-30' })).rejects.toThrow(/yyyy-MM-dd/)
  })

  it('the page shows the figures to a coach and sends a learner away', async () => {
    const coach = await makeCoach()
    const page = await call(dashboardPage.loader as never, '/admin/dashboard', {
      headers: { Cookie: await sessionCookieFor(coach.userName) },
    })
    expect(page.status).toBe(200)
    const data = (await page.json()) as { figures: DashboardFigures }
    expect(data.figures.viewsPerDay).toHaveLength(30)
    const learner = await makeLearner()
    const refused = await call(dashboardPage.loader as never, '/admin/dashboard', {
      headers: { Cookie: await sessionCookieFor(learner.userName) },
    })
    expect(refused.status).toBe(302)
    expect(refused.headers.get('Location')).toBe('/courses')
  })
})

import { QueryTypes } from 'sequelize'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { getCourseContents, listAssignedCourses } from '#app/modules/courses/learner.server.ts'
import { dashboardFigures, type DashboardFigures } from '#app/modules/dashboard/service.server.ts'
import { closeSandbox } from '#app/modules/labs/sandbox.server.ts'
import { attemptExercise, importLab } from '#app/modules/labs/service.server.ts'
import * as dashboardPage from '#app/routes/admin+/dashboard.tsx'
import { sequelize } from '#db/client.ts'
import { completionMismatches, EXACT } from '#tests/completion.ts'
import {
  addLabExercise,
  assignCourse,
  assignProgram,
  makeAdmin,
  makeCourse,
  makeLab as makeLabRows,
  makeLearner,
  makeProgram,
  recordWatched,
  labFolderOf,
} from '#tests/factories.ts'
import { renderRoute } from '#tests/render.tsx'
import { sessionCookieFor } from '#tests/sessions.ts'

// Labs in a course's percent and completion (docs/product.md#progress): a lab weighs 60 × minutes seconds and
// earns the share of its points passed; a course is complete when its visible videos are completed and its
// visible labs' exercises all passed. Labs are made with SQL here (grading is labs-grading's), except where
// the import and a graded attempt are the point. After each change the triggers' figures are compared with a
// recount from the attempts, progress and assignments.

afterAll(() => closeSandbox())

async function run(text: string, replacements: Record<string, unknown> = {}) {
  return (await sequelize()).query(text, { replacements })
}

async function expectExact() {
  expect(await completionMismatches(await sequelize())).toEqual(EXACT)
}

/** A lab of the course (ten minutes, one exercise `a`, unless told), its id. */
const makeLab = async (courseId: string, options: Parameters<typeof makeLabRows>[1] = {}) =>
  (await makeLabRows(courseId, { minutes: 10, exercises: [{ key: 'a' }], ...options })).id

/** An attempt kept as attemptExercise keeps it. */
const attempt = (userId: string, labId: string, key: string, passed: boolean) =>
  run(
    `INSERT INTO lab_attempts (exercise_id, user_id, sql, passed, message, duration_ms)
     SELECT id, :userId, 'SELECT 1', :passed, '', 1 FROM lab_exercises WHERE lab_id = :labId AND key = :key`,
    { userId, labId, key, passed },
  )
const pass = (userId: string, labId: string, key: string) => attempt(userId, labId, key, true)

const setVisible = (labId: string, visible: boolean) =>
  run('UPDATE labs SET visibility = :visible WHERE id = :labId', { labId, visible })

const completionOf = (figures: DashboardFigures, courseId: string) =>
  figures.completion.find((c) => c.courseId === courseId)

/** The learner's percent of a course, the same on My Courses and the course's page. */
const percentOf = async (learner: Awaited<ReturnType<typeof makeLearner>>, courseId: string) => {
  const card = (await listAssignedCourses(learner)).find((c) => c._id === courseId)
  const page = await getCourseContents(learner, courseId)
  expect(page.percent).toBe(card?.percent)
  return card?.percent
}

describe('labs in the dashboard', () => {
  // first: the file's database has no lab yet
  it('shows an empty state for pass rates while there is no visible lab', async () => {
    const admin = await makeAdmin()
    expect((await dashboardFigures(admin)).labPassRates).toEqual([])
    const page = await renderRoute(dashboardPage as never, '/admin/dashboard', {
      cookie: await sessionCookieFor(admin.userName),
    })
    const section = page.getByRole('region', { name: 'Lab pass rates' })
    expect(section).toHaveTextContent('No labs yet')
    expect(page.queryByRole('table', { name: /Lab pass rates/ })).toBeNull()
  })
})

describe('a course’s percent with labs', () => {
  it('weighs a visible lab by its minutes and moves as its exercises pass, by their points', async () => {
    // 600 s of video and a lab of 10 minutes (600 s) with 1 + 3 points
    const course = await makeCourse({ videos: [{ duration: 600 }] })
    const lab = await makeLab(course.id, {
      minutes: 10,
      exercises: [
        { key: 'a', points: 1 },
        { key: 'b', points: 3 },
      ],
    })
    const learner = await makeLearner()
    await assignCourse(learner.id, course.id)
    expect(await percentOf(learner, course.id)).toBe(0)
    await recordWatched(learner.id, course.id, course.videos[0], 600)
    expect(await percentOf(learner, course.id)).toBe(50)

    // a failed attempt earns nothing; a pass of a earns a quarter of the lab: (600 + 150) / 1200
    await attempt(learner.id, lab, 'a', false)
    expect(await percentOf(learner, course.id)).toBe(50)
    await pass(learner.id, lab, 'a')
    expect(await percentOf(learner, course.id)).toBe(63)
    // passing it again changes nothing
    await pass(learner.id, lab, 'a')
    expect(await percentOf(learner, course.id)).toBe(63)
    await pass(learner.id, lab, 'b')
    expect(await percentOf(learner, course.id)).toBe(100)

    // a hidden lab weighs nothing; a second visible one, untouched, weighs its 30 minutes
    const other = await makeLab(course.id, { minutes: 30, visible: false })
    expect(await percentOf(learner, course.id)).toBe(100)
    await setVisible(other, true)
    expect(await percentOf(learner, course.id)).toBe(40) // 1200 of 3000 s
    await expectExact()
  })

  it('gives a course of labs only its percent, and counts a video without duration for nothing', async () => {
    const course = await makeCourse({ videos: [{ duration: null }] })
    const lab = await makeLab(course.id, { minutes: 5, exercises: [{ key: 'a' }, { key: 'b' }, { key: 'c' }] })
    const learner = await makeLearner()
    await assignCourse(learner.id, course.id)
    await pass(learner.id, lab, 'a')
    expect(await percentOf(learner, course.id)).toBe(33)
    // another learner's passes are not this one's
    const other = await makeLearner()
    await assignCourse(other.id, course.id)
    await pass(other.id, lab, 'b')
    await pass(other.id, lab, 'c')
    expect(await percentOf(learner, course.id)).toBe(33)
    expect(await percentOf(other, course.id)).toBe(67)
  })
})

describe('completion with labs', () => {
  it('leaves a course with its videos done and a lab not complete not complete, until the last exercise passes', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse({ videos: [{}, {}] })
    const lab = await makeLab(course.id, { exercises: [{ key: 'a' }, { key: 'b', points: 2 }] })
    const [learner, idle] = [await makeLearner(), await makeLearner()]
    for (const person of [learner, idle]) await assignCourse(person.id, course.id)
    for (const video of course.videos) await recordWatched(learner.id, course.id, video, 100)
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({
      videos: 2,
      labs: 1,
      assigned: 2,
      completed: 0,
      percent: 0,
    })
    await pass(learner.id, lab, 'a')
    await attempt(learner.id, lab, 'b', false)
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 0 })
    await pass(learner.id, lab, 'b')
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 1, percent: 50 })
    await expectExact()

    // the lab done first and the videos after completes the course too
    await pass(idle.id, lab, 'a')
    await pass(idle.id, lab, 'b')
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 1 })
    for (const video of course.videos) await recordWatched(idle.id, course.id, video, 100)
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 2, percent: 100 })
    await expectExact()
  })

  it('completes the course when its unfinished lab is hidden, and un-completes it when the lab is shown again', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse({ videos: [{}] })
    const lab = await makeLab(course.id, { exercises: [{ key: 'a' }, { key: 'b' }] })
    const [videosOnly, everything] = [await makeLearner(), await makeLearner()]
    for (const person of [videosOnly, everything]) {
      await assignCourse(person.id, course.id)
      await recordWatched(person.id, course.id, course.videos[0], 100)
    }
    await pass(videosOnly.id, lab, 'a')
    await pass(everything.id, lab, 'a')
    await pass(everything.id, lab, 'b')
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 1 })

    await setVisible(lab, false)
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ labs: 0, completed: 2 })
    await expectExact()
    // passing a hidden lab's last exercise changes nothing now, and counts once it is shown
    await pass(videosOnly.id, lab, 'b')
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 2 })
    // a learner without the course, who has done the hidden lab, is counted in no figure when it is shown
    const stranger = await makeLearner()
    await pass(stranger.id, lab, 'a')
    await pass(stranger.id, lab, 'b')
    await setVisible(lab, true)
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ labs: 1, completed: 2 })
    await expectExact()

    // a second lab, shown later: nobody has done it
    const second = await makeLab(course.id, { visible: false })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 2 })
    await setVisible(second, true)
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ labs: 2, completed: 0 })
    await pass(everything.id, second, 'a')
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 1 })
    await setVisible(second, false)
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 2 })
    await expectExact()
  })

  it('counts a course of one lab, and gives it no percent once the lab is hidden', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse()
    const lab = await makeLab(course.id)
    const learner = await makeLearner()
    await assignCourse(learner.id, course.id)
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({
      videos: 0,
      labs: 1,
      completed: 0,
      percent: 0,
    })
    await pass(learner.id, lab, 'a')
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 1, percent: 100 })
    await setVisible(lab, false)
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({
      videos: 0,
      labs: 0,
      completed: 0,
      percent: null,
    })
    await expectExact()
  })

  it('un-completes a lab when an exercise is added, gives it back when it is removed, and moves points', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse()
    const lab = await makeLab(course.id, { minutes: 10, exercises: [{ key: 'a' }, { key: 'b' }] })
    const [done, half] = [await makeLearner(), await makeLearner()]
    for (const person of [done, half]) await assignCourse(person.id, course.id)
    await pass(done.id, lab, 'a')
    await pass(done.id, lab, 'b')
    await pass(half.id, lab, 'a')
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 1 })

    await addLabExercise(lab, { key: 'c', points: 2 })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 0 })
    expect(await percentOf(done, course.id)).toBe(50)
    await expectExact()
    // b removed: its attempts go; the learner who had a (and c not) is where the other is
    await run(`DELETE FROM lab_exercises WHERE lab_id = :lab AND key = 'b'`, { lab })
    expect(await percentOf(done, course.id)).toBe(33)
    expect(await percentOf(half, course.id)).toBe(33)
    await pass(half.id, lab, 'c')
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 1 })
    // c removed: a alone is the lab, and both have passed it
    await run(`DELETE FROM lab_exercises WHERE lab_id = :lab AND key = 'c'`, { lab })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 2 })
    await expectExact()

    // points: a second exercise worth 3, passed by one of them; a then worth 3 as well
    await addLabExercise(lab, { key: 'd', points: 3 })
    await pass(done.id, lab, 'd')
    expect(await percentOf(done, course.id)).toBe(100)
    expect(await percentOf(half, course.id)).toBe(25)
    await run(`UPDATE lab_exercises SET points = 3 WHERE lab_id = :lab AND key = 'a'`, { lab })
    expect(await percentOf(half, course.id)).toBe(50)
    await expectExact()
  })

  it('takes a deleted lab out of the rule: those with the videos done complete the course', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse({ videos: [{}] })
    const lab = await makeLab(course.id, { exercises: [{ key: 'a' }, { key: 'b' }] })
    const kept = await makeLab(course.id, { title: 'Kept' })
    const [labsDone, labDeletedUndone] = [await makeLearner(), await makeLearner()]
    for (const person of [labsDone, labDeletedUndone]) {
      await assignCourse(person.id, course.id)
      await recordWatched(person.id, course.id, course.videos[0], 100)
      await pass(person.id, kept, 'a')
    }
    await pass(labsDone.id, lab, 'a')
    await pass(labsDone.id, lab, 'b')
    await pass(labDeletedUndone.id, lab, 'a')
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ labs: 2, completed: 1 })

    await run('DELETE FROM labs WHERE id = :lab', { lab })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ labs: 1, completed: 2 })
    const [rows] = await run('SELECT count(*)::int AS n FROM lab_progress WHERE lab_id = :lab', { lab })
    expect(rows).toEqual([{ n: 0 }])
    expect(await percentOf(labDeletedUndone, course.id)).toBe(100)
    await expectExact()

    // a hidden lab deleted moves nothing; a learner deleted leaves the counts right
    const hidden = await makeLab(course.id, { visible: false })
    await pass(labsDone.id, hidden, 'a')
    await run('DELETE FROM labs WHERE id = :hidden', { hidden })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 2 })
    await run('DELETE FROM users WHERE id = :id', { id: labsDone.id })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ assigned: 1, completed: 1 })
    await expectExact()
  })

  it('keeps the counts right for learners with the course directly, through programs, or both', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse({ videos: [{}] })
    const lab = await makeLab(course.id)
    const program = await makeProgram([course.id])
    const [direct, viaProgram, both, outsider] = await Promise.all([0, 1, 2, 3].map(() => makeLearner()))
    await assignCourse(direct.id, course.id)
    await assignProgram(viaProgram.id, program.id)
    await assignCourse(both.id, course.id)
    await assignProgram(both.id, program.id)
    for (const person of [direct, viaProgram, both, outsider]) {
      await recordWatched(person.id, course.id, course.videos[0], 100)
      await pass(person.id, lab, 'a')
    }
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({
      assigned: 3,
      completed: 3,
      percent: 100,
    })
    // a new exercise: nobody is complete; the outsider passing it is not counted
    await addLabExercise(lab, { key: 'b' })
    await pass(outsider.id, lab, 'b')
    await pass(viaProgram.id, lab, 'b')
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ assigned: 3, completed: 1 })
    // the outsider given the course joins as complete; the program taken away takes viaProgram out
    await assignCourse(outsider.id, course.id)
    await run('DELETE FROM program_assignments WHERE user_id = :userId', { userId: viaProgram.id })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ assigned: 3, completed: 1 })
    await run('DELETE FROM programs WHERE id = :id', { id: program.id })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ assigned: 3, completed: 1 })
    await expectExact()
  })
})

describe('lab pass rates', () => {
  it('count, per visible lab, the learners who have the course, tried it and completed it', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse({ title: `Pass Rates ${Date.now() % 1e6}`, videos: [{}] })
    const first = await makeLab(course.id, { title: 'Joins', exercises: [{ key: 'a' }, { key: 'b' }], order: 0 })
    const second = await makeLab(course.id, { title: 'Windows', order: 1 })
    const hidden = await makeLab(course.id, { title: 'Drafts', visible: false })
    const program = await makeProgram([course.id])
    const [finisher, trier, idle, outsider] = await Promise.all([0, 1, 2, 3].map(() => makeLearner()))
    await assignCourse(finisher.id, course.id)
    await assignProgram(trier.id, program.id)
    await assignCourse(idle.id, course.id)
    await pass(finisher.id, first, 'a')
    await pass(finisher.id, first, 'b')
    await attempt(trier.id, first, 'a', false)
    await pass(trier.id, first, 'b')
    await pass(trier.id, hidden, 'a')
    // not a learner of the course: neither tried nor completed here
    await pass(outsider.id, first, 'a')
    await pass(outsider.id, first, 'b')
    const empty = await makeCourse({ title: `Pass Rates Empty ${Date.now() % 1e6}` })
    const lonely = await makeLab(empty.id, { title: 'Alone' })

    const rates = (await dashboardFigures(admin)).labPassRates
    expect(rates.filter((r) => r.courseId === course.id)).toEqual([
      {
        labId: first,
        title: 'Joins',
        courseId: course.id,
        courseTitle: course.title,
        assigned: 3,
        tried: 2,
        completed: 1,
        percent: 33,
      },
      expect.objectContaining({ labId: second, title: 'Windows', assigned: 3, tried: 0, completed: 0, percent: 0 }),
    ])
    expect(rates.find((r) => r.labId === lonely)).toMatchObject({ assigned: 0, tried: 0, completed: 0, percent: null })
    expect(rates.find((r) => r.labId === hidden)).toBeUndefined()

    // the outsider given the course counts with what they did; the finisher unassigned no longer does
    await assignCourse(outsider.id, course.id)
    await run('DELETE FROM course_assignments WHERE user_id = :userId', { userId: finisher.id })
    await pass(trier.id, first, 'a')
    expect((await dashboardFigures(admin)).labPassRates.find((r) => r.labId === first)).toMatchObject({
      assigned: 3,
      tried: 2,
      completed: 2,
      percent: 67,
    })

    // the page: a table with a caption, a row per lab with its course and figures
    const page = await renderRoute(dashboardPage as never, '/admin/dashboard', {
      cookie: await sessionCookieFor(admin.userName),
    })
    const table = page.getByRole('table', { name: /Lab pass rates/ })
    const row = [...table.querySelectorAll('tbody tr')].find((r) => r.textContent?.includes('Joins'))
    expect(row).toBeDefined()
    expect([...row!.querySelectorAll('td')].map((cell) => cell.textContent)).toEqual(['3', '2', '2 67%'])
    expect(row!.querySelector('th')).toHaveTextContent(course.title)
    expect(row!.querySelector('a')).toHaveAttribute('href', `/admin/lab/${first}`)
  })
})

describe('lab progress under concurrent writes', () => {
  /** Two transactions: the second's statement waits on a lock the first holds, until the first commits. */
  async function raced(first: string, second: string, waitingOn: string) {
    const sql = await sequelize()
    const one = await sql.transaction()
    const two = await sql.transaction()
    try {
      await sql.query(first, { transaction: one })
      let settled = false
      const waiting = sql.query(second, { transaction: two }).finally(() => {
        settled = true
      })
      await vi.waitFor(
        async () => {
          if (settled) return
          const rows = await sql.query(
            `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE :pattern`,
            { replacements: { pattern: `%${waitingOn}%` }, type: QueryTypes.SELECT },
          )
          expect(rows).toHaveLength(1)
        },
        { timeout: 10_000 },
      )
      expect(settled).toBe(false)
      await one.commit()
      await waiting
      await two.commit()
    } catch (error) {
      for (const transaction of [one, two]) await transaction.rollback().catch(() => undefined)
      throw error
    }
  }

  const attemptSql = (userId: string, labId: string, key: string, tag: string) =>
    `/* ${tag} */ INSERT INTO lab_attempts (exercise_id, user_id, sql, passed, message, duration_ms)
     SELECT id, '${userId}', 'SELECT 1', true, '', 1 FROM lab_exercises WHERE lab_id = '${labId}' AND key = '${key}'`

  it('counts both exercises a learner passes at the same moment in two transactions', async () => {
    const course = await makeCourse()
    const lab = await makeLab(course.id, { exercises: [{ key: 'a' }, { key: 'b' }] })
    const learner = await makeLearner()
    await assignCourse(learner.id, course.id)
    await attempt(learner.id, lab, 'a', false)
    await raced(attemptSql(learner.id, lab, 'a', 'first'), attemptSql(learner.id, lab, 'b', 'second'), 'second')
    const [rows] = await run('SELECT passed_exercises, completed FROM lab_progress WHERE user_id = :id', {
      id: learner.id,
    })
    expect(rows).toEqual([{ passed_exercises: 2, completed: true }])
    await expectExact()
  })

  it('holds an attempt while an import changes the lab, without a deadlock when its exercise is removed', async () => {
    const course = await makeCourse()
    const lab = await makeLab(course.id, { exercises: [{ key: 'a' }, { key: 'b' }] })
    const learner = await makeLearner()
    await assignCourse(learner.id, course.id)
    const sql = await sequelize()
    const importing = await sql.transaction()
    const attempting = await sql.transaction()
    try {
      // the import holds the lab's row first, as importLab does
      await sql.query('SELECT id FROM labs WHERE id = :lab FOR UPDATE', {
        replacements: { lab },
        transaction: importing,
      })
      let settled = false
      const attempted = sql
        .query(attemptSql(learner.id, lab, 'b', 'during import'), { transaction: attempting })
        .then(
          () => 'kept',
          (error: Error) => error.message,
        )
        .finally(() => {
          settled = true
        })
      await vi.waitFor(
        async () => {
          const rows = await sql.query(
            `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%during import%'`,
            { type: QueryTypes.SELECT },
          )
          expect(rows).toHaveLength(1)
        },
        { timeout: 10_000 },
      )
      expect(settled).toBe(false)
      // the import removes the exercise the attempt is at: nothing of the attempt holds it up
      await sql.query(`DELETE FROM lab_exercises WHERE lab_id = :lab AND key = 'b'`, {
        replacements: { lab },
        transaction: importing,
      })
      await importing.commit()
      expect(await attempted).toMatch(/foreign key/)
      await attempting.rollback()
    } catch (error) {
      for (const transaction of [importing, attempting]) await transaction.rollback().catch(() => undefined)
      throw error
    }
    await pass(learner.id, lab, 'a')
    const [rows] = await run('SELECT passed_exercises, completed FROM lab_progress WHERE user_id = :id', {
      id: learner.id,
    })
    expect(rows).toEqual([{ passed_exercises: 1, completed: true }])
    await expectExact()
  })

  it('lets a learner complete a video while an import un-completes the lab for many, without a deadlock', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse({ videos: [{}, {}] })
    const lab = await makeLab(course.id)
    const [first, second] = [await makeLearner(), await makeLearner()]
    for (const person of [first, second]) {
      await assignCourse(person.id, course.id)
      await recordWatched(person.id, course.id, course.videos[0], 100)
      await pass(person.id, lab, 'a')
    }
    await recordWatched(first.id, course.id, course.videos[1], 100)
    await recordWatched(second.id, course.id, course.videos[1], 10)
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 1 })

    const sql = await sequelize()
    const heartbeat = await sql.transaction()
    const importing = await sql.transaction()
    try {
      // the second learner's tally is held, as a heartbeat completing a video holds it before the course's count
      await sql.query(
        'UPDATE course_completion_tallies SET completed_videos = completed_videos WHERE user_id = :id AND course_id = :course',
        { replacements: { id: second.id, course: course.id }, transaction: heartbeat },
      )
      await sql.query('SELECT id FROM labs WHERE id = :lab FOR UPDATE', {
        replacements: { lab },
        transaction: importing,
      })
      let settled = false
      const imported = sql
        .query(
          `/* new exercise */ INSERT INTO lab_exercises (lab_id, key, position, title, prompt, solution, check_kind,
             order_rule, column_rule, allow) VALUES (:lab, 'b', 1, 'b', 'Do it.', 'SELECT 1', 'result', 'auto', 'names', '{select}')`,
          { replacements: { lab }, transaction: importing },
        )
        .finally(() => {
          settled = true
        })
      await vi.waitFor(
        async () => {
          const rows = await sql.query(
            `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%new exercise%'`,
            { type: QueryTypes.SELECT },
          )
          expect(rows).toHaveLength(1)
        },
        { timeout: 10_000 },
      )
      expect(settled).toBe(false)
      // the video completed moves the course's count, which the import does not hold yet
      await sql.query('UPDATE video_progress SET completed = true WHERE user_id = :id AND video_id = :video', {
        replacements: { id: second.id, video: course.videos[1].id },
        transaction: heartbeat,
      })
      await heartbeat.commit()
      await imported
      await importing.commit()
    } catch (error) {
      for (const transaction of [heartbeat, importing]) await transaction.rollback().catch(() => undefined)
      throw error
    }
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ assigned: 2, completed: 0 })
    await expectExact()
  })

  it('does not count a lab completed while it is being hidden', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse({ videos: [{}] })
    const lab = await makeLab(course.id)
    const learner = await makeLearner()
    await assignCourse(learner.id, course.id)
    await recordWatched(learner.id, course.id, course.videos[0], 100)
    await raced(
      `UPDATE labs SET visibility = false WHERE id = '${lab}'`,
      attemptSql(learner.id, lab, 'a', 'while hidden'),
      'while hidden',
    )
    const [rows] = await run('SELECT completed_labs FROM course_completion_tallies WHERE user_id = :id', {
      id: learner.id,
    })
    expect(rows).toEqual([{ completed_labs: 0 }])
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 1 })
    await expectExact()
  })
})

describe('labs imported and attempted', () => {
  const yaml = (exercises: string) => `title: Cities
minutes: 10
dataset: data.sql
exercises:
${exercises}`
  const SWISS = `  - key: swiss
    title: Swiss cities
    prompt: List the Swiss cities.
    solution: SELECT name FROM city WHERE country = 'CH'
`
  const FRENCH = `  - key: french
    title: French cities
    prompt: List the French cities.
    solution: SELECT name FROM city WHERE country = 'FR'
    points: 3
`
  const GERMAN = `  - key: german
    title: German cities
    prompt: List the German cities.
    solution: SELECT name FROM city WHERE country = 'DE'
    points: 4
`
  const DATA =
    "CREATE TABLE city (name text NOT NULL, country char(2)); INSERT INTO city VALUES ('Bern', 'CH'), ('Lyon', 'FR'), ('Bonn', 'DE');"
  const folder = (exercises: string) => {
    return labFolderOf(yaml(exercises), DATA)
  }

  it('moves the percent on a graded pass, and un-completes the course when a new import adds an exercise', async () => {
    const admin = await makeAdmin()
    const course = await makeCourse({ videos: [{ duration: 600 }] })
    const { id: labId } = await importLab(SYSTEM, { folder: folder(SWISS + FRENCH), course: course.id })
    const [learner, other] = [await makeLearner(), await makeLearner()]
    for (const person of [learner, other]) {
      await assignCourse(person.id, course.id)
      await recordWatched(person.id, course.id, course.videos[0], 600)
    }
    const submit = (person: typeof learner, exercise: string, sql: string) =>
      attemptExercise(person, { labId, exercise, sql })
    expect(await percentOf(learner, course.id)).toBe(50)
    expect(await submit(learner, 'swiss', "SELECT name FROM city WHERE country = 'CH'")).toMatchObject({ passed: true })
    expect(await percentOf(learner, course.id)).toBe(63) // (600 + 600 × 1/4) / 1200
    expect(await submit(learner, 'french', 'SELECT name FROM city')).toMatchObject({ passed: false })
    expect(await percentOf(learner, course.id)).toBe(63)
    await submit(learner, 'french', "SELECT name FROM city WHERE country = 'FR'")
    await submit(other, 'swiss', "SELECT name FROM city WHERE country = 'CH'")
    expect(await percentOf(learner, course.id)).toBe(100)
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 1 })

    // imported again with a third exercise: attempts kept, the lab no longer done
    const added = await importLab(SYSTEM, { folder: folder(SWISS + FRENCH + GERMAN), course: course.id })
    expect(added.exercises.added).toEqual(['german'])
    expect(added.exercises.kept.sort()).toEqual(['french', 'swiss'])
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 0 })
    expect(await percentOf(learner, course.id)).toBe(75) // (600 + 600 × 4/8) / 1200
    await submit(learner, 'german', "SELECT name FROM city WHERE country = 'DE'")
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 1 })
    await expectExact()

    // imported without french: the other learner, who had only swiss, still lacks german
    await importLab(SYSTEM, { folder: folder(SWISS + GERMAN), course: course.id })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 1 })
    expect(await percentOf(other, course.id)).toBe(60) // (600 + 600 × 1/5) / 1200
    // and without german too: swiss alone, which both passed
    await importLab(SYSTEM, { folder: folder(SWISS), course: course.id })
    expect(completionOf(await dashboardFigures(admin), course.id)).toMatchObject({ completed: 2, percent: 100 })
    expect((await dashboardFigures(admin)).labPassRates.find((r) => r.labId === labId)).toMatchObject({
      assigned: 2,
      tried: 2,
      completed: 2,
    })
    await expectExact()
  }, 120_000)

  it('answers 409 to an attempt whose exercise an import removed while it was graded, and keeps nothing', async () => {
    const course = await makeCourse({ videos: [{ duration: 600 }] })
    const { id: labId } = await importLab(SYSTEM, { folder: folder(SWISS + FRENCH), course: course.id })
    const learner = await makeLearner()
    await assignCourse(learner.id, course.id)
    // graded for half a second, during which the lab is imported again without the exercise
    const attempt = attemptExercise(learner, {
      labId,
      exercise: 'french',
      sql: 'SELECT name, pg_sleep(0.5) FROM city',
    }).then(
      () => undefined,
      (error: unknown) => error,
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    await importLab(SYSTEM, { folder: folder(SWISS), course: course.id })
    expect(await attempt).toMatchObject({
      status: 409,
      message: 'This exercise changed while your attempt was graded; open the lab again.',
    })
    expect(await percentOf(learner, course.id)).toBe(0)
    await expectExact()
  }, 120_000)
})

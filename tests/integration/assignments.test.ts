import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { assignCourse, assignProgram } from '#app/modules/assignments/service.server.ts'
import { listAssignedCourses } from '#app/modules/courses/learner.server.ts'
import { db } from '#db/client.ts'
import { makeAdmin, makeCoach, makeCourse, makeLearner, makeProgram } from '#tests/factories.ts'

describe('assignCourse and assignProgram', () => {
  it('give a learner a course, once however often it is assigned', async () => {
    const [admin, learner, course] = [await makeAdmin(), await makeLearner(), await makeCourse({ title: 'Assigned' })]
    expect(await assignCourse(admin, { userId: learner.id, courseId: course.id })).toEqual({
      assigned: true,
      changed: false,
    })
    expect(await assignCourse(admin, { userId: learner.id, courseId: course.id })).toEqual({
      assigned: false,
      changed: false,
    })
    const { CourseAssignment } = await db()
    expect(await CourseAssignment.count({ where: { userId: learner.id } })).toBe(1)
    expect((await listAssignedCourses(learner)).map((c) => c.title)).toEqual(['Assigned'])
  })

  it('give every course of a program', async () => {
    const [admin, learner] = [await makeAdmin(), await makeLearner()]
    const courses = [await makeCourse({ title: 'P one' }), await makeCourse({ title: 'P two' })]
    const program = await makeProgram(courses.map((c) => c.id))
    expect(await assignProgram(admin, { userId: learner.id, programId: program.id })).toEqual({
      assigned: true,
      changed: false,
    })
    expect(await assignProgram(admin, { userId: learner.id, programId: program.id })).toEqual({
      assigned: false,
      changed: false,
    })
    expect((await listAssignedCourses(learner)).map((c) => c.title)).toEqual(['P one', 'P two'])
  })

  it('answer the old client’s messages, refuse coaches and learners, and assign only to learners', async () => {
    const [admin, learner, coach] = [await makeAdmin(), await makeLearner(), await makeCoach()]
    await expect(assignCourse(admin, { userId: learner.id, courseId: '' })).rejects.toThrow(
      'Course is a required field to assign',
    )
    await expect(assignProgram(admin, { userId: learner.id, programId: '' })).rejects.toThrow(
      'Course is required field to assign',
    )
    const course = await makeCourse()
    await expect(assignCourse(coach, { userId: learner.id, courseId: course.id })).rejects.toMatchObject({
      status: 403,
    })
    await expect(assignCourse(learner, { userId: learner.id, courseId: course.id })).rejects.toMatchObject({
      status: 403,
    })
    await expect(assignCourse(admin, { userId: coach.id, courseId: course.id })).rejects.toMatchObject({ status: 400 })
    await expect(
      assignCourse(admin, { userId: learner.id, courseId: '00000000-0000-4000-8000-000000000000' }),
    ).rejects.toMatchObject({ status: 400, errors: { courseId: 'Course is a required field to assign' } })
  })

  it('refuse a program removed while it is being assigned, leaving no assignment behind', async () => {
    const [admin, learner] = [await makeAdmin(), await makeLearner()]
    const program = await makeProgram([(await makeCourse()).id])
    // the removal on a connection of its own, outside the app's pool
    const removal = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await removal.connect()
    try {
      await removal.query('BEGIN')
      await removal.query('DELETE FROM programs WHERE id = $1', [program.id])
      const assigning = assignProgram(admin, { userId: learner.id, programId: program.id })
      assigning.catch(() => {})
      // the assignment waits for the removal to end, then finds no program
      const waiting = async () =>
        (
          await removal.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND datname = current_database()`,
          )
        ).rows[0].n
      await expect.poll(waiting, { timeout: 60_000 }).toBeGreaterThan(0)
      await removal.query('COMMIT')
      await expect(assigning).rejects.toMatchObject({
        status: 400,
        errors: { programId: 'Course is required field to assign' },
      })
    } finally {
      await removal.end()
    }
    const { ProgramAssignment } = await db()
    expect(await ProgramAssignment.count({ where: { userId: learner.id } })).toBe(0)
  })
})

import { describe, expect, it } from 'vitest'
import { canOpenCourse } from '#app/modules/courses/access.server.ts'
import { dashboardCounts } from '#app/modules/courses/admin.server.ts'
import { getCourseContents, listAssignedCourses } from '#app/modules/courses/learner.server.ts'
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

describe('My Courses (listAssignedCourses)', () => {
  it('lists courses assigned directly or through a program, each once, with their percent', async () => {
    const learner = await makeLearner()
    const direct = await makeCourse({ title: 'Alpha SQL', videos: [{ duration: 100 }, { duration: 300 }] })
    const both = await makeCourse({ title: 'Beta Modelling', videos: [{ duration: 200 }] })
    const viaProgram = await makeCourse({ title: 'Gamma Warehouse', videos: [{ duration: 60 }] })
    await makeCourse({ title: 'Delta Not Assigned' })
    await assignCourse(learner.id, direct.id)
    await assignCourse(learner.id, both.id)
    const program = await makeProgram([both.id, viaProgram.id])
    await assignProgram(learner.id, program.id)
    await recordWatched(learner.id, direct.id, direct.videos[0], 100)
    await recordWatched(learner.id, direct.id, direct.videos[1], 50)

    const courses = await listAssignedCourses(learner)
    expect(courses.map((c) => [c.title, c.percent])).toEqual([
      ['Alpha SQL', 38], // 150 of 400 seconds
      ['Beta Modelling', 0],
      ['Gamma Warehouse', 0],
    ])
    expect(courses[0]).toMatchObject({ duration: 400, videoCount: 2 })
  })

  it('counts only visible videos and caps the percent at 100', async () => {
    const learner = await makeLearner()
    const course = await makeCourse({
      videos: [{ duration: 100 }, { duration: 100, visibility: false }],
    })
    await assignCourse(learner.id, course.id)
    // a record claiming more than the video's length counts as the whole video, never more
    await recordWatched(learner.id, course.id, { id: course.videos[0].id, duration: 100 }, 250)
    await recordWatched(learner.id, course.id, course.videos[1], 100)
    const [card] = await listAssignedCourses(learner)
    expect(card).toMatchObject({ percent: 100, duration: 100, videoCount: 1 })
  })

  it('says the duration is unknown when a visible video has none, and handles a course without videos', async () => {
    const learner = await makeLearner()
    const missing = await makeCourse({ title: 'A', videos: [{ duration: 100 }, { duration: null }] })
    const empty = await makeCourse({ title: 'B' })
    await assignCourse(learner.id, missing.id)
    await assignCourse(learner.id, empty.id)
    const cards = await listAssignedCourses(learner)
    expect(cards.map((c) => [c.title, c.duration, c.percent])).toEqual([
      ['A', null, 0],
      ['B', null, 0],
    ])
  })

  it('searches titles case-insensitively, treating % and _ as plain characters', async () => {
    const learner = await makeLearner()
    for (const title of ['Data Warehousing', 'SQL Fundamentals', '100% SQL', 'Snake_case Names'])
      await assignCourse(learner.id, (await makeCourse({ title })).id)
    const titles = async (search: string) => (await listAssignedCourses(learner, { search })).map((c) => c.title)
    expect(await titles('WAREHOUS')).toEqual(['Data Warehousing'])
    expect(await titles('sql')).toEqual(['100% SQL', 'SQL Fundamentals'])
    expect(await titles('%')).toEqual(['100% SQL'])
    expect(await titles('_')).toEqual(['Snake_case Names'])
    expect(await titles('nothing like it')).toEqual([])
  })

  it('shows a learner only their own progress', async () => {
    const [a, b] = [await makeLearner(), await makeLearner()]
    const course = await makeCourse({ videos: [{ duration: 100 }] })
    await assignCourse(a.id, course.id)
    await assignCourse(b.id, course.id)
    await recordWatched(a.id, course.id, course.videos[0], 100)
    expect((await listAssignedCourses(a))[0].percent).toBe(100)
    expect((await listAssignedCourses(b))[0].percent).toBe(0)
  })
})

describe('a course page (getCourseContents)', () => {
  it('gives an assigned learner the visible videos in order, with completion and locks', async () => {
    const learner = await makeLearner()
    const course = await makeCourse({
      videos: [
        { title: 'Intro', duration: 100 },
        { title: 'Hidden', duration: 100, visibility: false },
        { title: 'Second', duration: 200, after: [0] },
        { title: 'Third', duration: 300, after: [0, 2] },
      ],
    })
    await assignCourse(learner.id, course.id)
    await recordWatched(learner.id, course.id, course.videos[0], 95)

    const contents = await getCourseContents(learner, course.id)
    expect(contents.videos.map((v) => v.title)).toEqual(['Intro', 'Second', 'Third'])
    expect(contents.duration).toBe(600)
    expect(contents.videos.map((v) => [v.completed, v.lockedBy])).toEqual([
      [true, []],
      [false, []],
      [false, ['Second']],
    ])
  })

  it('turns away a learner from a course that is not assigned (403) and answers 404 for no course', async () => {
    const learner = await makeLearner()
    const course = await makeCourse()
    await expect(getCourseContents(learner, course.id)).rejects.toMatchObject({ status: 403 })
    await expect(getCourseContents(learner, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      status: 404,
    })
    await expect(getCourseContents(learner, 'not-a-uuid')).rejects.toMatchObject({ status: 404 })
  })

  it('opens any course to the admin side', async () => {
    const course = await makeCourse()
    for (const user of [await makeAdmin(), await makeSuperAdmin(), await makeCoach()])
      expect(await canOpenCourse(user, course.id)).toBe(true)
  })
})

describe('the dashboard counts', () => {
  it('count courses, learners and admins, for the admin side only', async () => {
    const admin = await makeAdmin()
    const before = await dashboardCounts(admin)
    await makeCourse()
    await makeLearner()
    await makeSuperAdmin()
    await makeCoach()
    const after = await dashboardCounts(admin)
    expect(after).toEqual({ courses: before.courses + 1, users: before.users + 1, admins: before.admins + 1 })
    await expect(dashboardCounts(await makeLearner())).rejects.toMatchObject({ status: 403 })
  })
})

import { within } from '@testing-library/dom'
import { describe, expect, it } from 'vitest'
import { overdueAssignmentCount } from '#app/modules/assignments/due.server.ts'
import { assignCourse as assignCourseService, setAssignmentDue } from '#app/modules/assignments/service.server.ts'
import { listUsers } from '#app/modules/users/service.server.ts'
import * as dashboardPage from '#app/routes/admin+/dashboard.tsx'
import * as programPage from '#app/routes/admin+/program.$programId.tsx'
import * as userDetails from '#app/routes/admin+/user.$userId.tsx'
import * as usersList from '#app/routes/admin+/users.tsx'
import { db, sequelize } from '#db/client.ts'
import {
  assignCourse,
  assignProgram,
  makeAdmin,
  makeCoach,
  makeCourse,
  makeLearner,
  makeProgram,
  recordWatched,
} from '#tests/factories.ts'
import { renderRoute } from '#tests/render.tsx'
import { call } from '#tests/requests.ts'
import { sessionCookieFor, toastOf } from '#tests/sessions.ts'

// The admin side of due dates: assigning with one, changing it and the assignment's reminders, the Users
// List's overdue and due-soon filters, and the dashboard's count of overdue assignments.

type Reply = { result: { error: Record<string, string[] | null> } }

const post = (route: { action: unknown }, path: string, cookie: string, body: Record<string, string>, params = {}) =>
  call(route.action as never, path, {
    method: 'POST',
    headers: { Cookie: cookie },
    body: new URLSearchParams(body),
    params,
  })

async function setZone(userId: string, zone: string) {
  await (
    await sequelize()
  ).query('UPDATE users SET time_zone = :zone WHERE id = :userId', {
    replacements: { zone, userId },
  })
}

type Stored = { due_date: string | null; due_at: Date | null; reminder_plan: unknown }
async function courseAssignment(userId: string, courseId: string): Promise<Stored | undefined> {
  const [rows] = await (
    await sequelize()
  ).query(
    `SELECT due_date::text AS due_date, due_at, reminder_plan FROM course_assignments
      WHERE user_id = :userId AND course_id = :courseId`,
    { replacements: { userId, courseId } },
  )
  return rows[0] as Stored | undefined
}
async function programAssignment(userId: string, programId: string): Promise<Stored | undefined> {
  const [rows] = await (
    await sequelize()
  ).query(
    `SELECT due_date::text AS due_date, due_at, reminder_plan FROM program_assignments
      WHERE user_id = :userId AND program_id = :programId`,
    { replacements: { userId, programId } },
  )
  return rows[0] as Stored | undefined
}

/** Sets a due date straight in the table (a day, or an exact instant). */
async function setDue(table: 'course' | 'program', userId: string, id: string, due: { date?: string; at?: string }) {
  await (
    await sequelize()
  ).query(
    `UPDATE ${table}_assignments SET due_date = CAST(:date AS date), due_at = CAST(:at AS timestamptz)
      WHERE user_id = :userId AND ${table}_id = :id`,
    { replacements: { userId, id, date: due.date ?? null, at: due.at ?? null } },
  )
}

describe('User Details', () => {
  it('assigns a course at a local time and a program on a day, in the learner’s zone, and shows them', async () => {
    const admin = await sessionCookieFor((await makeAdmin()).userName)
    const learner = await makeLearner()
    await setZone(learner.id, 'Europe/Berlin')
    const course = await makeCourse()
    const program = await makeProgram([(await makeCourse()).id])
    const path = `/admin/user/${learner.id}`
    const params = { userId: learner.id }

    const assigned = await post(
      userDetails,
      `${path}?assign=course`,
      admin,
      { courseId: course.id, dueDate: '2031-07-01', dueTime: '17:00' },
      params,
    )
    expect(await toastOf(assigned)).toMatchObject({ message: 'Course assigned.' })
    // 17:00 in Berlin in summer is 15:00 UTC
    const stored = await courseAssignment(learner.id, course.id)
    expect(stored?.due_date).toBeNull()
    expect(new Date(stored?.due_at ?? 0).toISOString()).toBe('2031-07-01T15:00:00.000Z')

    await post(userDetails, `${path}?assign=program`, admin, { programId: program.id, dueDate: '2031-07-02' }, params)
    expect(await programAssignment(learner.id, program.id)).toMatchObject({ due_date: '2031-07-02', due_at: null })

    const page = await renderRoute(userDetails as never, path, { cookie: admin, pattern: '/admin/user/:userId' })
    expect(page.getAllByText(/Due dates are in the learner’s time zone: Europe\/Berlin/).length).toBeGreaterThan(0)
    const table = page.getByRole('table', { name: 'Assigned courses' })
    expect(within(table).getByText('Tue, 1 Jul 2031, 17:00 (Europe/Berlin)')).toBeInTheDocument()
    expect(within(table).getByText(/^Due 1 Jul 2031 at 17:00$/)).toBeInTheDocument()
    // the program's own course is had through it: no due date of its own in the table
    expect(within(table).getByText('Through a program')).toBeInTheDocument()
    const programs = page.getByRole('list', { name: 'Assigned programs' })
    expect(within(programs).getByText('Wed, 2 Jul 2031, end of day (Europe/Berlin)')).toBeInTheDocument()
    expect(within(programs).getByRole('link', { name: /Change the due date of/ })).toHaveAttribute(
      'href',
      expect.stringContaining(`?change=program:${program.id}`),
    )
  })

  it('refuses a date that is none, or a time without its day, and assigns nothing', async () => {
    const admin = await sessionCookieFor((await makeAdmin()).userName)
    const learner = await makeLearner()
    const course = await makeCourse()
    const path = `/admin/user/${learner.id}?assign=course`
    const bad = await post(
      userDetails,
      path,
      admin,
      { courseId: course.id, dueDate: '12/05/2031' },
      {
        userId: learner.id,
      },
    )
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as Reply).result.error.dueDate).toEqual([
      'Due date must be a day such as 2026-12-15 or 15 Dec 2026, or a time such as 2026-12-15 17:00.',
    ])
    const timeOnly = await post(
      userDetails,
      path,
      admin,
      { courseId: course.id, dueTime: '09:00' },
      {
        userId: learner.id,
      },
    )
    expect(((await timeOnly.json()) as Reply).result.error.dueTime).toEqual([
      'A time needs its day: choose the date too.',
    ])
    expect(await courseAssignment(learner.id, course.id)).toBeUndefined()

    // the page shows the message beside the field
    const page = await renderRoute(userDetails as never, path, {
      cookie: admin,
      pattern: '/admin/user/:userId',
      form: [
        ['courseId', course.id],
        ['dueDate', 'someday'],
      ],
    })
    const form = page.getByRole('form', { name: 'Assign New Course' })
    expect(within(form).getByLabelText('Day')).toHaveAccessibleDescription(/Due date must be a day/)
  })

  it('changes and removes a due date and sets, then clears, the assignment’s own reminders', async () => {
    const admin = await sessionCookieFor((await makeAdmin()).userName)
    const learner = await makeLearner()
    await setZone(learner.id, 'America/New_York')
    const course = await makeCourse()
    await assignCourse(learner.id, course.id)
    const path = `/admin/user/${learner.id}?change=course:${course.id}&intent=due`
    const params = { userId: learner.id }
    const change = (body: Record<string, string>) =>
      post(userDetails, path, admin, { kind: 'course', id: course.id, ...body }, params)

    expect(
      await toastOf(
        await change({
          dueDate: '2031-01-15',
          dueTime: '09:30',
          reminders: 'custom',
          remindBefore: '7, 1',
          remindAfter: '3',
        }),
      ),
    ).toMatchObject({ message: 'Due date saved.' })
    let stored = await courseAssignment(learner.id, course.id)
    // 09:30 in New York in winter is 14:30 UTC
    expect(new Date(stored?.due_at ?? 0).toISOString()).toBe('2031-01-15T14:30:00.000Z')
    expect(stored?.reminder_plan).toEqual({ before: [7, 1], after: [3] })

    await change({ dueDate: '2031-02-01', reminders: 'none' })
    stored = await courseAssignment(learner.id, course.id)
    expect(stored).toMatchObject({ due_date: '2031-02-01', due_at: null, reminder_plan: { before: [], after: [] } })

    // the dialog starts from what is stored
    const page = await renderRoute(userDetails as never, `/admin/user/${learner.id}?change=course:${course.id}`, {
      cookie: admin,
      pattern: '/admin/user/:userId',
    })
    const dialog = page.getByRole('form', { name: `Due date of ${course.title}` })
    expect(within(dialog).getByLabelText('Day')).toHaveValue('2031-02-01')
    expect(within(dialog).getByRole('combobox', { name: 'Reminders' })).toHaveValue('none')

    const refused = await change({ dueDate: '2031-02-01', reminders: 'custom', remindBefore: 'soon' })
    expect(((await refused.json()) as Reply).result.error.remindBefore).toEqual([
      'Days must be whole numbers from 0 to 365, at most 10 of them, such as 7, 1.',
    ])
    expect((await courseAssignment(learner.id, course.id))?.reminder_plan).toEqual({ before: [], after: [] })

    expect(await toastOf(await change({ dueDate: '', reminders: 'portal' }))).toMatchObject({
      message: 'Saved, with no due date.',
    })
    expect(await courseAssignment(learner.id, course.id)).toMatchObject({
      due_date: null,
      due_at: null,
      reminder_plan: null,
    })
  })

  it('answers 404 for an assignment the learner does not have, and never assigns it', async () => {
    const admin = await makeAdmin()
    const learner = await makeLearner()
    const course = await makeCourse()
    await expect(
      setAssignmentDue(admin, { userId: learner.id, kind: 'course', id: course.id, dueDate: '2031-01-01' }),
    ).rejects.toMatchObject({ status: 404 })
    const reply = await post(
      userDetails,
      `/admin/user/${learner.id}?change=course:${course.id}&intent=due`,
      await sessionCookieFor(admin.userName),
      { kind: 'course', id: course.id, dueDate: '2031-01-01' },
      { userId: learner.id },
    )
    expect(reply.status).toBe(404)
    expect(await courseAssignment(learner.id, course.id)).toBeUndefined()
  })

  it('lets a coach read due dates but not change them', async () => {
    const coach = await makeCoach()
    const learner = await makeLearner()
    const course = await makeCourse()
    await assignCourse(learner.id, course.id)
    await setDue('course', learner.id, course.id, { date: '2031-03-03' })
    await expect(
      setAssignmentDue(coach, { userId: learner.id, kind: 'course', id: course.id, dueDate: null }),
    ).rejects.toMatchObject({ status: 403 })
    const cookie = await sessionCookieFor(coach.userName)
    const refused = await post(
      userDetails,
      `/admin/user/${learner.id}?change=course:${course.id}&intent=due`,
      cookie,
      { kind: 'course', id: course.id, dueDate: '' },
      { userId: learner.id },
    )
    expect(await toastOf(refused)).toMatchObject({ type: 'error' })
    expect(await courseAssignment(learner.id, course.id)).toMatchObject({ due_date: '2031-03-03' })
    const page = await renderRoute(userDetails as never, `/admin/user/${learner.id}?change=course:${course.id}`, {
      cookie,
      pattern: '/admin/user/:userId',
    })
    expect(page.getByText('Mon, 3 Mar 2031, end of day (UTC)')).toBeInTheDocument()
    expect(page.queryByRole('link', { name: /Change the due date/ })).toBeNull()
    expect(page.queryByRole('form', { name: /Due date of/ })).toBeNull()
  })
})

describe('the program page', () => {
  it('assigns the program to the learners named, all with one due date', async () => {
    const admin = await sessionCookieFor((await makeAdmin()).userName)
    const [first, second] = [await makeLearner(), await makeLearner()]
    await setZone(second.id, 'Asia/Tokyo')
    const program = await makeProgram([(await makeCourse()).id])
    const path = `/admin/program/${program.id}?intent=assign`
    const params = { programId: program.id }
    const refused = await post(programPage, path, admin, { learners: `${first.userName}\nnobody-here` }, params)
    expect(((await refused.json()) as Reply).result.error.learners).toEqual(['Not a learner: nobody-here.'])
    expect(await programAssignment(first.id, program.id)).toBeUndefined()

    const done = await post(
      programPage,
      path,
      admin,
      { learners: `${first.email}, ${second.userName}`, dueDate: '2031-05-05', dueTime: '12:00' },
      params,
    )
    expect(await toastOf(done)).toMatchObject({ message: 'Assigned to 2 learners.' })
    expect(new Date((await programAssignment(first.id, program.id))?.due_at ?? 0).toISOString()).toBe(
      '2031-05-05T12:00:00.000Z',
    )
    // noon in Tokyo is 03:00 UTC
    expect(new Date((await programAssignment(second.id, program.id))?.due_at ?? 0).toISOString()).toBe(
      '2031-05-05T03:00:00.000Z',
    )
  })
})

describe('the Users List’s due-date filters', () => {
  // 2040-06-10: due at the end of the day, in Kiritimati (UTC+14) at 10:00 UTC that day, in Etc/GMT+12
  // (UTC−12) at 12:00 UTC the next day
  const day = '2040-06-10'

  async function learnersAroundTheBoundary() {
    const course = await makeCourse({ videos: [{ title: 'Only' }] })
    const east = await makeLearner()
    const west = await makeLearner()
    const done = await makeLearner()
    const exact = await makeLearner()
    await setZone(east.id, 'Pacific/Kiritimati')
    await setZone(west.id, 'Etc/GMT+12')
    await setZone(done.id, 'Pacific/Kiritimati')
    for (const learner of [east, west, done]) {
      await assignCourse(learner.id, course.id)
      await setDue('course', learner.id, course.id, { date: day })
    }
    await recordWatched(done.id, course.id, course.videos[0], 100)
    // a program due at an exact time
    const program = await makeProgram([(await makeCourse({ videos: [{ title: 'One' }] })).id])
    await assignProgram(exact.id, program.id)
    await setDue('program', exact.id, program.id, { at: '2040-06-10T11:00:00Z' })
    return { east, west, done, exact }
  }

  const ids = async (due: 'overdue' | 1 | 3, now: string) => {
    const admin = await makeAdmin()
    const { rows } = await listUsers(admin, 'learner', { due, now: new Date(now) })
    return new Set(rows.map((r) => r._id))
  }

  it('keeps the learners overdue at a moment, each in their own zone; a completed one is not', async () => {
    const { east, west, done, exact } = await learnersAroundTheBoundary()
    let overdue = await ids('overdue', '2040-06-10T09:59:00Z')
    expect([east, west, done, exact].map((l) => overdue.has(l.id))).toEqual([false, false, false, false])
    overdue = await ids('overdue', '2040-06-10T10:00:00Z')
    expect([east, west, done, exact].map((l) => overdue.has(l.id))).toEqual([true, false, false, false])
    overdue = await ids('overdue', '2040-06-10T11:00:00Z')
    expect([east, west, done, exact].map((l) => overdue.has(l.id))).toEqual([true, false, false, true])
    overdue = await ids('overdue', '2040-06-11T12:00:00Z')
    expect([east, west, done, exact].map((l) => overdue.has(l.id))).toEqual([true, true, false, true])
    // far later still overdue (the indexed day is only bounded above)
    overdue = await ids('overdue', '2041-01-01T00:00:00Z')
    expect(overdue.has(west.id)).toBe(true)
  })

  it('keeps the learners due within N days of their own today, not yet overdue', async () => {
    const { east, west, done, exact } = await learnersAroundTheBoundary()
    // 2040-06-08 13:00 UTC: in Kiritimati it is already the 9th (due tomorrow), in Etc/GMT+12 the 8th
    let soon = await ids(1, '2040-06-08T13:00:00Z')
    expect([east, west, done, exact].map((l) => soon.has(l.id))).toEqual([true, false, false, false])
    soon = await ids(3, '2040-06-08T13:00:00Z')
    expect([east, west, done, exact].map((l) => soon.has(l.id))).toEqual([true, true, false, true])
    // once overdue, no longer "due within"
    soon = await ids(3, '2040-06-10T10:30:00Z')
    expect([east, west, done, exact].map((l) => soon.has(l.id))).toEqual([false, true, false, true])
  })

  it('filters the page by ?due=, with search and paging kept, and says how many are overdue per row', async () => {
    const admin = await sessionCookieFor((await makeAdmin()).userName)
    const learner = await makeLearner()
    const course = await makeCourse()
    const other = await makeCourse()
    await assignCourse(learner.id, course.id)
    await assignCourse(learner.id, other.id)
    await setDue('course', learner.id, course.id, { date: '2020-01-01' })
    await setDue('course', learner.id, other.id, { at: '2020-02-01T10:00:00Z' })
    const onTime = await makeLearner()
    await assignCourse(onTime.id, course.id)
    await setDue('course', onTime.id, course.id, { date: '2099-01-01' })

    const page = await renderRoute(usersList as never, `/admin/users?due=overdue&q=${learner.userName}`, {
      cookie: admin,
    })
    const table = page.getByRole('table', { name: 'Users List' })
    expect(within(table).getByText(learner.userName)).toBeInTheDocument()
    expect(within(table).getByText('2 overdue')).toBeInTheDocument()
    expect(page.getByRole('combobox', { name: 'Due dates' })).toHaveValue('overdue')
    // the search box keeps the filter
    const search = page.getByRole('search')
    expect(search.querySelector('input[name="due"]')).toHaveValue('overdue')

    const none = await renderRoute(usersList as never, `/admin/users?due=overdue&q=${onTime.userName}`, {
      cookie: admin,
    })
    expect(within(none.getByRole('table', { name: 'Users List' })).queryByText(onTime.userName)).toBeNull()
    const within30 = await renderRoute(usersList as never, `/admin/users?due=30&q=${onTime.userName}`, {
      cookie: admin,
    })
    expect(within(within30.getByRole('table', { name: 'Users List' })).queryByText(onTime.userName)).toBeNull()
    // an unknown filter is none
    const all = await renderRoute(usersList as never, `/admin/users?due=soon&q=${onTime.userName}`, { cookie: admin })
    expect(within(all.getByRole('table', { name: 'Users List' })).getByText(onTime.userName)).toBeInTheDocument()
  })
})

describe('the dashboard', () => {
  it('counts overdue course and program assignments, not completed ones, and links to the filter', async () => {
    const admin = await makeAdmin()
    const now = new Date('2045-01-01T00:00:00Z')
    const before = await overdueAssignmentCount(admin, now)
    const learner = await makeLearner()
    const course = await makeCourse({ videos: [{ title: 'Only' }] })
    const program = await makeProgram([(await makeCourse({ videos: [{ title: 'One' }] })).id])
    await assignCourseService(admin, { userId: learner.id, courseId: course.id, dueDate: '2044-12-30' })
    await assignProgram(learner.id, program.id)
    await setDue('program', learner.id, program.id, { at: '2044-12-31T23:00:00Z' })
    const finished = await makeLearner()
    await assignCourse(finished.id, course.id)
    await setDue('course', finished.id, course.id, { date: '2044-12-30' })
    await recordWatched(finished.id, course.id, course.videos[0], 100)
    expect(await overdueAssignmentCount(admin, now)).toBe(before + 2)
    expect(await overdueAssignmentCount(admin, new Date('2044-12-30T00:00:00Z'))).toBeLessThan(before + 2)

    const page = await renderRoute(dashboardPage as never, '/admin/dashboard', {
      cookie: await sessionCookieFor((await makeCoach()).userName),
    })
    const card = page.getByRole('link', { name: /Overdue assignments/ })
    expect(card).toHaveAttribute('href', '/admin/users?due=overdue')
    const { CourseAssignment } = await db()
    expect(await CourseAssignment.count({ where: { userId: learner.id } })).toBe(1)
  })
})

import { within } from '@testing-library/dom'
import { describe, expect, it } from 'vitest'
import { dayIn, TIME_ZONE_CHOICE_MESSAGE } from '#app/modules/deadlines/due.ts'
import { saveReminderSettings } from '#app/modules/deadlines/service.server.ts'
import * as coursePage from '#app/routes/_learner+/course.$courseId._index.tsx'
import * as myCourses from '#app/routes/_learner+/courses.tsx'
import * as profilePage from '#app/routes/_learner+/editProfile.tsx'
import * as assignedCoursesRoute from '#app/routes/api+/category.assignedCourses.$userId.ts'
import * as editProfileRoute from '#app/routes/api+/user.editProfile.ts'
import * as profileRoute from '#app/routes/api+/user.profile.ts'
import { db } from '#db/client.ts'
import {
  assignCourse,
  assignProgram,
  makeAdmin,
  makeCourse,
  makeLearner,
  makeProgram,
  recordWatched,
} from '#tests/factories.ts'
import { renderRoute, type RouteModule } from '#tests/render.tsx'
import { body, call } from '#tests/requests.ts'
import { sessionCookieFor, toastOf } from '#tests/sessions.ts'

// The learner's side of due dates: their time zone and reminder mails on Edit Profile and the /api, and
// My Courses' due dates in words, nearest first, read in the learner's own zone.

type Reply = { result: { error: Record<string, string[] | null> } }

const profileForm = (fields: Record<string, string>) =>
  new URLSearchParams({ firstName: 'Paula', lastName: 'Page', userName: `paula${Date.now()}`, ...fields })

async function savePage(cookie: string, fields: Record<string, string>) {
  return call(profilePage.action as never, '/editProfile', {
    method: 'POST',
    headers: { Cookie: cookie },
    body: profileForm(fields),
  })
}

async function storedChoices(userId: string) {
  const { User } = await db()
  const user = await User.findByPk(userId)
  return { timeZone: user?.timeZone, reminderMails: user?.reminderMails }
}

const allowOptOut = async (learnersMayOptOut: boolean) =>
  saveReminderSettings(await makeAdmin(), { plan: { before: [7, 1], after: [1, 3, 7] }, learnersMayOptOut })

describe('the time zone on Edit Profile and the /api', () => {
  it('offers the list with the portal’s default named, saves a zone, and refuses one not on the list', async () => {
    const learner = await makeLearner()
    const cookie = await sessionCookieFor(learner.userName)
    const page = await renderRoute(profilePage as RouteModule, '/editProfile', { cookie })
    const select = page.getByRole('combobox', { name: 'Time zone' }) as HTMLSelectElement
    // none chosen: the portal's default (UTC in the tests) is the one shown, and named as the default
    expect(select.value).toBe('UTC')
    expect(page.getByRole('option', { name: 'UTC (the portal’s default)' })).toBeInTheDocument()
    expect(page.getByRole('option', { name: 'Pacific/Kiritimati' })).toBeInTheDocument()

    // saving the names as shown keeps the learner on the portal's default, not pinned to UTC
    expect(await toastOf(await savePage(cookie, { timeZone: 'UTC' }))).toMatchObject({ message: 'Profile updated.' })
    expect((await storedChoices(learner.id)).timeZone).toBeNull()

    await savePage(cookie, { timeZone: 'Pacific/Kiritimati' })
    expect((await storedChoices(learner.id)).timeZone).toBe('Pacific/Kiritimati')
    const again = await renderRoute(profilePage as RouteModule, '/editProfile', { cookie })
    expect((again.getByRole('combobox', { name: 'Time zone' }) as HTMLSelectElement).value).toBe('Pacific/Kiritimati')

    // not a zone; an offset; a zone the runtime knows that is not on the list (the service's check)
    for (const zone of ['Mars/Olympus', '+05:00', 'EST5EDT']) {
      const refused = await savePage(cookie, { timeZone: zone })
      expect(((await refused.json()) as Reply).result.error.timeZone, zone).toEqual([TIME_ZONE_CHOICE_MESSAGE])
    }
    expect((await storedChoices(learner.id)).timeZone).toBe('Pacific/Kiritimati')
  })

  it('is read and changed through the /api, another spelling stored as the list’s name', async () => {
    const learner = await makeLearner()
    const read = async () =>
      (
        await body<{ user: Record<string, unknown> }>(
          await call(profileRoute.loader as never, '/x', { token: learner.token }),
        )
      ).user
    expect(await read()).toMatchObject({ timeZone: 'UTC', reminderMails: true })

    const put = (json: Record<string, unknown>) =>
      call(editProfileRoute.action as never, '/x', {
        method: 'PUT',
        token: learner.token,
        json: { firstName: 'Renamed', userName: learner.userName, ...json },
      })
    expect((await put({ timeZone: 'europe/berlin' })).status).toBe(200)
    expect(await read()).toMatchObject({ timeZone: 'Europe/Berlin' })
    // left out: kept
    expect((await put({})).status).toBe(200)
    expect(await read()).toMatchObject({ timeZone: 'Europe/Berlin' })

    for (const timeZone of ['Nowhere/Special', 42, '+05:00', 'EST5EDT']) {
      const refused = await put({ timeZone })
      expect(refused.status, String(timeZone)).toBe(400)
      expect(await body(refused)).toMatchObject({ errors: { timeZone: TIME_ZONE_CHOICE_MESSAGE } })
    }
    // null: back to the portal's default
    expect((await put({ timeZone: null })).status).toBe(200)
    expect((await storedChoices(learner.id)).timeZone).toBeNull()
    expect(await read()).toMatchObject({ timeZone: 'UTC' })
  })
})

// one file, one database: the setting is the portal's, so its two states are tested in order
describe('the reminder mails switch', () => {
  it('is neither shown nor taken while learners may not turn reminders off, and is once they may', async () => {
    const learner = await makeLearner()
    const cookie = await sessionCookieFor(learner.userName)
    await allowOptOut(false)
    const page = await renderRoute(profilePage as RouteModule, '/editProfile', { cookie })
    expect(page.queryByText('Email me reminders about due dates')).toBeNull()
    // a page that sends it anyway, and the /api, are ignored: the names are saved, the mails stay on
    expect(await toastOf(await savePage(cookie, { reminderMails: 'false' }))).toMatchObject({
      message: 'Profile updated.',
    })
    const ignored = await call(editProfileRoute.action as never, '/x', {
      method: 'PUT',
      token: learner.token,
      json: { firstName: 'Renamed', userName: learner.userName, reminderMails: false },
    })
    expect(ignored.status).toBe(200)
    expect((await storedChoices(learner.id)).reminderMails).toBe(true)

    await allowOptOut(true)
    const shown = await renderRoute(profilePage as RouteModule, '/editProfile', { cookie })
    // before JavaScript the switch is two radio buttons under its label, "Yes" chosen
    const group = shown.getByRole('group', { name: 'Email me reminders about due dates' })
    expect(group).toBeInTheDocument()
    expect(shown.getByRole('radio', { name: 'Yes' })).toBeChecked()
    await savePage(cookie, { reminderMails: 'false' })
    expect((await storedChoices(learner.id)).reminderMails).toBe(false)
    const read = await body<{ user: Record<string, unknown> }>(
      await call(profileRoute.loader as never, '/x', { token: learner.token }),
    )
    expect(read.user).toMatchObject({ reminderMails: false })
    const reopened = await renderRoute(profilePage as RouteModule, '/editProfile', { cookie })
    expect(reopened.getByRole('radio', { name: 'No' })).toBeChecked()
    // a save that leaves it out (the /api) keeps it
    await call(editProfileRoute.action as never, '/x', {
      method: 'PUT',
      token: learner.token,
      json: { firstName: 'Renamed', userName: learner.userName },
    })
    expect((await storedChoices(learner.id)).reminderMails).toBe(false)
    await savePage(cookie, { reminderMails: 'true' })
    expect((await storedChoices(learner.id)).reminderMails).toBe(true)
    await allowOptOut(false)
  })
})

/** The calendar day `days` after today in `zone`, as YYYY-MM-DD. */
function dayFromToday(zone: string, days: number) {
  const [year, month, day] = dayIn(new Date(), zone).split('-').map(Number)
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10)
}

async function setDue(
  model: 'CourseAssignment' | 'ProgramAssignment',
  where: { userId: string; courseId?: string; programId?: string },
  dueDate: string,
) {
  const models = await db()
  await (models[model] as typeof models.CourseAssignment).update({ dueDate }, { where: where as never })
}

describe('My Courses’ due dates', () => {
  it('says when each course is due in the learner’s zone, nearest first, Completed for a completed one', async () => {
    const zone = 'Pacific/Kiritimati'
    const learner = await makeLearner()
    const { User } = await db()
    await User.update({ timeZone: zone }, { where: { id: learner.id } })
    const overdue = await makeCourse({ title: 'Zeta Overdue' })
    const tomorrow = await makeCourse({ title: 'Mu Tomorrow' })
    const viaProgram = await makeCourse({ title: 'Kappa Program' })
    const done = await makeCourse({ title: 'Alpha Done', videos: [{ duration: 100 }] })
    const undated = await makeCourse({ title: 'Beta Undated' })
    for (const course of [overdue, tomorrow, viaProgram, done, undated]) await assignCourse(learner.id, course.id)
    await setDue('CourseAssignment', { userId: learner.id, courseId: overdue.id }, dayFromToday(zone, -3))
    await setDue('CourseAssignment', { userId: learner.id, courseId: tomorrow.id }, dayFromToday(zone, 1))
    await setDue('CourseAssignment', { userId: learner.id, courseId: done.id }, dayFromToday(zone, -1))
    // its own assignment is due in 20 days, its program's in 5: the program's, the earlier, counts
    await setDue('CourseAssignment', { userId: learner.id, courseId: viaProgram.id }, dayFromToday(zone, 20))
    const program = await makeProgram([viaProgram.id])
    const { Program } = await db()
    await Program.update({ title: 'Data Warehousing' }, { where: { id: program.id } })
    await assignProgram(learner.id, program.id)
    await setDue('ProgramAssignment', { userId: learner.id, programId: program.id }, dayFromToday(zone, 5))
    await recordWatched(learner.id, done.id, done.videos[0], 100)

    const cookie = await sessionCookieFor(learner.userName)
    const page = await renderRoute(myCourses as RouteModule, '/courses', { cookie, pattern: '/courses' })
    const cards = page.getAllByTestId('course-card')
    const titles = cards.map((card) => card.querySelector('h2')?.textContent)
    // overdue, then the soonest; then those without a date to meet (completed, none) by title
    expect(titles).toEqual(['Zeta Overdue', 'Mu Tomorrow', 'Kappa Program', 'Alpha Done', 'Beta Undated'])
    const words = cards.map((card) => card.querySelector('[data-testid="due"]')?.textContent ?? null)
    expect(words[0]).toMatch(/^Overdue by 3 days \(/)
    expect(words[1]).toMatch(/^Due tomorrow \(/)
    expect(words[2]).toMatch(/ · Data Warehousing program$/)
    expect(words[3]).toBe('✓ Completed')
    expect(words[4]).toBeNull()
    // the full date, its zone named, in the <time>'s title
    const time = cards[1].querySelector('time')
    expect(time?.getAttribute('dateTime')).toBe(dayFromToday(zone, 1))
    expect(time?.getAttribute('title')).toMatch(/, end of day \(Pacific\/Kiritimati\)$/)

    // by title on request, with a link back to the due order
    const byTitle = await renderRoute(myCourses as RouteModule, '/courses?sort=title', { cookie, pattern: '/courses' })
    expect(byTitle.getAllByTestId('course-card').map((card) => card.querySelector('h2')?.textContent)).toEqual([
      'Alpha Done',
      'Beta Undated',
      'Kappa Program',
      'Mu Tomorrow',
      'Zeta Overdue',
    ])
    const sort = byTitle.getByRole('navigation', { name: 'Sort courses' })
    expect(within(sort).getByText('Title')).toHaveAttribute('aria-current', 'page')
    expect(byTitle.getByRole('link', { name: 'Due date' })).toHaveAttribute('href', '/courses')

    // the /api: the same dates, the instant read in the learner's zone (the end of the day there, +14:00)
    const answer = await body<{ message: { assignedCourses: Record<string, unknown>[] } }>(
      await call(assignedCoursesRoute.loader as never, '/x', {
        token: learner.token,
        params: { userId: learner.id },
      }),
    )
    const byId = new Map(answer.message.assignedCourses.map((c) => [c._id, c]))
    expect(byId.get(tomorrow.id)).toMatchObject({
      dueDate: dayFromToday(zone, 1),
      dueAt: new Date(`${dayFromToday(zone, 2)}T00:00:00+14:00`).toISOString(),
      completed: false,
    })
    expect(byId.get(viaProgram.id)).toMatchObject({ dueDate: dayFromToday(zone, 5) })
    expect(byId.get(done.id)).toMatchObject({ completed: true })
    expect(byId.get(undated.id)).toMatchObject({ dueDate: null, dueAt: null, completed: false })

    // the course's own page says the same
    const coursePageOf = async (id: string) =>
      (
        await renderRoute(coursePage as RouteModule, `/course/${id}`, { cookie, pattern: '/course/:courseId' })
      ).queryByTestId('due')?.textContent ?? null
    expect(await coursePageOf(tomorrow.id)).toMatch(/^Due tomorrow \(/)
    expect(await coursePageOf(viaProgram.id)).toMatch(/ · Data Warehousing program$/)
    expect(await coursePageOf(done.id)).toBe('✓ Completed')
    expect(await coursePageOf(undated.id)).toBeNull()
  })

  it('reads the same due day in the learner’s own zone: the end of it there', async () => {
    const learner = await makeLearner()
    const course = await makeCourse({ title: 'Zone Course' })
    await assignCourse(learner.id, course.id)
    await setDue('CourseAssignment', { userId: learner.id, courseId: course.id }, '2030-06-15')
    const dueAt = async () => {
      const answer = await body<{ message: { assignedCourses: { dueAt: string }[] } }>(
        await call(assignedCoursesRoute.loader as never, '/x', {
          token: learner.token,
          params: { userId: learner.id },
        }),
      )
      return answer.message.assignedCourses[0].dueAt
    }
    expect(await dueAt()).toBe('2030-06-16T00:00:00.000Z')
    const { User } = await db()
    await User.update({ timeZone: 'Etc/GMT+12' }, { where: { id: learner.id } })
    expect(await dueAt()).toBe('2030-06-16T12:00:00.000Z')
  })
})

import { waitForMail } from '../outbox.ts'
import { expect, test } from './fixtures.ts'
import { createLearner, createShortCourse, expectAccessible, portal, signIn, whenHydrated } from './helpers.ts'

// A deadline from end to end: an admin gives a learner a course due tomorrow on User Details; the learner reads
// "Due tomorrow" on My Courses; the reminder sweep (run once by the CLI, for a moment of today after 08:00 in the
// learner's zone, UTC) queues the day-before reminder, and the running portal's workers send it, with what the
// learner has done of the course in it. Each changed page is checked with axe.

const COURSE = 'E2E Deadline Drills'
const LEARNER = {
  userName: 'due.learner',
  email: 'due.learner@example.com',
  password: 'Due-dates-1st!',
  firstName: 'Dana',
  lastName: 'Duedate',
}

/** YYYY-MM-DD of the UTC day `days` from now (the learner has no time zone of their own: the portal's UTC). */
const utcDay = (days: number) => new Date(Date.now() + days * 24 * 60 * 60 * 1000).toISOString().slice(0, 10)

test.beforeAll(async ({ request }) => {
  await createShortCourse(request, {
    title: COURSE,
    description: 'Window functions against the clock.',
    video: { title: 'Ranking Rows', description: 'ROW_NUMBER and RANK.', path: '/embed/ranking-rows?d=4&speed=2' },
  })
  // a worker that starts again after a failed test finds the learner there
  await createLearner(LEARNER, { mayExist: true })
})

test('an admin assigns a course due tomorrow; the learner sees "Due tomorrow" and gets the reminder with their progress', async ({
  page,
  browser,
  signInAs,
}) => {
  test.setTimeout(90_000)
  const adminContext = await browser.newContext()
  const admin = await adminContext.newPage()
  try {
    await signInAs('admin', { page: admin })
    await admin.goto(`/admin/users?q=${LEARNER.userName}`)
    await admin.getByRole('link', { name: LEARNER.firstName, exact: true }).click()
    await expect(admin.getByRole('heading', { name: 'Assign New Course' })).toBeVisible()
    await whenHydrated(admin)
    await expectAccessible(admin, 'User Details with the due date fields')

    const assign = admin.locator('form#assign-course')
    await assign.getByLabel('Course').selectOption({ label: COURSE })
    await assign.getByLabel('Day').fill(utcDay(1))
    await assign.getByRole('button', { name: 'Assign Course' }).click()
    const assigned = admin.getByRole('table', { name: 'Assigned courses' }).getByRole('row').filter({ hasText: COURSE })
    await expect(assigned).toContainText('Due tomorrow')

    // the row's Change dialog opens with the date in it, and is accessible; Cancel leaves it as it was
    await assigned.getByRole('link', { name: `Change the due date of ${COURSE}` }).click()
    const dialog = admin.getByRole('dialog', { name: `Due date of ${COURSE}` })
    await expect(dialog.getByLabel('Day', { exact: true })).toHaveValue(utcDay(1))
    await expectAccessible(admin, 'the Change due date dialog')
    await dialog.getByRole('link', { name: 'Cancel' }).click()
    await expect(assigned).toContainText('Due tomorrow')

    // Users List, due within a day: the learner is there; the dashboard counts the demo's overdue assignment
    await admin.goto(`/admin/users?due=1&q=${LEARNER.userName}`)
    await expect(admin.getByRole('table', { name: 'Users List' }).getByRole('row')).toHaveCount(2)
    await expect(admin.getByRole('combobox', { name: 'Due dates' })).toHaveValue('1')
    await expectAccessible(admin, 'Users List filtered by due date')
    await admin.goto('/admin/dashboard')
    const overdue = admin.getByTestId('count-card').filter({ hasText: 'Overdue assignments' })
    await expect(overdue).toHaveAttribute('href', '/admin/users?due=overdue')
    await expect(overdue).toContainText(/Overdue assignments\s*[1-9]/)
  } finally {
    await adminContext.close()
  }

  // the learner's My Courses: the course due tomorrow, first (the nearest due date leads)
  await signIn(page, LEARNER.userName, LEARNER.password)
  const card = page.getByTestId('course-card').filter({ hasText: COURSE })
  await expect(card).toContainText('Due tomorrow')
  await expect(page.getByTestId('course-card').first()).toContainText(COURSE)
  await expectAccessible(page, 'My Courses with a due date')

  // the sweep for 12:00 UTC today, after the day-before reminder's 08:00: queued once, sent by the workers
  await portal('reminders', 'run', '--now', `${utcDay(0)}T12:00:00Z`, '--json')
  const mail = await waitForMail(process.env.E2E_DATA_DIR as string, {
    to: LEARNER.email,
    subject: new RegExp(`^Reminder: ${COURSE} is due tomorrow`),
    timeoutMs: 30_000,
  })
  expect(mail.text).toContain('You have not started yet.')
  expect(mail.text).toMatch(/end of day \(UTC\)/)
  expect(mail.text).toMatch(/\/course\/[0-9a-f-]{36}/)

  // run again: the key is recorded, nothing more is queued
  const again = JSON.parse((await portal('reminders', 'run', '--now', `${utcDay(0)}T12:05:00Z`, '--json')).stdout) as {
    queued: number
  }
  expect(again.queued).toBe(0)
})

test('the Reminders page reads the plan in words and is accessible', async ({ page, signInAs }) => {
  await signInAs('admin', { page })
  await page.goto('/admin/reminders')
  await expect(page.getByRole('heading', { name: 'Reminders', level: 1 })).toBeVisible()
  await expect(page.getByText(/7 and 1 days before; 1, 3 and 7 days overdue/).first()).toBeVisible()
  await expectAccessible(page, 'the Reminders page')
})

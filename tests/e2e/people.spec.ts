import { waitForMail } from '../outbox.ts'
import { expect, test } from './fixtures.ts'
import { chooseNewPassword, expectAccessible, fillPersonForm, portal, signIn } from './helpers.ts'

// People and access, end to end: an admin adds a learner by hand and gives them a course and a program; the
// learner recovers a forgotten password through the mailed link; a partner's bridge link signs them
// into the course, once.

const LEARNER = {
  firstName: 'Winifred',
  lastName: 'Welcome',
  userName: 'winifred.w',
  email: 'winifred@example.com',
  password: 'Admin-chose1!',
}

test('an admin adds a learner who recovers a password by mail and arrives through a bridge link', async ({
  signInAs,
  page,
  browser,
}) => {
  test.setTimeout(120_000)
  await signInAs('admin')

  // Create New User, from the Users List
  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Users', exact: true }).click()
  await expect(page.getByRole('heading', { name: 'Users List' })).toBeVisible()
  await expectAccessible(page, 'Users List')
  await page.getByRole('link', { name: 'Create New User' }).click()
  const dialog = page.getByRole('dialog', { name: 'Create New User' })
  await fillPersonForm(dialog, LEARNER)
  await dialog.getByRole('button', { name: 'Create' }).click()
  await expect(page.getByText(`User ${LEARNER.userName} created.`)).toBeVisible()

  // find them, open their details, assign a course and a program
  await page.getByRole('searchbox', { name: 'Search Users List' }).fill('winifred')
  await page.getByRole('searchbox', { name: 'Search Users List' }).press('Enter')
  await page.getByRole('link', { name: LEARNER.firstName }).click()
  await expect(page.getByRole('heading', { name: 'User Details' })).toBeVisible()
  await expect(page.getByText(LEARNER.email)).toBeVisible()
  await expect(page.getByText('No Courses Assigned')).toBeVisible()
  await expectAccessible(page, 'User Details')
  await page.getByLabel('Course', { exact: true }).selectOption({ label: 'SQL Fundamentals' })
  await page.getByRole('button', { name: 'Assign Course' }).click()
  await expect(page.getByText('Course assigned.')).toBeVisible()
  await page.getByLabel('Program', { exact: true }).selectOption({ label: 'Analytics Engineering Path' })
  await page.getByRole('button', { name: 'Assign Program' }).click()
  await expect(page.getByText('Program assigned.')).toBeVisible()
  const assigned = page.getByRole('table', { name: 'Assigned courses' })
  await expect(assigned.getByRole('row')).toHaveCount(4) // the header, SQL and the program's two courses
  await expect(assigned).toContainText('Data Warehousing and Dimensional Design')

  // the learner forgot the password the admin chose: the mailed link sets a new one
  const learner = await browser.newContext()
  const tab = await learner.newPage()
  await tab.goto('/sign-in')
  await tab.getByRole('link', { name: 'Forgot Password?' }).click()
  await expectAccessible(tab, 'Forgot Password')
  await tab.getByLabel('Email').fill(LEARNER.email)
  await tab.getByRole('button', { name: 'Send reset link' }).click()
  await expect(tab.getByRole('status')).toContainText('If an account matches')
  // forgotPassword answers before its mail is written: wait for the reset mail, not the invitation
  const mail = await waitForMail(process.env.E2E_DATA_DIR as string, { to: LEARNER.email, subject: /^Reset your/ })
  const link = /http:\/\/127\.0\.0\.1:\d+\/reset-Password\/[A-Za-z0-9_-]+/.exec(mail.text ?? '')?.[0]
  expect(link).toBeDefined()
  await tab.goto(link as string)
  await expectAccessible(tab, 'the reset page')
  await chooseNewPassword(tab, 'Learner-own2!')
  await expect(tab.getByText('Your password is set. Sign in with it now.')).toBeVisible()
  await signIn(tab, LEARNER.userName, 'Learner-own2!')
  await expect(tab.getByTestId('course-card')).toHaveCount(3)
  // the same link again is refused with the old client's message
  await tab.goto(link as string)
  await expect(tab).toHaveURL(/\/forgot-Password$/)
  await expect(tab.getByText('Token Expired, Please enter your email id to verify again.')).toBeVisible()
  await learner.close()

  // a bridge link from the partner system opens the course, once
  const { stdout } = await portal('bridge', 'link', '--user', LEARNER.email, '--course', 'SQL Fundamentals')
  const bridge = stdout.trim()
  expect(bridge).toMatch(/\/ibridge\/[\w-]+\.[\w-]+\.[\w-]+\/[0-9a-f-]{36}$/)
  const partner = await browser.newContext()
  const arrival = await partner.newPage()
  await arrival.goto(bridge)
  await expect(arrival).toHaveURL(/\/course\/[0-9a-f-]{36}$/)
  await expect(arrival.getByRole('heading', { name: 'SQL Fundamentals', level: 1 })).toBeVisible()
  await partner.close()
  const replay = await (await browser.newContext()).newPage()
  await replay.goto(bridge)
  await expect(replay.getByRole('heading', { name: 'This sign-in link cannot be used' })).toBeVisible()
  await replay.goto('/courses')
  await expect(replay).toHaveURL(/\/sign-in/)
})

test('only the super admin sees Create New Admin; a coach creates nobody', async ({ page, signInAs }) => {
  await signInAs('admin')
  await page.goto('/admin/adminUsers')
  await expect(page.getByRole('heading', { name: "Admin's List" })).toBeVisible()
  await expect(page.getByRole('link', { name: 'Create New Admin' })).toHaveCount(0)
  await page.context().clearCookies()
  await signInAs('superadmin')
  await page.goto('/admin/adminUsers')
  await expect(page.getByRole('link', { name: 'Create New Admin' })).toBeVisible()
  await expectAccessible(page, "Admin's List")
  await page.context().clearCookies()
  await signInAs('coach')
  await page.goto('/admin/coach')
  await expect(page.getByRole('heading', { name: "Coach's List" })).toBeVisible()
  await expect(page.getByRole('link', { name: 'Create New Coach' })).toHaveCount(0)
})

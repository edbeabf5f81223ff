import { expect, test } from './fixtures.ts'
import { createLearner, portal, signIn } from './helpers.ts'

// "Log out everywhere" on Edit Profile in a browser without JavaScript: a plain form that ends this
// browser's session and every other one of the account. And the user menu's entries, which are a
// <details> disclosure of plain links and a Logout form until JavaScript runs.

test.use({ javaScriptEnabled: false })

test('Log out everywhere works without JavaScript and ends the sessions of other browsers too', async ({
  page,
  browser,
}) => {
  // a learner of our own: the demo learners' sessions are in use by the files that run beside this one
  const learner = {
    userName: 'nojs.everywhere',
    email: 'nojs.everywhere@example.com',
    password: 'Every-where1!',
    firstName: 'Everett',
    lastName: 'Where',
  }
  await createLearner(learner, { mayExist: true })
  const elsewhere = await browser.newContext({ javaScriptEnabled: false })
  const otherPage = await elsewhere.newPage()
  await signIn(otherPage, learner.email, learner.password)
  await signIn(page, learner.userName, learner.password)

  await page.goto('/editProfile')
  await page.getByRole('button', { name: 'Log out everywhere' }).click()
  await expect(page).toHaveURL(/\/sign-in$/)

  await page.goto('/courses')
  await expect(page).toHaveURL(/\/sign-in\?redirectTo=%2Fcourses$/)
  await otherPage.goto('/courses')
  await expect(otherPage).toHaveURL(/\/sign-in\?redirectTo=%2Fcourses$/)
  await elsewhere.close()
})

test('without JavaScript the user menu opens Edit Profile and Reset Password, a new password is set, and Logout ends the session', async ({
  page,
}) => {
  // a learner of our own, so the demo accounts keep their passwords
  const learner = { userName: 'nojs.learner', email: 'nojs.learner@example.com', password: 'No-Script-1st!' }
  const newPassword = 'No-Script-2nd?'
  await portal(
    'users',
    'create',
    '--role',
    'learner',
    '--email',
    learner.email,
    '--password',
    learner.password,
    '--first-name',
    'Nora',
    '--last-name',
    'Script',
    '--username',
    learner.userName,
  )
  await signIn(page, learner.userName, learner.password)
  await expect(page).toHaveURL(/\/courses$/)
  const userMenu = page.locator('summary').filter({ hasText: 'User menu' })
  const entry = (name: string) => page.locator('details[open]').getByRole('link', { name, exact: true })
  await expect(entry('Edit Profile')).toBeHidden()
  await userMenu.click()
  await entry('Edit Profile').click()
  await expect(page).toHaveURL(/\/editProfile$/)
  await expect(page.getByRole('heading', { name: 'Edit Profile' })).toBeVisible()

  await userMenu.click()
  await entry('Reset Password').click()
  await expect(page.getByRole('heading', { name: 'Reset Password' })).toBeVisible()
  await page.getByLabel('Current Password').fill(learner.password)
  await page.getByLabel('Password', { exact: true }).fill(newPassword)
  await page.getByLabel('Confirm Password').fill(newPassword)
  await page.getByRole('button', { name: 'Change Password' }).click()
  await expect(page).toHaveURL(/\/sign-in$/)
  await expect(page.getByRole('status').filter({ hasText: 'Password changed.' })).toBeVisible()
  await signIn(page, learner.email, newPassword)
  await expect(page).toHaveURL(/\/courses$/)

  await userMenu.click()
  await page.locator('details[open]').getByRole('button', { name: 'Logout' }).click()
  await expect(page).toHaveURL(/\/$/)
  await page.goto('/courses')
  await expect(page).toHaveURL(/\/sign-in\?redirectTo=%2Fcourses$/)
})

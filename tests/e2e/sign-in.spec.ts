import { DEMO_PASSWORD } from '../../db/seeds/demo-content.ts'
import { expect, test } from './fixtures.ts'
import { expectAccessible, signIn } from './helpers.ts'

test('an anonymous visit to /courses lands on /sign-in and returns there after login', async ({ page }) => {
  await page.goto('/courses')
  await expect(page).toHaveURL(/\/sign-in\?redirectTo=%2Fcourses$/)
  await page.getByLabel('Username / Email').fill('learner1')
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD)
  await page.getByRole('button', { name: 'Sign In' }).click()
  await expect(page).toHaveURL(/\/courses$/)
  await expect(page.getByRole('heading', { name: 'My Courses' })).toBeVisible()
})

test('a deep link survives the sign-in round trip, query string included', async ({ page }) => {
  await page.goto('/courses?q=sql')
  await expect(page).toHaveURL(/redirectTo=%2Fcourses%3Fq%3Dsql/)
  await page.getByLabel('Username / Email').fill('learner1@example.com')
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD)
  await page.getByRole('button', { name: 'Sign In' }).click()
  await expect(page).toHaveURL(/\/courses\?q=sql$/)
  await expect(page.getByTestId('course-card')).toHaveCount(1)
})

test('wrong credentials show the same toast for a known and an unknown account', async ({ page }) => {
  for (const login of ['learner1', 'nobody-at-all']) {
    await page.goto('/sign-in')
    await page.getByLabel('Username / Email').fill(login)
    await page.getByLabel('Password', { exact: true }).fill('Wrong-password1!')
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page.getByText('Invalid Username/Email or Password.').first()).toBeVisible()
    await expect(page).toHaveURL(/\/sign-in/)
  }
})

test('empty fields show the old client’s messages, and the password toggle reveals the text', async ({ page }) => {
  await page.goto('/sign-In')
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible()
  await page.getByRole('button', { name: 'Sign In' }).click()
  await expect(page.getByText('Username / Email is required field.')).toBeVisible()
  await expect(page.getByText('Password is required field.')).toBeVisible()
  const password = page.getByLabel('Password', { exact: true })
  await password.fill('secret')
  await expect(password).toHaveAttribute('type', 'password')
  await page.getByRole('button', { name: 'Show' }).click()
  await expect(password).toHaveAttribute('type', 'text')
  await expect(page.getByRole('link', { name: 'Forgot Password?' })).toHaveAttribute('href', '/forgot-Password')
})

test('the form works without JavaScript and answers with the old client’s messages', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  await page.goto('/sign-in')
  await page.getByRole('button', { name: 'Sign In' }).click()
  await expect(page.getByText('Username / Email is required field.')).toBeVisible()
  await page.getByLabel('Username / Email').fill('learner2')
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD)
  await page.getByRole('button', { name: 'Sign In' }).click()
  await expect(page).toHaveURL(/\/courses$/)
  await context.close()
})

test('an off-site redirectTo is ignored after login', async ({ page }) => {
  await page.goto('/sign-in?redirectTo=//evil.example/steal')
  await page.getByLabel('Username / Email').fill('learner1')
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD)
  await page.getByRole('button', { name: 'Sign In' }).click()
  await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/courses$/)
})

test('logout from the user menu ends the session, on the server too', async ({ page, browser }) => {
  await signIn(page, 'learner1', DEMO_PASSWORD)
  const kept = await page.context().cookies()
  await page.getByRole('button', { name: 'User menu' }).click()
  await page.getByRole('menuitem', { name: 'Logout' }).click()
  await expect(page).toHaveURL(/\/$/)
  await page.goto('/courses')
  await expect(page).toHaveURL(/\/sign-in/)
  // a copy of the cookie taken before the logout opens nothing either
  const replay = await browser.newContext()
  await replay.addCookies(kept)
  const replayed = await replay.newPage()
  await replayed.goto('/courses')
  await expect(replayed).toHaveURL(/\/sign-in/)
  await replay.close()
})

test('the user menu works from the keyboard: arrows, Home/End, a first letter, Escape back to the button', async ({
  page,
}) => {
  await signIn(page, 'learner1', DEMO_PASSWORD)
  const button = page.getByRole('button', { name: 'User menu' })
  const item = (name: string) => page.getByRole('menuitem', { name })
  await button.focus()
  await page.keyboard.press('ArrowDown')
  await expect(button).toHaveAttribute('aria-expanded', 'true')
  await expect(item('Edit Profile')).toBeFocused()
  await expectAccessible(page, 'the open user menu')
  await page.keyboard.press('End')
  await expect(item('Logout')).toBeFocused()
  await page.keyboard.press('ArrowDown')
  await expect(item('Edit Profile')).toBeFocused()
  await page.keyboard.press('r')
  await expect(item('Reset Password')).toBeFocused()
  await page.keyboard.press('ArrowDown')
  await expect(item('My Certificates')).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('menu')).toBeHidden()
  await expect(button).toBeFocused()
  await expect(button).toHaveAttribute('aria-expanded', 'false')

  await page.keyboard.press('ArrowUp')
  await expect(item('Logout')).toBeFocused()
  await page.keyboard.press('Home')
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { name: 'Edit Profile' })).toBeVisible()
  await expect(page.getByRole('menu')).toBeHidden()
})

test('a click outside the user menu closes it', async ({ page }) => {
  await signIn(page, 'learner1', DEMO_PASSWORD)
  await page.getByRole('button', { name: 'User menu' }).click()
  await expect(page.getByRole('menu')).toBeVisible()
  await page.getByRole('heading', { name: 'My Courses' }).click()
  await expect(page.getByRole('menu')).toBeHidden()
})

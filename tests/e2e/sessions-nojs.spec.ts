import { DEMO_PASSWORD } from '../../db/seeds/demo-content.ts'
import { expect, test } from './fixtures.ts'
import { signIn } from './helpers.ts'

// "Log out everywhere" on Edit Profile in a browser without JavaScript: a plain form that ends this
// browser's session and every other one of the account.

test.use({ javaScriptEnabled: false })

test('Log out everywhere works without JavaScript and ends the sessions of other browsers too', async ({
  page,
  browser,
}) => {
  const elsewhere = await browser.newContext({ javaScriptEnabled: false })
  const otherPage = await elsewhere.newPage()
  await signIn(otherPage, 'learner1@example.com', DEMO_PASSWORD)
  await signIn(page, 'learner1', DEMO_PASSWORD)

  await page.goto('/editProfile')
  await page.getByRole('button', { name: 'Log out everywhere' }).click()
  await expect(page).toHaveURL(/\/sign-in$/)

  await page.goto('/courses')
  await expect(page).toHaveURL(/\/sign-in\?redirectTo=%2Fcourses$/)
  await otherPage.goto('/courses')
  await expect(otherPage).toHaveURL(/\/sign-in\?redirectTo=%2Fcourses$/)
  await elsewhere.close()
})

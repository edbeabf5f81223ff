import type { Browser } from '@playwright/test'
import type { ParsedMail } from 'mailparser'
import { waitForMail } from '../outbox.ts'
import { expect, test } from './fixtures.ts'
import { chooseNewPassword, createLearner, expectAccessible, fillPersonForm, signIn } from './helpers.ts'

// The links in the password mails, followed as a person follows them: the address is taken out of the
// mail as it was sent (its text part, the same as the HTML button's), opened in a browser of its own,
// used once to choose a password that is then good for signing in, and refused the second time.

const TOKEN_EXPIRED = 'Token Expired, Please enter your email id to verify again.'

/** The one set-password link of a mail: the same address in the text and behind the HTML button. */
function linkIn(mail: ParsedMail, button: string) {
  const links = (mail.text ?? '').match(/https?:\/\/\S+/g) ?? []
  expect(links, 'the links in the mail text').toHaveLength(1)
  const [link] = links as [string]
  const href = new RegExp(`<a href="([^"]+)"[^>]*>${button}</a>`).exec(String(mail.html))?.[1]
  expect(href?.replaceAll('&amp;', '&'), `the href of ${button}`).toBe(link)
  // built from PUBLIC_URL: the address the app is reached at, not whatever Host a request came with
  expect(link.startsWith(`${process.env.E2E_BASE_URL}/`)).toBe(true)
  return link
}

/** A learner of the test's own, so the demo accounts keep their passwords for the other suites. */
async function newLearner(name: string) {
  const learner = { userName: `mail.${name}`, email: `mail.${name}@example.com`, password: 'Before-mail1!' }
  await createLearner({ ...learner, firstName: 'Mailed', lastName: name })
  return learner
}

/** Forgot Password on its page, then the reset mail's link. */
async function askForReset(browser: Browser, email: string, javaScriptEnabled: boolean) {
  const context = await browser.newContext({ javaScriptEnabled })
  const page = await context.newPage()
  await page.goto('/sign-in')
  await page.getByRole('link', { name: 'Forgot Password?' }).click()
  await expect(page).toHaveURL(/\/forgot-Password$/)
  await page.getByLabel('Email').fill(email)
  await page.getByRole('button', { name: 'Send reset link' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'If an account matches' })).toBeVisible()
  const mail = await waitForMail(process.env.E2E_DATA_DIR as string, { to: email, subject: /^Reset your/ })
  return { context, page, link: linkIn(mail, 'Reset my password') }
}

for (const javaScriptEnabled of [true, false]) {
  test(`a reset mail's link sets a new password once (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    const learner = await newLearner(javaScriptEnabled ? 'scripted' : 'noscript')
    const { context, page, link } = await askForReset(browser, learner.email, javaScriptEnabled)
    expect(link).toMatch(/\/reset-Password\/[A-Za-z0-9_-]{43}$/)

    await page.goto(link)
    await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible()
    if (javaScriptEnabled) await expectAccessible(page, 'the reset page')
    const chosen = 'After-mail2?'
    await chooseNewPassword(page, chosen)
    await expect(page.getByText('Your password is set. Sign in with it now.')).toBeVisible()

    // the new password opens the account; the old one no longer does
    await signIn(page, learner.userName, chosen)
    await expect(page).toHaveURL(/\/courses$/)
    await context.clearCookies()
    await page.goto('/sign-in')
    await page.getByLabel('Username / Email').fill(learner.userName)
    await page.getByLabel('Password', { exact: true }).fill(learner.password)
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page).toHaveURL(/\/sign-in/)

    // the same link again is refused, with the product's message
    await page.goto(link)
    await expect(page).toHaveURL(/\/forgot-Password$/)
    await expect(page.getByText(TOKEN_EXPIRED)).toBeVisible()
    await expect(page.getByLabel('New Password')).toHaveCount(0)
    await context.close()
  })
}

test('the reset link also works in its other spelling, /reset-password?token=…', async ({ browser }) => {
  const learner = await newLearner('query')
  const { context, page, link } = await askForReset(browser, learner.email, true)
  const token = /\/reset-Password\/([A-Za-z0-9_-]+)$/.exec(link)?.[1] ?? ''
  const byQuery = `/reset-password?${new URLSearchParams({ token })}`

  await page.goto(byQuery)
  await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible()
  await chooseNewPassword(page, 'By-query3!')
  await signIn(page, learner.email, 'By-query3!')
  await expect(page).toHaveURL(/\/courses$/)

  // used up in either spelling
  for (const again of [byQuery, link]) {
    await page.goto(again)
    await expect(page).toHaveURL(/\/forgot-Password$/)
    await expect(page.getByText(TOKEN_EXPIRED)).toBeVisible()
  }
  await context.close()
})

test("a coach an admin creates chooses a password from the invitation mail's link", async ({
  page,
  signInAs,
  browser,
}) => {
  const coach = { userName: 'mail.coach', email: 'mail.coach@example.com', firstName: 'Imogen', lastName: 'Invite' }
  await signInAs('admin')
  await page.goto('/admin/coach')
  await page.getByRole('link', { name: 'Create New Coach' }).click()
  const dialog = page.getByRole('dialog', { name: 'Create New Coach' })
  await fillPersonForm(dialog, coach)
  await dialog.getByRole('button', { name: 'Create' }).click()
  await expect(page.getByText(`Coach ${coach.userName} created; the invitation mail is on its way.`)).toBeVisible()

  const mail = await waitForMail(process.env.E2E_DATA_DIR as string, { to: coach.email, subject: /^Welcome to / })
  expect(mail.text).toContain(`Hello ${coach.firstName},`)
  const link = linkIn(mail, 'Set my password')

  // the coach, in a browser of their own
  const context = await browser.newContext()
  const tab = await context.newPage()
  await tab.goto(link)
  await expect(tab.getByRole('heading', { name: 'Choose a new password' })).toBeVisible()
  await chooseNewPassword(tab, 'Coach-own4!')
  await expect(tab.getByText('Your password is set. Sign in with it now.')).toBeVisible()
  await signIn(tab, coach.email, 'Coach-own4!')
  await expect(tab).toHaveURL(/\/admin\/dashboard$/)
  await expect(tab.getByRole('navigation', { name: 'Admin' })).toBeVisible()

  await tab.goto(link)
  await expect(tab).toHaveURL(/\/forgot-Password$/)
  await expect(tab.getByText(TOKEN_EXPIRED)).toBeVisible()
  await context.close()
})

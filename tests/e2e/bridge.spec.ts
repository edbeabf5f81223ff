import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { type Page } from '@playwright/test'
import { SignJWT } from 'jose'
import { expect, test } from './fixtures.ts'
import { expectAccessible } from './helpers.ts'

// The external bridge (docs/product.md#bridge-links) in Chromium: a partner system signs a 5-minute, single-use token
// with the app's BRIDGE_SECRET, and its link signs the seeded learner into the course once.

const LEARNER_EMAIL = 'learner1@example.com'

/** The running app's bridge secret: generated into its DATA_DIR, since the e2e run sets none. */
function bridgeSecret(): string {
  const file = path.join(process.env.E2E_DATA_DIR ?? '', 'secrets.json')
  return (JSON.parse(readFileSync(file, 'utf8')) as { bridgeSecret: string }).bridgeSecret
}

/** A token as the partner system makes it: HS256, sub = the learner's email, 5 minutes, a fresh jti. */
function partnerToken(sub: string) {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(bridgeSecret()))
}

/** A course's id from the public catalogue. */
async function courseIdOf(page: Page, title: string) {
  await page.goto('/explore-courses')
  const href = await page.getByRole('link', { name: `View Course: ${title}` }).getAttribute('href')
  const id = href?.split('/').pop()
  if (!id) throw new Error(`no course titled ${title} in the catalogue`)
  return id
}

test('a bridge link signs the learner into the course, and the same link used again is refused', async ({
  page,
  browser,
}) => {
  const courseId = await courseIdOf(page, 'SQL Fundamentals')
  const link = `/ibridge/${await partnerToken(LEARNER_EMAIL)}/${courseId}`

  await page.goto(link)
  await expect(page).toHaveURL(new RegExp(`/course/${courseId}$`))
  await expect(page.getByRole('heading', { name: 'SQL Fundamentals', level: 1 })).toBeVisible()
  // signed in as the learner: My Courses opens without a sign-in
  await page.goto('/courses')
  await expect(page.getByRole('heading', { name: 'My Courses' })).toBeVisible()

  // a second browser, nobody signed in, follows the same link
  const context = await browser.newContext()
  try {
    const other = await context.newPage()
    const response = await other.goto(link)
    expect(response?.status()).toBe(401)
    await expect(other.getByRole('heading', { name: 'This sign-in link cannot be used' })).toBeVisible()
    await expect(other.getByText('This sign-in link has already been used.')).toBeVisible()
    await expect(
      other.getByText('Ask for a new link from the system you came from, or sign in with your username and password.'),
    ).toBeVisible()
    await expectAccessible(other, 'the refused bridge link')
    // and it signed nobody in
    await other.goto('/courses')
    await expect(other).toHaveURL(/\/sign-in\?redirectTo=%2Fcourses$/)
    await other.goto(link)
    await other.getByRole('main').getByRole('link', { name: 'Sign in', exact: true }).click()
    await expect(other).toHaveURL(/\/sign-in$/)
  } finally {
    await context.close()
  }
})

test('a bridge link to a course that is not assigned signs in and opens My Courses with a toast', async ({ page }) => {
  const courseId = await courseIdOf(page, 'Building ETL Pipelines')
  await page.goto(`/ibridge/${await partnerToken(LEARNER_EMAIL)}/${courseId}`)
  await expect(page).toHaveURL(/\/courses$/)
  await expect(page.getByText('This course is not assigned to you.')).toBeVisible()
  await expect(page.getByRole('heading', { name: 'My Courses' })).toBeVisible()
})

test('a forged link shows the error page and signs nobody in', async ({ page }) => {
  const forged = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(LEARNER_EMAIL)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode('a-secret-that-is-not-the-bridge-secret'))
  const response = await page.goto(`/ibridge/program/${forged}`)
  expect(response?.status()).toBe(401)
  await expect(page.getByText('This sign-in link is not valid.')).toBeVisible()
  await page.goto('/courses')
  await expect(page).toHaveURL(/\/sign-in\?redirectTo=/)
})

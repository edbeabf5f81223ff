import { type Page } from '@playwright/test'
import { pngBytes } from '../fixtures/files.ts'
import { expect, test } from './fixtures.ts'
import {
  createLearner,
  createShortCourse,
  expectAccessible,
  expectFitsScreen,
  signIn,
  whenHydrated,
} from './helpers.ts'

// Certificates switched on for a course from its admin page: a learner who had already completed it gets
// none by that alone, but one when the admin also asks for those who completed (the background job gives it
// within seconds); the course page counts it, and the learner's course card leads to it. The same settings
// without JavaScript: the switch as two radio buttons, the issuer's name required while on.

const COURSE = 'E2E Certified Queries'
const VIDEO = 'Counting Rows'
const LEARNER = {
  userName: 'certified.learner',
  email: 'certified.learner@example.com',
  password: 'Certified-1st!',
  firstName: 'Cora',
  lastName: 'Certa',
}
const ISSUER = 'Northwind Data Academy'

const panel = (page: Page) => page.getByTestId('certificates-panel')

let courseId: string

test.beforeAll(async ({ request }) => {
  courseId = await createShortCourse(request, {
    title: COURSE,
    description: 'COUNT, GROUP BY and HAVING.',
    video: { title: VIDEO, description: 'How many, and of what.', path: '/embed/counting-rows?d=4&speed=2' },
  })
  await createLearner(LEARNER, { courses: [COURSE] })
})

test('switched on after a learner completed, with the issuer and a signature: the learner gets a certificate only when the admin asks, and the course card leads to it', async ({
  page,
  browser,
  signInAs,
}) => {
  test.setTimeout(120_000)

  // the learner watches the course's one video to the end
  await signIn(page, LEARNER.userName, LEARNER.password)
  const card = page.getByTestId('course-card').filter({ hasText: COURSE })
  await card.getByRole('link', { name: 'Start Course' }).click()
  await page.getByRole('link', { name: new RegExp(`^\\d+\\. ${VIDEO}`) }).click()
  const player = page.frameLocator(`iframe[title="${VIDEO}"]`)
  await player.getByRole('button', { name: 'Play' }).click()
  await expect(player.getByTestId('state')).toHaveText(/ended/, { timeout: 20_000 })
  await expect(
    page
      .getByRole('tabpanel')
      .getByRole('link', { name: new RegExp(`^\\d+\\. ${VIDEO}`) })
      .getByRole('img', {
        name: 'Completed',
      }),
  ).toBeVisible({ timeout: 15_000 })
  await page.getByRole('link', { name: 'My Courses' }).first().click()
  await expect(card.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100')
  await expect(card.getByRole('link', { name: /View certificate/ })).toHaveCount(0)

  // the admin, in a browser of their own, switches certificates on
  const adminContext = await browser.newContext()
  const admin = await adminContext.newPage()
  try {
    await signInAs('admin', { page: admin })
    await admin.goto(`/admin/course/${courseId}`)
    await expect(panel(admin)).toContainText('Off: learners who complete this course get no certificate.')
    await expect(panel(admin)).toContainText('Issued: 0 valid certificates, 0 revoked')
    await expect(panel(admin).getByRole('link', { name: 'View certificates' })).toHaveAttribute(
      'href',
      `/admin/certificates?course=${courseId}`,
    )
    await whenHydrated(admin)
    await panel(admin).getByRole('link', { name: 'Certificate settings' }).click()
    const dialog = admin.getByRole('dialog', { name: 'Certificate settings' })
    await expect(dialog).toBeVisible()
    await expectAccessible(admin, 'the Certificate settings dialog')
    // the portal's name until another issuer is named
    await expect(dialog.getByLabel('Issuer’s name')).toHaveValue('DataPath Academy')

    // on, with the issuer's name left out: refused beside the field, in the browser
    await dialog.getByRole('switch', { name: 'Certificates' }).click()
    await dialog.getByLabel('Issuer’s name').fill('')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await expect(dialog.getByText('Enter the issuer’s name: every certificate states it.')).toBeVisible()
    await expect(dialog.getByLabel('Issuer’s name')).toHaveAttribute('aria-invalid', 'true')

    // switched on alone: nothing for the learner who completed before
    await dialog.getByLabel('Issuer’s name').fill(ISSUER)
    await dialog
      .getByLabel('Signature image (optional)')
      .setInputFiles({ name: 'signature.png', mimeType: 'image/png', buffer: pngBytes({ width: 120, height: 40 }) })
    await expect(dialog.getByText('Uploaded: signature.png')).toBeVisible()
    await dialog.getByRole('button', { name: 'Save' }).click()
    await expect(admin.getByText('Certificate settings saved: certificates are on.')).toBeVisible()
    await expect(panel(admin)).toContainText(
      `On: learners who complete this course get a certificate issued by ${ISSUER}, with a signature.`,
    )
    await admin.waitForTimeout(3000)
    await admin.reload()
    await expect(panel(admin)).toContainText('Issued: 0 valid certificates, 0 revoked')

    // asked for: the job gives it within seconds
    await panel(admin).getByRole('link', { name: 'Certificate settings' }).click()
    await expect(dialog.getByText('Current file: signature.png')).toBeVisible()
    await dialog.getByRole('checkbox', { name: /Also issue certificates to learners who already completed/ }).check()
    await dialog.getByRole('button', { name: 'Save' }).click()
    await expect(admin.getByText(/Learners who already completed are being given theirs/)).toBeVisible()
    await expect(async () => {
      await admin.reload()
      await expect(panel(admin)).toContainText('Issued: 1 valid certificate, 0 revoked', { timeout: 1000 })
    }).toPass({ timeout: 30_000 })
  } finally {
    await adminContext.close()
  }

  // the learner's card now leads to the certificate on My Certificates
  await page.reload()
  const link = card.getByRole('link', { name: `View certificate for ${COURSE}` })
  await expect(link).toBeVisible()
  await expectAccessible(page, 'My Courses with a certificate')
  await link.click()
  await expect(page).toHaveURL(/\/certificates#certificate-[0-9A-Z-]+$/)
  const anchor = decodeURIComponent(new URL(page.url()).hash.slice(1))
  const certificate = page.locator(`[id="${anchor}"]`)
  await expect(certificate).toContainText(COURSE)
  await expect(certificate).toContainText(ISSUER)

  // the card with its two buttons still fits a 360 px phone
  await page.setViewportSize({ width: 360, height: 740 })
  await expectFitsScreen(page, '/courses')
  await expect(link).toBeVisible()
})

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false })

  test('the settings switch certificates off and on again, the issuer required while on', async ({
    page,
    signInAs,
  }) => {
    await signInAs('admin')
    await page.goto(`/admin/course/${courseId}`)
    await panel(page).getByRole('link', { name: 'Certificate settings' }).click()
    const form = page.getByRole('region', { name: 'Certificate settings' })
    await form.getByRole('radio', { name: 'Off' }).check()
    await form.getByRole('button', { name: 'Save' }).click()
    await expect(panel(page)).toContainText('Off: learners who complete this course get no certificate.')
    // what was given stays
    await expect(panel(page)).toContainText('Issued: 1 valid certificate, 0 revoked')

    await panel(page).getByRole('link', { name: 'Certificate settings' }).click()
    await expect(form.getByLabel('Issuer’s name')).toHaveValue(ISSUER)
    await form.getByRole('radio', { name: 'On' }).check()
    await form.getByLabel('Issuer’s name').fill('   ')
    await form.getByRole('button', { name: 'Save' }).click()
    // the form comes back with its error beside the field, and the choice kept
    await expect(form.getByText('Enter the issuer’s name: every certificate states it.')).toBeVisible()
    await expect(form.getByRole('radio', { name: 'On' })).toBeChecked()
    await expect(form.getByLabel('Issuer’s name')).toHaveAttribute('aria-invalid', 'true')

    await form.getByLabel('Issuer’s name').fill('Contoso Learning')
    await form.getByRole('checkbox', { name: /Remove the current signature/ }).check()
    await form.getByRole('button', { name: 'Save' }).click()
    await expect(page).toHaveURL(new RegExp(`/admin/course/${courseId}\\?tab=videos$`))
    await expect(panel(page)).toContainText(
      'On: learners who complete this course get a certificate issued by Contoso Learning.',
    )
  })
})

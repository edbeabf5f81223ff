import { expect, test } from './fixtures.ts'
import { AXE_VIEWPORTS, createLearner, createShortCourse, expectAccessible, signIn, whenHydrated } from './helpers.ts'

// A certificate from end to end: a learner watches a short course that gives certificates to its end, and the job
// runner issues one within seconds; My Certificates shows it with its PDF, credential, LinkedIn and public link;
// the public link, opened signed out, says valid; an admin revokes it; the public link then says revoked, and so
// does My Certificates. My Certificates and the verify page pass axe on a desktop and a 360 px phone.

const COURSE = 'E2E Window Functions in Ten Seconds'
const VIDEO = 'OVER and PARTITION BY'
const ISSUER = 'Fabrikam Data School'
const LEARNER = {
  userName: 'certificate.holder',
  email: 'certificate.holder@example.com',
  password: 'Holder-1st!',
  firstName: 'Zoey',
  lastName: 'Lindgren',
}
const NAME = `${LEARNER.firstName} ${LEARNER.lastName}`
const REASON = 'Watched on a colleague’s account.'

test('a learner completes a short course and gets a certificate; its public link says valid, and revoked once an admin revokes it', async ({
  page,
  browser,
  request,
  signInAs,
}) => {
  test.setTimeout(120_000)
  await createShortCourse(request, {
    title: COURSE,
    description: 'ROW_NUMBER, RANK and running totals.',
    video: { title: VIDEO, description: 'Windows over rows.', path: '/embed/window-functions?d=4&speed=2' },
    certificateIssuer: ISSUER,
  })
  await createLearner(LEARNER, { courses: [COURSE] })

  // My Certificates, before: an empty state that says how one is earned
  await signIn(page, LEARNER.userName, LEARNER.password)
  await page.getByRole('button', { name: 'User menu' }).click()
  await page.getByRole('menuitem', { name: 'My Certificates' }).click()
  await expect(page.getByRole('heading', { name: 'My Certificates', level: 1 })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'No certificates yet' })).toBeVisible()

  // the course's one video watched to its end, for real, through the stand-in player
  await page.goto('/courses')
  await page.getByTestId('course-card').filter({ hasText: COURSE }).getByRole('link', { name: 'Start Course' }).click()
  await page.getByRole('link', { name: new RegExp(`^\\d+\\. ${VIDEO}`) }).click()
  const player = page.frameLocator(`iframe[title="${VIDEO}"]`)
  await player.getByRole('button', { name: 'Play' }).click()
  await expect(player.getByTestId('state')).toHaveText(/ended/, { timeout: 20_000 })

  // the job runner issues it within seconds of the completion, outside the learner's request
  await expect(async () => {
    await page.goto('/certificates')
    await expect(page.getByRole('listitem').filter({ hasText: COURSE })).toHaveCount(1, { timeout: 1000 })
  }).toPass({ timeout: 30_000 })
  const certificate = page.getByRole('listitem').filter({ hasText: COURSE })
  await expect(certificate).toContainText(NAME)
  await expect(certificate).toContainText(ISSUER)
  await expect(certificate).toContainText('Valid certificate')
  const anchor = await certificate.getAttribute('id')
  const code = anchor!.replace(/^certificate-/, '')
  expect(code).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{1,4}){6}$/)

  // what it offers: the PDF, the credential, LinkedIn with the verify link, and the public link itself
  const pdf = await page.request.get(
    (await certificate.getByRole('link', { name: 'Download PDF' }).getAttribute('href'))!,
  )
  expect(pdf.headers()['content-type']).toBe('application/pdf')
  expect((await pdf.body()).subarray(0, 5).toString()).toBe('%PDF-')
  const credential = await page.request.get(
    (await certificate.getByRole('link', { name: 'Download credential' }).getAttribute('href'))!,
  )
  expect(credential.status()).toBe(200)
  expect((await credential.text()).split('.')).toHaveLength(3)
  const linkedIn = new URL((await certificate.getByRole('link', { name: /Add to LinkedIn/ }).getAttribute('href'))!)
  expect(linkedIn.hostname).toBe('www.linkedin.com')
  expect(linkedIn.searchParams.get('name')).toBe(COURSE)
  const verifyUrl = `${process.env.E2E_BASE_URL}/verify/${code}`
  expect(linkedIn.searchParams.get('certUrl')).toBe(verifyUrl)
  await expect(certificate.getByRole('textbox')).toHaveValue(verifyUrl)
  await whenHydrated(page)
  for (const [where, viewport] of AXE_VIEWPORTS) {
    await page.setViewportSize(viewport)
    await expectAccessible(page, `My Certificates on a ${where}`)
  }

  // an employer opens the public link, signed out: valid, with what it states and nothing else
  const employer = await browser.newContext()
  try {
    const visitor = await employer.newPage()
    const opened = await visitor.goto(verifyUrl)
    expect(opened?.headers()['x-robots-tag']).toMatch(/noindex/)
    const statement = visitor.getByRole('region', { name: 'Certificate' })
    await expect(statement).toContainText('Valid certificate')
    await expect(visitor.getByRole('heading', { name: NAME, level: 1 })).toBeVisible()
    await expect(statement).toContainText(COURSE)
    await expect(statement).toContainText(ISSUER)
    await expect(visitor.getByText(LEARNER.email)).toHaveCount(0)
    for (const [where, viewport] of AXE_VIEWPORTS) {
      await visitor.setViewportSize(viewport)
      await expectAccessible(visitor, `the verify page on a ${where}`)
    }
  } finally {
    await employer.close()
  }

  // an admin revokes it from the Certificates page, with a reason
  const adminContext = await browser.newContext()
  try {
    const admin = await adminContext.newPage()
    await signInAs('admin', { page: admin })
    await admin.goto('/admin/certificates')
    await whenHydrated(admin)
    await admin.getByRole('searchbox', { name: 'Search certificates' }).fill(code)
    await admin.getByRole('button', { name: 'Search', exact: true }).click()
    const row = admin.getByRole('table', { name: 'Certificates' }).locator('tbody tr')
    await expect(row).toHaveCount(1)
    await expect(row).toContainText(NAME)
    await row.getByRole('link', { name: `Revoke ${code}` }).click()
    const dialog = admin.getByRole('alertdialog', { name: 'Revoke certificate' })
    await dialog.getByRole('textbox', { name: 'Reason' }).fill(REASON)
    await dialog.getByRole('button', { name: 'Revoke certificate' }).click()
    await expect(admin.getByText(`Certificate ${code} of ${NAME} revoked.`)).toBeVisible()
  } finally {
    await adminContext.close()
  }

  // the public link, opened again by someone else, says revoked, with the date and never the reason
  const later = await browser.newContext()
  try {
    const visitor = await later.newPage()
    await visitor.goto(verifyUrl)
    const statement = visitor.getByRole('region', { name: 'Certificate' })
    await expect(statement).toContainText(/Revoked on \d{1,2} \w+ \d{4}/)
    await expect(visitor.getByText(REASON)).toHaveCount(0)
    await expectAccessible(visitor, 'the verify page of a revoked certificate')
  } finally {
    await later.close()
  }

  // and the learner's page says so, with no PDF or link left to hand out
  await page.reload()
  await expect(certificate).toContainText(/Revoked on \d{1,2} \w+ \d{4}/)
  await expect(certificate.getByRole('link', { name: 'Download PDF' })).toHaveCount(0)
  await expect(certificate).toContainText('This certificate was revoked')
})

test('the site-wide verify form takes a code typed by hand, forgiving case and spacing, and says when none matches', async ({
  page,
}) => {
  // found from the landing page, where an employer holding a printed code arrives
  await page.goto('/')
  await page.getByRole('link', { name: 'check a certificate' }).click()
  await expect(page).toHaveURL(/\/verify$/)
  await expect(page.getByRole('heading', { name: 'Check a certificate', level: 1 })).toBeVisible()
  const field = page.getByRole('textbox', { name: 'Certificate code' })
  await field.fill('  12 ab')
  await page.getByRole('button', { name: 'Check' }).click()
  await expect(field).toHaveAccessibleDescription(/26 letters and digits/)
  // O for 0, spaces instead of hyphens, lower case: read as the code it means, which names no certificate
  await field.fill('oooo oooo oooo oooo oooo oooo oo')
  await page.getByRole('button', { name: 'Check' }).click()
  await expect(page).toHaveURL(/\/verify\/0000-0000-0000-0000-0000-0000-00$/)
  await expect(page.getByRole('heading', { name: 'Page not found', level: 1 })).toBeVisible()
})

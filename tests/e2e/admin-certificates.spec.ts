import { readFile } from 'node:fs/promises'
import { type Page } from '@playwright/test'
import { parse } from 'csv-parse/sync'
import { expect, test } from './fixtures.ts'
import { AXE_VIEWPORTS, expectAccessible, portal, whenHydrated } from './helpers.ts'

// The admin Certificates page: an admin finds a certificate by its code, revokes it (the reason is asked for
// first), sees it revoked there and on the public verify page, exports it, and re-issues it; a coach reads the
// page without the buttons; without JavaScript the dialogs are panels in the page that work alike. The
// certificate is learner 1's for the demo's data modelling course, which gives certificates: the setup gives it
// through the CLI if the job runner has not yet, and each re-issue leaves learner 1 holding a valid one again,
// as the other files expect.

const COURSE = 'Data Modelling for Relational Databases'
const LEARNER = 'Lena Fischer'
const REASON = 'Completed on a shared account.'

type Listed = { code: string; learnerName: string; state: 'valid' | 'revoked' }

/** The course's certificates as the CLI lists them, newest first. */
async function listed(): Promise<Listed[]> {
  const { stdout } = await portal('certificates', 'list', '--course', COURSE, '--json')
  return JSON.parse(stdout) as Listed[]
}

/** Learner 1's valid certificate of the course: given now if it is not yet, re-issued if a test left it revoked. */
async function validCertificate(): Promise<string> {
  await portal('certificates', 'issue', '--course', COURSE)
  const theirs = (await listed()).filter((c) => c.learnerName === LEARNER)
  const valid = theirs.find((c) => c.state === 'valid')
  if (valid) return valid.code
  if (!theirs[0]) throw new Error(`${LEARNER} holds no certificate of ${COURSE}`)
  await portal('certificates', 'reissue', theirs[0].code)
  return validCertificate()
}

let code: string

test.beforeAll(async () => {
  code = await validCertificate()
})

test.afterAll(async () => {
  await validCertificate()
})

/** The list's one row of this code, found by the search box. */
async function search(page: Page, typed: string) {
  await page.getByRole('searchbox', { name: 'Search certificates' }).fill(typed)
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  await expect(page).toHaveURL(/[?&]q=/)
  const table = page.getByRole('table', { name: 'Certificates' })
  await expect(table.locator('tbody tr')).toHaveCount(1)
  return table.locator('tbody tr').first()
}

test('an admin finds a certificate by its code, revokes it with a reason, exports and re-issues it', async ({
  page,
  signInAs,
}) => {
  await signInAs('admin')
  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Certificates' }).click()
  await expect(page).toHaveURL(/\/admin\/certificates$/)
  await expect(page.getByRole('heading', { name: 'Certificates', level: 1 })).toBeVisible()
  await whenHydrated(page)

  // pasted as someone might type it from paper: lower case, no hyphens, spaced in pairs
  const typed = code
    .replaceAll('-', '')
    .toLowerCase()
    .replace(/(.{2})/g, '$1 ')
  const row = await search(page, typed)
  await expect(row.getByRole('link', { name: `${code}, its verify page` })).toBeVisible()
  await expect(row.getByRole('link', { name: LEARNER })).toHaveAttribute('href', /^\/admin\/user\//)
  await expect(row.getByRole('link', { name: COURSE })).toBeVisible()
  await expect(row).toContainText('Valid')

  // the reason is asked for before anything is revoked
  await row.getByRole('link', { name: `Revoke ${code}` }).click()
  const dialog = page.getByRole('alertdialog', { name: 'Revoke certificate' })
  await expect(dialog).toBeVisible()
  await expect(dialog).toContainText(code)
  await dialog.getByRole('button', { name: 'Revoke certificate' }).click()
  const reason = dialog.getByRole('textbox', { name: 'Reason' })
  await expect(reason).toHaveAttribute('aria-invalid', 'true')
  await expect(reason).toHaveAccessibleDescription('Enter a reason.')
  await expect(dialog).toBeVisible()
  expect((await listed()).find((c) => c.code === code)?.state).toBe('valid')

  await reason.fill(REASON)
  await dialog.getByRole('button', { name: 'Revoke certificate' }).click()
  await expect(page.getByText(`Certificate ${code} of ${LEARNER} revoked.`)).toBeVisible()
  await expect(dialog).toBeHidden()
  // back on the list as it was: the search kept, the row now revoked, with the reason for the admin side
  await expect(page).toHaveURL(/[?&]q=/)
  const revoked = page.getByRole('table', { name: 'Certificates' }).locator('tbody tr').first()
  await expect(revoked).toContainText(/Revoked on \d{1,2} \w+ \d{4}/)
  await expect(revoked).toContainText(REASON)
  await expect(revoked.getByRole('link', { name: `Revoke ${code}` })).toHaveCount(0)

  // the export of this search downloads the row as CSV
  const downloading = page.waitForEvent('download')
  await page.getByRole('link', { name: /^Export CSV/ }).click()
  const download = await downloading
  expect(download.suggestedFilename()).toMatch(/^certificates-\d{4}-\d\d-\d\d\.csv$/)
  const records = parse(await readFile((await download.path())!, 'utf8'), { columns: true }) as Record<string, string>[]
  expect(records.map((r) => [r.code, r.learner, r.title, r.state, r['revoked reason']])).toEqual([
    [code, LEARNER, COURSE, 'revoked', REASON],
  ])

  // the public verify page, signed in or not, says it is revoked (and never why)
  await revoked.getByRole('link', { name: `${code}, its verify page` }).click()
  await expect(page).toHaveURL(new RegExp(`/verify/${code}$`))
  await expect(page.getByRole('region', { name: 'Certificate' })).toContainText(/Revoked on \d{1,2} \w+ \d{4}/)
  await expect(page.getByRole('heading', { name: LEARNER, level: 1 })).toBeVisible()
  await expect(page.getByText(REASON)).toHaveCount(0)

  // re-issued: a new certificate with a new code, the old one staying revoked
  await page.goBack()
  await page
    .getByRole('table', { name: 'Certificates' })
    .getByRole('link', { name: `Re-issue ${code}` })
    .click()
  const reissue = page.getByRole('alertdialog', { name: 'Re-issue certificate' })
  await expect(reissue).toContainText('stays revoked')
  await reissue.getByRole('button', { name: 'Re-issue certificate' }).click()
  await expect(page.getByText(/^Re-issued as [0-9A-Z-]+, stating Lena Fischer/)).toBeVisible()
  const now = await listed()
  expect(now.find((c) => c.code === code)?.state).toBe('revoked')
  expect(now.filter((c) => c.learnerName === LEARNER && c.state === 'valid')).toHaveLength(1)
  code = now.find((c) => c.learnerName === LEARNER && c.state === 'valid')!.code
})

test('a coach reads the certificates without Revoke or Re-issue', async ({ page, signInAs }) => {
  await signInAs('coach')
  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Certificates' }).click()
  await expect(page.getByRole('heading', { name: 'Certificates', level: 1 })).toBeVisible()
  const row = await search(page, code)
  await expect(row).toContainText(LEARNER)
  await expect(page.getByText(/Only admins can revoke or re-issue a certificate\./)).toBeVisible()
  await expect(page.getByRole('link', { name: /^Revoke / })).toHaveCount(0)
  await expect(page.getByRole('link', { name: /^Re-issue / })).toHaveCount(0)
  await expect(page.locator('form[method="post"]')).toHaveCount(0)
  // nor does the dialog's address open it for them
  await page.goto(`/admin/certificates?revoke=${code}`)
  await expect(page.getByRole('heading', { name: 'Certificates', level: 1 })).toBeVisible()
  await expect(page.getByRole('button', { name: 'Revoke certificate' })).toHaveCount(0)
})

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false })

  test('the dialogs are panels in the page: the reason is asked for, then the certificate revoked and re-issued', async ({
    page,
    signInAs,
  }) => {
    await signInAs('admin')
    await page.goto('/admin/certificates')
    // the filter is a plain GET form
    await page.getByLabel('Course').selectOption({ label: COURSE })
    await page.getByLabel('State').selectOption('valid')
    await page.getByRole('button', { name: 'Filter' }).click()
    await expect(page).toHaveURL(/[?&]state=valid/)
    const row = await search(page, code)
    await row.getByRole('link', { name: `Revoke ${code}` }).click()
    const panel = page.getByRole('region', { name: 'Revoke certificate' })
    await panel.getByRole('button', { name: 'Revoke certificate' }).click()
    await expect(panel.getByRole('textbox', { name: 'Reason' })).toHaveAccessibleDescription('Enter a reason.')
    expect((await listed()).find((c) => c.code === code)?.state).toBe('valid')

    await panel.getByRole('textbox', { name: 'Reason' }).fill(REASON)
    await panel.getByRole('button', { name: 'Revoke certificate' }).click()
    await expect(page.getByText(`Certificate ${code} of ${LEARNER} revoked.`)).toBeVisible()
    // the list as it was: only valid ones of this code, so none now
    await expect(page).toHaveURL(/[?&]state=valid/)
    await expect(page.getByText('No certificate matches')).toBeVisible()
    expect((await listed()).find((c) => c.code === code)?.state).toBe('revoked')

    await page.goto(`/admin/certificates?q=${code}`)
    await page.getByRole('link', { name: `Re-issue ${code}` }).click()
    await page
      .getByRole('region', { name: 'Re-issue certificate' })
      .getByRole('button', { name: 'Re-issue certificate' })
      .click()
    await expect(page.getByText(/^Re-issued as [0-9A-Z-]+, stating Lena Fischer/)).toBeVisible()
    code = (await listed()).find((c) => c.learnerName === LEARNER && c.state === 'valid')!.code
  })
})

for (const [width, viewport] of AXE_VIEWPORTS) {
  test.describe(`the Certificates page on a ${width}`, () => {
    test.use({ viewport })
    // axe takes a few seconds a page on a busy machine
    test.describe.configure({ timeout: 90_000 })

    test('passes axe: the list, the empty list, and each dialog open', async ({ page, signInAs }) => {
      await signInAs('admin')
      await page.goto('/admin/certificates')
      await expect(page.getByRole('table', { name: 'Certificates' }).locator('tbody tr').first()).toContainText(
        /Valid|Revoked/,
      )
      await expectAccessible(page, `the Certificates page on a ${width}`)
      await page.goto('/admin/certificates?q=nobody-has-this-name')
      await expect(page.getByText('No certificate matches')).toBeVisible()
      await expectAccessible(page, `the Certificates page, nothing found, on a ${width}`)
      for (const [dialog, title] of [
        ['revoke', 'Revoke certificate'],
        ['reissue', 'Re-issue certificate'],
      ] as const) {
        await page.goto(`/admin/certificates?${dialog}=${code}`)
        await whenHydrated(page)
        await expect(page.getByRole('alertdialog', { name: title })).toBeVisible()
        await expectAccessible(page, `the ${title} dialog on a ${width}`)
      }
    })
  })
}

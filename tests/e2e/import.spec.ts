import { readFile } from 'node:fs/promises'
import { parse } from 'csv-parse/sync'
import { expect, test } from './fixtures.ts'
import { expectAccessible, expectDryRun } from './helpers.ts'

// An admin onboards people from a CSV file on the Import users page: the dry run shows the rows to
// create and the one bad row, the confirmed import runs with its progress on a page of its own and
// creates the others with their course, and the error CSV lists the bad row.

// Rows with a password make the import take a few seconds (argon2id), so its page is seen running.
const PASSWORDS = 6
const CSV = [
  'First Name;Last Name;Email;Username;Password;Courses',
  'Ottoline;Importer;ottoline.imp@example.com;ottoline.imp;;SQL Fundamentals',
  'Percival;Importer;percival.imp@example.com;percival.imp;;SQL Fundamentals',
  'Qu;Importer;quentin.imp@example.com;quentin.imp;;SQL Fundamentals',
  ...Array.from(
    { length: PASSWORDS },
    (_, i) => `Ulrika;Importer;ulrika${i}.pw@example.com;ulrika${i}.pw;Ulri-pass${i}!;`,
  ),
].join('\r\n')

test('an admin imports learners from a CSV file with one bad row', async ({ page, signInAs }) => {
  test.setTimeout(90_000)
  await signInAs('admin')

  await page.goto('/admin/users')
  await page.getByRole('main').getByRole('link', { name: 'Import users' }).click()
  await expect(page.getByRole('heading', { name: 'Import users' })).toBeVisible()
  await expectAccessible(page, 'Import users, upload')

  // it fits a phone
  await page.setViewportSize({ width: 360, height: 740 })
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)

  await page.getByLabel('CSV file').setInputFiles({
    name: 'onboarding.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(`\uFEFF${CSV}\r\n`),
  })
  await page.getByLabel('Skip it').check()
  await page.getByRole('button', { name: 'Upload and check' }).click()

  // the dry run: the rows to create, and the third (first name too short, line 4) that fails
  const { toCreate, problems } = await expectDryRun(page, 'onboarding.csv', { toCreate: 2 + PASSWORDS, failed: 1 })
  await expect(toCreate.getByRole('row').nth(2)).toContainText('percival.imp@example.com')
  await expect(toCreate).not.toContainText('Ulri-pass')
  await expect(problems.getByRole('row').nth(1)).toContainText('4')
  await expect(problems.getByRole('row').nth(1)).toContainText('firstName')
  await expectAccessible(page, 'Import users, dry run')
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
  await page.setViewportSize({ width: 1280, height: 720 })

  await page.getByRole('button', { name: 'Confirm import' }).click()
  // the import's own page: its progress while it runs, brought up to date without reloading the page
  await expect(page).toHaveURL(/\/admin\/users\/import\/[0-9a-f-]{36}$/)
  await expect(page.getByRole('heading', { name: 'Importing onboarding.csv' })).toBeVisible()
  await expect(page.getByRole('progressbar', { name: 'Import progress' })).toBeVisible()
  await expect(page.getByRole('status')).toContainText('so far')
  await expectAccessible(page, 'Import users, running')
  await page.evaluate(() => Object.assign(window, { stillThisPage: true }))
  await expect(page.getByRole('heading', { name: 'Import finished' })).toBeVisible({ timeout: 60_000 })
  expect(await page.evaluate(() => 'stillThisPage' in window)).toBe(true)
  await expect(page.locator('[data-count="Created"]')).toHaveText(String(2 + PASSWORDS))
  await expect(page.locator('[data-count="Failed"]')).toHaveText('1')
  await expectAccessible(page, 'Import users, done')

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: /Download the error CSV/ }).click(),
  ])
  expect(download.suggestedFilename()).toBe('onboarding-errors.csv')
  const rows = parse(await readFile((await download.path())!), { columns: true }) as Record<string, string>[]
  expect(rows).toHaveLength(1)
  expect(rows[0]).toMatchObject({
    row: '4',
    field: 'firstName',
    'First Name': 'Qu',
    Email: 'quentin.imp@example.com',
    Courses: 'SQL Fundamentals',
  })

  // the new learners are in the Users List, with their course
  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Users', exact: true }).click()
  await page.getByRole('searchbox', { name: 'Search Users List' }).fill('.imp@example.com')
  await page.getByRole('searchbox', { name: 'Search Users List' }).press('Enter')
  const list = page.getByRole('table', { name: 'Users List' })
  await expect(list.getByRole('row')).toHaveCount(3)
  await expect(list).toContainText('ottoline.imp@example.com')
  await expect(list).toContainText('percival.imp@example.com')
  await expect(list).not.toContainText('quentin.imp')
  await list.getByRole('link', { name: 'Ottoline' }).click()
  await expect(page.getByRole('heading', { name: 'User Details' })).toBeVisible()
  await expect(page.getByRole('table', { name: 'Assigned courses' })).toContainText('SQL Fundamentals')
})

test('a coach sees neither the page nor its link', async ({ page, signInAs }) => {
  await signInAs('coach')
  await page.goto('/admin/users')
  await expect(page.getByRole('heading', { name: 'Users List' })).toBeVisible()
  await expect(page.getByRole('link', { name: 'Import users' })).toHaveCount(0)
  await page.goto('/admin/users/import')
  await expect(page).toHaveURL(/\/admin\/users$/)
  await expect(page.getByText('Only admins can manage people.')).toBeVisible()
})

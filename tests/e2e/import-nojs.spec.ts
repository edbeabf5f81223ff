import { readFile } from 'node:fs/promises'
import { parse } from 'csv-parse/sync'
import { expect, test } from './fixtures.ts'
import { expectDryRun } from './helpers.ts'

// The Import users page in a browser without JavaScript: a plain upload, the dry run as a page, a plain
// confirm, and the import's page reloading itself (its meta refresh) until the counts are in.

test.use({ javaScriptEnabled: false })

// Rows with a password make the import take a few seconds (argon2id), so its page is seen running.
const PASSWORDS = 8
const CSV = [
  'firstName,lastName,email,userName,password,courses',
  'Rosalind,Nojs,rosalind.nojs@example.com,rosalind.nojs,,SQL Fundamentals',
  // line 3: an email that is not one
  'Sebastian,Nojs,sebastian.nojs-at-example.com,sebastian.nojs,Never-shown1!,',
  ...Array.from(
    { length: PASSWORDS },
    (_, i) => `Tabitha,Nojs,tabitha${i}.nojs@example.com,tabitha${i}.nojs,Tabi-pass${i}!,`,
  ),
].join('\n')

test('an admin imports a CSV file without JavaScript, through to the error CSV', async ({ page, signInAs }) => {
  test.setTimeout(120_000)
  await signInAs('admin')
  await page.goto('/admin/users/import')
  await page.getByLabel('CSV file').setInputFiles({
    name: 'nojs.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(`${CSV}\n`),
  })
  await page.getByRole('button', { name: 'Upload and check' }).click()

  // the dry run: the rows to create with their line, and the failing one with its line and message
  const { toCreate, problems } = await expectDryRun(page, 'nojs.csv', { toCreate: 1 + PASSWORDS, failed: 1 })
  await expect(toCreate.getByRole('row').nth(1)).toContainText('rosalind.nojs@example.com')
  await expect(toCreate.getByRole('row').nth(1)).toContainText('SQL Fundamentals')
  await expect(toCreate).not.toContainText('Tabi-pass')
  await expect(problems.getByRole('row').nth(1)).toContainText('3')
  await expect(problems.getByRole('row').nth(1)).toContainText('Email is invalid.')
  await expect(page.getByText('Never-shown1!')).toHaveCount(0)

  await page.getByRole('button', { name: 'Confirm import' }).click()
  // the job's own page, reloading itself every two seconds while the import runs
  await expect(page).toHaveURL(/\/admin\/users\/import\/[0-9a-f-]{36}$/)
  const jobUrl = page.url()
  // waiting for a worker, or already running: either way the page reloads itself until the end
  await expect(page.getByRole('heading', { name: /^(Waiting to import|Importing) nojs\.csv$/ })).toBeVisible()
  await expect(page.locator('meta[http-equiv="refresh"]')).toHaveAttribute('content', '2')
  await expect(page.getByRole('progressbar', { name: 'Import progress' })).toBeVisible()

  // nothing but the refresh brings the end
  await expect(page.getByRole('heading', { name: 'Import finished' })).toBeVisible({ timeout: 90_000 })
  expect(page.url()).toBe(jobUrl)
  await expect(page.locator('meta[http-equiv="refresh"]')).toHaveCount(0)
  await expect(page.locator('[data-count="Created"]')).toHaveText(String(1 + PASSWORDS))
  await expect(page.locator('[data-count="Assigned"]')).toHaveText('1')
  await expect(page.locator('[data-count="Failed"]')).toHaveText('1')
  await expect(page.getByRole('status')).toContainText(`${2 + PASSWORDS} rows read`)

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: /Download the error CSV/ }).click(),
  ])
  expect(download.suggestedFilename()).toBe('nojs-errors.csv')
  const text = await readFile((await download.path())!, 'utf8')
  expect(text).not.toContain('Never-shown1!')
  expect(parse(text, { columns: true })).toEqual([
    {
      row: '3',
      field: 'email',
      message: 'Email is invalid.',
      firstName: 'Sebastian',
      lastName: 'Nojs',
      email: 'sebastian.nojs-at-example.com',
      userName: 'sebastian.nojs',
      courses: '',
    },
  ])
})

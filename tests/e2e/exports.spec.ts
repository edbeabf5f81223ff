import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { scheduleAddArgs } from '../cli.ts'
import { expect, test } from './fixtures.ts'
import { expectAccessible, portal } from './helpers.ts'

// The Scheduled exports page: schedules made with the CLI, read by a coach, managed by an admin.

const folder = `${mkdtempSync(path.join(os.tmpdir(), 'portal-e2e-exports-'))}/`

test.beforeAll(async () => {
  await portal(...scheduleAddArgs({ name: 'nightly', cron: '0 2 * * *', range: 'last-month', to: folder }))
  await portal('exports', 'run', 'nightly')
})

test('a coach sees the schedules and their runs, read-only', async ({ page, signInAs }) => {
  await signInAs('coach')
  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Scheduled exports' }).click()
  await expect(page).toHaveURL(/\/admin\/exports$/)
  await expect(page.getByRole('heading', { name: 'Scheduled exports', level: 1 })).toBeVisible()

  const schedules = page.getByRole('table', { name: 'Schedules' })
  await expect(schedules.getByRole('row', { name: /nightly/ })).toContainText('0 2 * * *')
  await expect(schedules.getByRole('row', { name: /nightly/ })).toContainText('Last month')
  const runs = page.getByRole('table', { name: 'Recent runs, newest first' })
  await expect(runs.getByRole('row', { name: /nightly/ }).first()).toContainText('Succeeded')
  await expect(runs.getByRole('link', { name: /nightly_\d{4}-\d{2}-01_\d{4}-\d{2}-\d{2}\.csv$/ }).first()).toBeVisible()

  // nothing to change: no form, no run or remove controls
  await expect(page.getByText('Only admins can add, run or remove schedules.')).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Add a schedule' })).toHaveCount(0)
  await expect(page.getByRole('button', { name: 'Add schedule' })).toHaveCount(0)
  await expect(page.getByRole('button', { name: /Run now/ })).toHaveCount(0)
  await expect(page.getByRole('link', { name: /Remove/ })).toHaveCount(0)
  await expect(page.locator('form[method="post"]')).toHaveCount(0)
  await expectAccessible(page, 'the Scheduled exports page (coach)')

  // the file of a run downloads for the coach too
  const downloading = page.waitForEvent('download')
  await runs
    .getByRole('link', { name: /nightly_.*\.csv$/ })
    .first()
    .click()
  expect((await downloading).suggestedFilename()).toMatch(/^nightly_.*\.csv$/)
})

test('an admin adds a schedule, is told what is wrong first, and removes it after confirming', async ({
  page,
  signInAs,
}) => {
  await signInAs('admin')
  await page.goto('/admin/exports')
  // the schedule's own form: the page's assignments download has a course picker too
  const form = page.locator('form').filter({ has: page.getByRole('button', { name: 'Add schedule' }) })
  // two courses, each picked from the list with a click (no Ctrl or ⌘)
  const picker = form.getByRole('button', { name: /^Courses/ })
  await picker.click()
  for (const title of ['SQL Fundamentals', 'Data Modelling for Relational Databases'])
    await page.getByRole('option', { name: title }).click()
  await page.keyboard.press('Escape')
  await expect(picker).toContainText('2 courses')
  await page.getByLabel('Name').fill('weekly')
  await page.getByLabel('Cron (minute hour day month weekday)').fill('0 3 * * 8')
  await page.getByLabel('Days').selectOption({ label: 'Last 7 days' })
  await page.getByLabel(/^Destination/).fill('exports/')
  await page.getByRole('button', { name: 'Add schedule' }).click()
  await expect(page.getByText(/Cron "0 3 \* \* 8" is not a valid schedule/)).toBeVisible()
  await expect(page.getByText(/A folder destination must be an absolute path/)).toBeVisible()
  await expect(picker).toContainText('2 courses')

  await page.getByLabel('Cron (minute hour day month weekday)').fill('0 3 * * 1')
  // from the admin area, a folder outside the portal's exports folder is refused
  await page.getByLabel(/^Destination/).fill(folder)
  await page.getByRole('button', { name: 'Add schedule' }).click()
  await expect(page.getByText(/From the admin area a folder destination must be inside /)).toBeVisible()
  await page.getByLabel(/^Destination/).fill(`${process.env.E2E_DATA_DIR}/exports/weekly/`)
  await page.getByRole('button', { name: 'Add schedule' }).click()
  await expect(page.getByText('Schedule weekly added.')).toBeVisible()
  const row = page.getByRole('table', { name: 'Schedules' }).getByRole('row', { name: /weekly/ })
  await expect(row).toContainText('Last 7 days')
  await expect(row).toContainText('SQL Fundamentals')
  await expect(row).toContainText('Data Modelling for Relational Databases')
  await expectAccessible(page, 'the Scheduled exports page (admin)')

  await row.getByRole('link', { name: 'Remove weekly' }).click()
  const dialog = page.getByRole('alertdialog', { name: 'Remove schedule' })
  await expect(dialog).toContainText('Remove the schedule weekly?')
  await dialog.getByRole('button', { name: 'Remove' }).click()
  await expect(page.getByText('Schedule weekly removed; its runs stay in the list.')).toBeVisible()
  await expect(page.getByRole('table', { name: 'Schedules' }).getByRole('row', { name: /weekly/ })).toHaveCount(0)
})

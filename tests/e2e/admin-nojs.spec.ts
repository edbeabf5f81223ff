import { expect, test } from './fixtures.ts'

// Admin forms in a browser without JavaScript: Edit Course Details posted as a plain multipart form,
// and the access log's filter as a plain GET form, its courses as checkboxes.

test.use({ javaScriptEnabled: false })

test('Edit Course Details keeps the current image when no other is chosen, without JavaScript', async ({
  page,
  signInAs,
}) => {
  await signInAs('admin')
  await page.goto('/admin/courses')
  await page.getByRole('link', { name: 'Building ETL Pipelines' }).click()
  await page.getByRole('link', { name: 'Edit Course Details' }).click()
  const dialog = page.getByRole('region', { name: 'Edit Course Details' })
  await expect(dialog.getByText('Current file: Building ETL Pipelines.png')).toBeVisible()
  await dialog.getByLabel('Description').fill('Pipelines that can run twice and change nothing.')
  await dialog.getByRole('button', { name: 'Save' }).click()
  await expect(page).toHaveURL(/\/admin\/course\/[0-9a-f-]{36}\?tab=videos$/)
  await expect(page.getByText('Pipelines that can run twice and change nothing.')).toBeVisible()

  await page.getByRole('link', { name: 'Edit Course Details' }).click()
  await expect(dialog.getByLabel('Description')).toHaveValue('Pipelines that can run twice and change nothing.')
  await expect(dialog.getByText('Current file: Building ETL Pipelines.png')).toBeVisible()
})

test('the access log filters by two courses from checkboxes, and Clear Filter shows it whole again, without JavaScript', async ({
  page,
  signInAs,
}) => {
  await signInAs('admin')
  await page.goto('/admin/accesslog')
  const table = page.getByRole('table', { name: 'Access Log' })
  const courses = page.getByRole('group', { name: 'Courses' })
  const chosen = ['Data Modelling for Relational Databases', 'SQL Fundamentals']
  for (const title of chosen) await courses.getByRole('checkbox', { name: title }).check()
  await page.getByRole('button', { name: 'Filter' }).click()
  await expect(page).toHaveURL(/course=.*&course=/)
  for (const title of chosen) await expect(courses.getByRole('checkbox', { name: title })).toBeChecked()
  const shown = await table.locator('tbody tr td:nth-child(3)').allTextContents()
  expect(shown.length).toBeGreaterThan(0)
  expect(chosen).toEqual(expect.arrayContaining([...new Set(shown)]))

  await page.getByLabel('Start date').fill('2020-01-01')
  await page.getByLabel('End date').fill('2020-01-02')
  await page.getByRole('button', { name: 'Filter' }).click()
  await expect(table.getByText('No Data Found')).toBeVisible()
  await page.getByRole('link', { name: 'Clear Filter' }).click()
  await expect(page).toHaveURL(/\/admin\/accesslog$/)
  await expect(page.getByLabel('Start date')).toHaveValue('')
  await expect(page.getByLabel('End date')).toHaveValue('')
  await expect(courses.getByRole('checkbox', { checked: true })).toHaveCount(0)
  await expect(table.getByText('No Data Found')).toHaveCount(0)
})

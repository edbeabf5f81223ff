import { DEMO_PASSWORD } from '../../db/seeds/demo-content.ts'
import { expect, test } from './fixtures.ts'
import { signIn } from './helpers.ts'

// Admin forms in a browser without JavaScript: Edit Course Details posted as a plain multipart form,
// and the access log's filter as a plain GET form.

test.use({ javaScriptEnabled: false })

test('Edit Course Details keeps the current image when no other is chosen, without JavaScript', async ({ page }) => {
  await signIn(page, 'admin', DEMO_PASSWORD)
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

test('Clear Filter shows the whole access log again, without JavaScript', async ({ page }) => {
  await signIn(page, 'admin', DEMO_PASSWORD)
  await page.goto('/admin/accesslog?startDate=2020-01-01&endDate=2020-01-02')
  const table = page.getByRole('table', { name: 'Access Log' })
  await expect(table.getByText('No Data Found')).toBeVisible()
  await page.getByRole('link', { name: 'Clear Filter' }).click()
  await expect(page).toHaveURL(/\/admin\/accesslog$/)
  await expect(page.getByLabel('Start date')).toHaveValue('')
  await expect(page.getByLabel('End date')).toHaveValue('')
  await expect(table.getByText('No Data Found')).toHaveCount(0)
})

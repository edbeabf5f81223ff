import { pngBytes } from '../fixtures/files.ts'
import { expect, test } from './fixtures.ts'
import { startCourse } from './helpers.ts'

// A redirect's one-time message in a browser without JavaScript: it is in the page's HTML, as a status
// (or an alert for a refusal) above the page, and the next page load no longer shows it.

test.use({ javaScriptEnabled: false })

const LOCKED = 'You have to finish Filtering and Sorting with SELECT videos to unlock this video'
const NOT_FOR_PREVIEW = 'Video is not available for preview!!!'

test('a learner opening a locked video reads why on the course page, once', async ({ page, signInAs }) => {
  await signInAs('learner1')
  await startCourse(page, 'SQL Fundamentals')
  await page.getByRole('link', { name: /^4\. Joining Tables/ }).click()
  await expect(page).toHaveURL(/\/course\/[0-9a-f-]{36}$/)
  await expect(page.getByRole('heading', { name: 'SQL Fundamentals', level: 1 })).toBeVisible()
  await expect(page.getByRole('alert').filter({ hasText: LOCKED })).toBeVisible()
  await expect(page.getByText(LOCKED)).toHaveCount(1)

  await page.reload()
  await expect(page.getByRole('heading', { name: 'SQL Fundamentals', level: 1 })).toBeVisible()
  await expect(page.getByText(LOCKED)).toHaveCount(0)
})

test('an admin adds a course and reads that it was created', async ({ page, signInAs }) => {
  await signInAs('admin')
  await page.goto('/admin/newCourse')
  await page.getByLabel('Course Title').fill('No Script Partitioning')
  await page.getByLabel('Description').fill('Range, list and hash partitions, added from a page without JavaScript.')
  await page
    .getByLabel('Course Image')
    .setInputFiles({ name: 'partitions.png', mimeType: 'image/png', buffer: pngBytes({ width: 64, height: 36 }) })
  await page.getByRole('button', { name: 'Save' }).click()
  await expect(page).toHaveURL(/\/admin\/course\/[0-9a-f-]{36}$/)
  await expect(page.getByRole('heading', { name: 'No Script Partitioning', level: 1 })).toBeVisible()
  await expect(page.getByRole('status').filter({ hasText: 'Course created.' })).toBeVisible()
})

test('a visitor opening a video that is not a free preview reads so on the course overview', async ({ page }) => {
  await page.goto('/explore-courses')
  await page.getByRole('link', { name: 'View Course: SQL Fundamentals' }).click()
  await expect(page.getByRole('heading', { name: 'SQL Fundamentals', level: 1 })).toBeVisible()
  await page.getByRole('link', { name: /Joining Tables/ }).click()
  await expect(page).toHaveURL(/\/course-view\/[0-9a-f-]{36}$/)
  await expect(page.getByRole('alert').filter({ hasText: NOT_FOR_PREVIEW })).toBeVisible()
})

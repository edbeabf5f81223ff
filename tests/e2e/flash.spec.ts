import { expect, test } from './fixtures.ts'
import { whenHydrated } from './helpers.ts'

// With JavaScript a redirect's one-time message shows as a toast, and only as one: the copy in the
// page's HTML (for browsers without JavaScript) goes when the page is hydrated.

const NOT_FOR_PREVIEW = 'Video is not available for preview!!!'

test('a message in the page as loaded shows once, as the toast, when the page is hydrated', async ({ page }) => {
  await page.goto('/explore-courses')
  await page.getByRole('link', { name: 'View Course: SQL Fundamentals' }).click()
  await expect(page.getByRole('heading', { name: 'SQL Fundamentals', level: 1 })).toBeVisible()
  const href = await page.getByRole('link', { name: /Joining Tables/ }).getAttribute('href')
  expect(href).toMatch(/^\/preview\//)

  // a full page load, so the message comes in the server's HTML
  await page.goto(href!)
  await expect(page).toHaveURL(/\/course-view\/[0-9a-f-]{36}$/)
  await whenHydrated(page)
  const toast = page.locator('[data-sonner-toast]').filter({ hasText: NOT_FOR_PREVIEW })
  await expect(toast).toBeVisible()
  // counted at once, while the toast shows (it goes after 3 s, which a retried count would wait for)
  expect(await page.getByText(NOT_FOR_PREVIEW).count()).toBe(1)
  await expect(page.locator('[data-flash]')).toHaveCount(0)
})

import { expect, test } from './fixtures.ts'
import { startCourse } from './helpers.ts'

// Expected figures follow from the demo progress in db/seeds: learner 1 watched 20 % of the visible
// SQL videos, whose course also has a 45-minute lab not tried yet (11 % of the course), all of the
// modelling ones, and nothing of the warehouse course (assigned via the program).
test('a learner sees assigned courses with percentages, opens a course and a video', async ({ page, signInAs }) => {
  await signInAs('learner1')
  await expect(page).toHaveURL(/\/courses$/)
  const cards = page.getByTestId('course-card')
  await expect(cards).toHaveCount(3)
  // the first card's picture, the page's largest paint on a phone, is fetched at once; the others wait
  const pictures = cards.locator('img')
  await expect(pictures.first()).toHaveAttribute('fetchpriority', 'high')
  await expect(pictures.first()).not.toHaveAttribute('loading', 'lazy')
  await expect(pictures.nth(1)).toHaveAttribute('loading', 'lazy')
  await expect(pictures.nth(1)).not.toHaveAttribute('fetchpriority', 'high')
  const percentOf = (title: string) => cards.filter({ hasText: title }).getByRole('progressbar')
  await expect(percentOf('SQL Fundamentals')).toHaveAttribute('aria-valuenow', '11')
  await expect(percentOf('Data Modelling for Relational Databases')).toHaveAttribute('aria-valuenow', '100')
  await expect(percentOf('Data Warehousing and Dimensional Design')).toHaveAttribute('aria-valuenow', '0')
  await expect(cards.filter({ hasText: 'SQL Fundamentals' })).toContainText('11%')
  await expect(page.getByText('Building ETL Pipelines')).toHaveCount(0)

  await cards.filter({ hasText: 'SQL Fundamentals' }).getByRole('link', { name: 'Start Course' }).click()
  await expect(page.getByRole('heading', { name: 'SQL Fundamentals', level: 1 })).toBeVisible()
  await expect(page.getByRole('link', { name: /What SQL Is and Why It Lasts/ })).toBeVisible()
  await expect(page.getByRole('img', { name: 'Completed' })).toHaveCount(2)
  await expect(page.getByRole('link', { name: 'SQL Joins Cheat Sheet.pdf' })).toBeVisible()

  await page.getByRole('link', { name: /What SQL Is and Why It Lasts/ }).click()
  await expect(page.getByRole('heading', { name: 'What SQL Is and Why It Lasts', level: 1 })).toBeVisible()
  const player = page.locator('iframe[title="What SQL Is and Why It Lasts"]')
  await expect(player).toHaveAttribute('src', /^https:\/\/www\.youtube-nocookie\.com\/embed\//)
  await expect(page.getByRole('button', { name: 'Previous' })).toBeDisabled()
  await page.getByRole('link', { name: 'Next' }).click()
  await expect(page.getByRole('heading', { name: 'Relational Tables in PostgreSQL', level: 1 })).toBeVisible()
})

test('the video page tabs switch from the keyboard, with one tab stop', async ({ page, signInAs }) => {
  await signInAs('learner1')
  await startCourse(page, 'SQL Fundamentals')
  await page.getByRole('link', { name: /What SQL Is and Why It Lasts/ }).click()
  const tab = (name: string) => page.getByRole('tab', { name })
  await expect(tab('Contents')).toHaveAttribute('aria-selected', 'true')
  await expect(page.getByRole('tabpanel')).toHaveCount(1)
  await expect(page.getByRole('tabpanel').getByRole('link', { name: /What SQL Is and Why It Lasts/ })).toBeVisible()
  await tab('Contents').focus()
  await page.keyboard.press('ArrowRight')
  await expect(tab('Documents')).toBeFocused()
  await expect(tab('Documents')).toHaveAttribute('aria-selected', 'true')
  await expect(tab('Contents')).toHaveAttribute('tabindex', '-1')
  await expect(page.getByRole('tabpanel', { name: 'Documents' })).toContainText('SQL Joins Cheat Sheet.pdf')
  await page.keyboard.press('End')
  await expect(page.getByRole('tabpanel', { name: 'Scenarios' })).toBeVisible()
  await page.keyboard.press('ArrowRight')
  await expect(tab('Contents')).toBeFocused()
  await expect(page.getByRole('tabpanel', { name: 'Contents' })).toBeVisible()
})

test('the first video has Previous disabled, and a locked video answers with the lock toast', async ({
  page,
  signInAs,
}) => {
  await signInAs('learner1')
  await startCourse(page, 'Data Modelling')
  const links = page.getByRole('region', { name: 'Contents' }).getByRole('link')
  await links.first().click()
  await expect(page.getByRole('button', { name: 'Previous' })).toBeDisabled()

  await page.getByRole('link', { name: 'My Courses' }).first().click()
  await startCourse(page, 'SQL Fundamentals')
  await page.getByRole('link', { name: /^4\. Joining Tables/ }).click()
  await expect(
    page.getByText('You have to finish Filtering and Sorting with SELECT videos to unlock this video'),
  ).toBeVisible()
  await expect(page).toHaveURL(/\/course\/[0-9a-f-]+$/)
})

test('the admin side opens every video of a course, and the last one has Next disabled', async ({ page, signInAs }) => {
  await signInAs('admin')
  await page.goto('/explore-courses')
  await page.getByRole('link', { name: 'View Course: Data Modelling for Relational Databases' }).click()
  await expect(page).toHaveURL(/\/course-view\/[0-9a-f-]{36}$/)
  const courseId = new URL(page.url()).pathname.split('/').pop()
  await page.goto(`/course/${courseId}`)
  // the last video waits on prerequisites for a learner; the admin records no progress and is not held back
  await page.getByRole('link', { name: /^5\. When to Denormalise/ }).click()
  await expect(page.getByRole('heading', { name: 'When to Denormalise', level: 1 })).toBeVisible()
  await expect(page.getByRole('button', { name: 'Next' })).toBeDisabled()
  await expect(page.getByRole('link', { name: 'Previous' })).toBeVisible()
})

test('My Courses, Explore Courses and the video page ping the access log as they show', async ({ page, signInAs }) => {
  const ping = (pageName: string) =>
    page.waitForResponse(
      (r) =>
        r.url().endsWith('/api/user/postAccessLog') &&
        (r.request().postDataJSON() as { pageName?: string }).pageName === pageName,
    )
  const myCourses = ping('My Courses')
  await signInAs('learner1')
  expect((await myCourses).status()).toBe(200)

  const explore = ping('Explore Courses')
  await page.getByRole('link', { name: 'Explore Courses' }).first().click()
  expect((await explore).status()).toBe(200)

  const video = ping('Video')
  await page.getByRole('link', { name: 'My Courses' }).first().click()
  await startCourse(page, 'SQL Fundamentals')
  await page.getByRole('region', { name: 'Contents' }).getByRole('link').first().click()
  const videoPing = await video
  expect(videoPing.status()).toBe(200)
  expect(videoPing.request().postDataJSON()).toMatchObject({
    courseId: expect.any(String),
    videoId: expect.any(String),
  })
})

test('a course that is not assigned sends the learner back to My Courses with a toast', async ({
  page,
  context,
  signInAs,
}) => {
  await signInAs('learner1')
  const href = await page
    .getByTestId('course-card')
    .filter({ hasText: 'Data Warehousing' })
    .getByRole('link', { name: 'Start Course' })
    .getAttribute('href')
  expect(href).toMatch(/^\/course\/[0-9a-f-]{36}$/)
  await context.clearCookies()
  await signInAs('learner2')
  await page.goto(href as string)
  await expect(page).toHaveURL(/\/courses$/)
  await expect(page.getByText('This course is not assigned to you.')).toBeVisible()
})

test('a learner is turned away from the admin area', async ({ page, signInAs }) => {
  await signInAs('learner2')
  await page.goto('/admin/dashboard')
  await expect(page).toHaveURL(/\/courses$/)
  await expect(page.getByText('You do not have access to the admin area.')).toBeVisible()
})

test('search filters My Courses case-insensitively and says when nothing matches', async ({ page, signInAs }) => {
  await signInAs('learner1')
  await page.getByRole('searchbox', { name: 'Search courses' }).first().fill('WAREHOUS')
  await page.getByRole('searchbox', { name: 'Search courses' }).first().press('Enter')
  await expect(page.getByTestId('course-card')).toHaveCount(1)
  await expect(page.getByTestId('course-card')).toContainText('Data Warehousing')
  await page.goto('/courses?q=no-such-course')
  await expect(page.getByText('No courses match “no-such-course”')).toBeVisible()
})

test('without JavaScript, the assessment form answers with a message beside each field', async ({
  signInAs,
  browser,
}) => {
  const context = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  await signInAs('learner1', { page })
  await startCourse(page, 'SQL Fundamentals')
  await page.getByRole('link', { name: 'Upload Assessment' }).click()
  await page.getByRole('button', { name: 'Submit' }).click()
  await expect(page).toHaveURL(/\?assessment=new$/)
  await expect(page.getByText('Please Upload a document')).toBeVisible()
  await expect(page.getByText('Please choose a scenario')).toBeVisible()
  await context.close()
})

import { type Page } from '@playwright/test'
import { pdfBytes, pngBytes } from '../fixtures/files.ts'
import { expect, test } from './fixtures.ts'
import { portal, startCourse, whenHydrated } from './helpers.ts'

// Building a course, end to end: an admin builds a course from nothing, and a learner sees exactly what
// the admin arranged: the new order, and not the hidden video.

const COURSE = 'E2E Window Functions'

async function addVideo(page: Page, courseUrl: string, video: { title: string; duration: string; after?: string }) {
  await page.goto(courseUrl)
  await page.getByRole('link', { name: 'Add New Video' }).click()
  await expect(page.getByRole('heading', { name: 'Add New Video' })).toBeVisible()
  await expect(page.getByLabel('Video Related Course')).toHaveValue(/[0-9a-f-]{36}/)
  await page.getByLabel('Video Title').fill(video.title)
  await page.getByLabel('Description').fill(`All about ${video.title.toLowerCase()}.`)
  await page
    .getByLabel('Embed code or video address')
    .fill('<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ"></iframe>')
  await page.getByLabel('Duration (mm:ss or h:mm:ss)').fill(video.duration)
  if (video.after) await page.getByRole('checkbox', { name: video.after }).check()
  await page.getByRole('button', { name: 'Save' }).click()
  await expect(page).toHaveURL(/\/admin\/course\/[0-9a-f-]{36}\?tab=videos$/)
  await expect(page.getByText(`Video "${video.title}" added.`)).toBeVisible()
}

async function addFile(page: Page, courseUrl: string, tab: 'Documents' | 'Scenarios', name: string) {
  await page.goto(courseUrl)
  await page.getByRole('navigation', { name: 'Course contents' }).getByRole('link', { name: tab }).click()
  const add = tab === 'Documents' ? 'Add Documents' : 'Add Scenarios'
  await page.getByRole('link', { name: add }).click()
  await expect(page.getByRole('heading', { name: add })).toBeVisible()
  await page
    .getByLabel(tab === 'Documents' ? 'Document' : 'Scenario', { exact: true })
    .setInputFiles({ name, mimeType: 'application/pdf', buffer: await pdfBytes(name) })
  await expect(page.getByText(`Uploaded: ${name}`)).toBeVisible()
  await page.getByRole('button', { name: 'Save' }).click()
  await expect(page.getByText(tab === 'Documents' ? 'Document added.' : 'Scenario added.')).toBeVisible()
  await expect(page.getByTestId('admin-document').filter({ hasText: name })).toBeVisible()
}

const handle = (page: Page, title: string) => page.locator('[data-movable-handle]', { hasText: title })

test('an admin builds and arranges a course, and an assigned learner sees the result', async ({ page, signInAs }) => {
  test.setTimeout(120_000)
  await signInAs('admin')

  // a course with an image, uploaded at once with its progress
  await page.goto('/admin/courses')
  await page.getByRole('link', { name: 'Add New Course' }).click()
  await page.getByLabel('Course Title').fill(COURSE)
  await page.getByLabel('Description').fill('Ranking, running totals and moving averages with OVER().')
  await page
    .getByLabel('Course Image')
    .setInputFiles({ name: 'window.png', mimeType: 'image/png', buffer: pngBytes({ width: 64, height: 36 }) })
  await expect(page.getByText('Uploaded: window.png')).toBeVisible()
  await page.getByRole('button', { name: 'Save' }).click()
  await expect(page.getByText('Course created.')).toBeVisible()
  await expect(page.getByRole('heading', { name: COURSE, level: 1 })).toBeVisible()
  const courseUrl = new URL(page.url()).pathname
  expect(courseUrl).toMatch(/^\/admin\/course\/[0-9a-f-]{36}$/)
  // the uploaded image is served back to the page
  const cover = page.locator('header img[src^="/files/"]')
  await expect(cover).toBeVisible()
  expect(await cover.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(64)

  // three videos, the second requiring the first
  await addVideo(page, courseUrl, { title: 'Ranking Rows', duration: '05:00' })
  await addVideo(page, courseUrl, { title: 'Running Totals', duration: '06:30', after: 'Ranking Rows' })
  await addVideo(page, courseUrl, { title: 'Moving Averages', duration: '04:10' })
  const videos = page.getByTestId('admin-video')
  await expect(videos).toHaveCount(3)
  await expect(videos.nth(1)).toContainText('Requires: Ranking Rows')

  // a document and a scenario
  await addFile(page, courseUrl, 'Documents', 'Window cheat sheet.pdf')
  await addFile(page, courseUrl, 'Scenarios', 'Sales league table.pdf')

  // hide a video through its Edit dialog
  await page.goto(`${courseUrl}?tab=videos`)
  await page.getByRole('link', { name: 'Edit Moving Averages' }).click()
  const dialog = page.getByRole('dialog', { name: 'Edit video' })
  await expect(dialog).toBeVisible()
  await dialog.getByRole('switch', { name: 'Visibility' }).click()
  await expect(dialog.getByText('Hide', { exact: true })).toBeVisible()
  await dialog.getByRole('button', { name: 'Save' }).click()
  await expect(page.getByText('Video "Moving Averages" updated.')).toBeVisible()
  await expect(videos.filter({ hasText: 'Moving Averages' })).toContainText('Hidden')

  // rearrange: by keyboard, then by drag, then save
  await page.getByRole('link', { name: 'Rearrange Course' }).click()
  await expect(page.getByRole('heading', { name: `Rearrange Course: ${COURSE}` })).toBeVisible()
  const list = page.getByRole('list', { name: 'Course videos' })
  await expect(list.locator('[data-movable-handle]')).toHaveText([/Ranking Rows/, /Running Totals/, /Moving Averages/])
  await handle(page, 'Moving Averages').focus()
  await page.keyboard.press('Space')
  await page.keyboard.press('ArrowUp')
  await page.keyboard.press('ArrowUp')
  await page.keyboard.press('Space')
  await expect(list.locator('[data-movable-handle]')).toHaveText([/Moving Averages/, /Ranking Rows/, /Running Totals/])

  const from = await handle(page, 'Running Totals').boundingBox()
  const to = await handle(page, 'Moving Averages').boundingBox()
  if (!from || !to) throw new Error('the list items have no boxes')
  await page.mouse.move(from.x + 40, from.y + from.height / 2)
  await page.mouse.down()
  await page.mouse.move(from.x + 40, from.y + from.height / 2 - 10, { steps: 5 })
  await page.mouse.move(to.x + 40, to.y + 2, { steps: 15 })
  await page.mouse.up()
  await expect(list.locator('[data-movable-handle]')).toHaveText([/Running Totals/, /Moving Averages/, /Ranking Rows/])
  await page.getByRole('button', { name: 'Save' }).click()
  await expect(page.getByText('The new order is saved.')).toBeVisible()
  await expect(videos.getByRole('heading', { level: 2 })).toHaveText([
    /1\. Running Totals/,
    /2\. Moving Averages/,
    /3\. Ranking Rows/,
  ])

  // the learner, assigned through the CLI, sees the new order without the hidden video
  await portal('assign', 'course', '--user', 'learner2', '--course', COURSE)
  await page.context().clearCookies()
  await signInAs('learner2')
  await startCourse(page, COURSE)
  const contents = page.getByRole('region', { name: 'Contents' }).getByRole('link')
  await expect(contents).toHaveText([/^1\.\s*Running Totals/, /^2\.\s*Ranking Rows/])
  await expect(page.getByRole('link', { name: /Moving Averages/ })).toHaveCount(0)
  await expect(page.getByRole('link', { name: 'Window cheat sheet.pdf' })).toBeVisible()
  await expect(page.getByRole('link', { name: 'Sales league table.pdf' })).toBeVisible()
  // Running Totals requires Ranking Rows, which now comes after it: it is locked until then
  await contents.first().click()
  await expect(page.getByText('You have to finish Ranking Rows videos to unlock this video')).toBeVisible()
})

test('an admin changes only a course’s description and keeps its image', async ({ page, signInAs }) => {
  await signInAs('admin')
  await page.goto('/admin/courses')
  await page.getByRole('link', { name: 'Building ETL Pipelines' }).click()
  await whenHydrated(page)
  await page.getByRole('link', { name: 'Edit Course Details' }).click()
  const dialog = page.getByRole('dialog', { name: 'Edit Course Details' })
  await expect(dialog.getByText('Current file: Building ETL Pipelines.png')).toBeVisible()
  await dialog.getByLabel('Description').fill('Extract, transform and load, kept idempotent.')
  await dialog.getByRole('button', { name: 'Save' }).click()
  await expect(page.getByText('Course details saved.')).toBeVisible()
  await expect(dialog).toHaveCount(0)

  await page.getByRole('link', { name: 'Edit Course Details' }).click()
  await expect(dialog.getByLabel('Description')).toHaveValue('Extract, transform and load, kept idempotent.')
  await expect(dialog.getByText('Current file: Building ETL Pipelines.png')).toBeVisible()
})

test('a coach reads the course pages but is offered no changes', async ({ page, signInAs }) => {
  await signInAs('coach')
  await page.goto('/admin/courses')
  await expect(page.getByRole('link', { name: 'Add New Course' })).toHaveCount(0)
  await page.getByRole('link', { name: 'SQL Fundamentals' }).click()
  await expect(page.getByRole('heading', { name: 'SQL Fundamentals', level: 1 })).toBeVisible()
  await expect(page.getByRole('link', { name: 'Add New Video' })).toHaveCount(0)
  await expect(page.getByRole('link', { name: /^Edit / })).toHaveCount(0)
  await page.goto('/admin/newCourse')
  await expect(page).toHaveURL(/\/admin\/courses$/)
  await expect(page.getByText('Only admins can change courses and their contents.')).toBeVisible()
})

import { type Page } from '@playwright/test'
import { pdfBytes, pngBytes } from '../fixtures/files.ts'
import { expect, test } from './fixtures.ts'

// In Chromium, as the issue saw it: a refused upload shows the server's refusal, not "Failed to fetch"
// (ADR 028), and a file name with `;` and `=` uploads like any other.

async function openAddDocuments(page: Page) {
  await page.goto('/admin/courses')
  const courseUrl = await page.locator('a[href^="/admin/course/"]').first().getAttribute('href')
  expect(courseUrl).toMatch(/^\/admin\/course\/[0-9a-f-]{36}/)
  await page.goto(courseUrl!)
  await page.getByRole('navigation', { name: 'Course contents' }).getByRole('link', { name: 'Documents' }).click()
  await page.getByRole('link', { name: 'Add Documents' }).click()
  await expect(page.getByRole('heading', { name: 'Add Documents' })).toBeVisible()
}

test('a 3 MB picture named .pdf is refused with its reason; a name with ; and = is taken', async ({
  page,
  signInAs,
}) => {
  await signInAs('admin')
  await openAddDocuments(page)
  const document = page.getByLabel('Document', { exact: true })

  // incompressible, so that most of it is still on its way when the server refuses it
  const picture = pngBytes({ width: 1000, height: 800, noise: true })
  expect(picture.length).toBeGreaterThan(2 * 1024 * 1024)
  await document.setInputFiles({ name: 'x.pdf', mimeType: 'application/pdf', buffer: picture })
  await expect(page.getByText('Only csv, pdf, docx, ppt and pptx files are accepted.')).toBeVisible()

  const name = 'Q1; report=final.pdf'
  await document.setInputFiles({ name, mimeType: 'application/pdf', buffer: await pdfBytes(name) })
  await expect(page.getByText(`Uploaded: ${name}`)).toBeVisible()
})

import { expect, test } from './fixtures.ts'
import { expectAccessible, handInAssessment, whenHydrated } from './helpers.ts'

// A coach reviews a learner's assessment: the seeded data has none, so learner1 hands one in through
// the /api first (as the old client did); the coach then finds it in User Assignment Documents from
// the side menu and opens it in the viewer.

const COURSE = 'SQL Fundamentals'
const FILE_NAME = `review-${Date.now().toString(36)}.pdf`

test('a coach finds a learner’s assessment in the list and opens it in the viewer', async ({
  signInAs,
  page,
  request,
}) => {
  const assessment = await handInAssessment(request, { login: 'learner1', course: COURSE, fileName: FILE_NAME })

  await signInAs('coach')
  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Assessments' }).click()
  await expect(page).toHaveURL(/\/admin\/assignmentDocumentList$/)
  await expect(page).toHaveTitle(/^User Assignment Documents · /)
  await expect(page.getByRole('heading', { level: 1, name: 'User Assignment Documents' })).toBeVisible()
  const table = page.getByRole('table', { name: 'User Assignment Documents' })
  for (const header of ['First Name', 'Last Name', 'Email', 'Related Course', 'Related Scenario', 'File Name'])
    await expect(table.getByRole('columnheader', { name: header })).toBeVisible()
  const row = table.getByRole('row').filter({ hasText: FILE_NAME })
  await expect(row).toHaveCount(1)
  for (const text of ['Lena', 'Fischer', 'learner1@example.com', COURSE, assessment.scenarioName])
    await expect(row).toContainText(text)
  await expect(page.getByLabel('Rows per page')).toHaveValue('7')
  await expectAccessible(page, 'the assessment list')

  // the search narrows the list to this upload
  await page.getByRole('searchbox', { name: 'Search assessments' }).fill(FILE_NAME.toUpperCase())
  await page.getByRole('button', { name: 'Search' }).click()
  await expect(page).toHaveURL(/\?q=/)
  await expect(table.getByRole('row')).toHaveCount(2)

  // a click on the row (not only on its link) opens the viewer
  await row.getByRole('cell', { name: 'learner1@example.com' }).click()
  await expect(page).toHaveURL(new RegExp(`/admin/assignmentDocumentViewer/${assessment.id}$`))
  await expect(page.getByRole('heading', { level: 1, name: 'Lena Fischer' })).toBeVisible()
  await expect(page.getByRole('heading', { level: 2, name: FILE_NAME })).toBeVisible()
  const download = page.getByRole('link', { name: 'Download' })
  await expect(download).toHaveAttribute('href', assessment.fileInfo.link)
  await expect(download).toHaveAttribute('download', FILE_NAME)
  const frame = page.locator(`iframe[title="${FILE_NAME} (PDF)"]`)
  await expect(frame).toHaveAttribute('src', assessment.fileInfo.link)
  await expect(page.getByText('Loading…')).toHaveCount(0)
  // opened directly, the frame may load before the page hydrates: "Loading…" must not stay up then
  await page.reload()
  await expect(frame).toHaveAttribute('src', assessment.fileInfo.link)
  await whenHydrated(page) // the server's page never shows "Loading…"; the hydrated one must not keep it
  await expect(page.getByText('Loading…')).toHaveCount(0)
  // the link works for the coach: the PDF itself, shown inline
  const file = await page.request.get(assessment.fileInfo.link)
  expect(file.status()).toBe(200)
  expect(file.headers()['content-type']).toBe('application/pdf')
  expect(file.headers()['content-disposition']).toMatch(/^inline/)
  await expectAccessible(page, 'the assessment viewer')

  await page
    .getByRole('navigation', { name: 'Breadcrumb' })
    .getByRole('link', { name: 'User Assignment Documents' })
    .click()
  await expect(page).toHaveURL(/\/admin\/assignmentDocumentList$/)
})

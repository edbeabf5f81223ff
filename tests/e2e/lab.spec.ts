import { type Page } from '@playwright/test'
import { DEMO_PASSWORD } from '../../db/seeds/demo-content.ts'
import { expect, test } from './fixtures.ts'
import { AXE_VIEWPORTS, createLearner, expectAccessible, startCourse, whenHydrated } from './helpers.ts'

// The learner's SQL lab page, on the demo lab of SQL Fundamentals, for a learner of this file's own (the demo
// learners' percents are other files' to check): an answer typed with the keyboard in the editor, graded wrong
// (the extra rows shown), fixed and passed, and the course's percent moved by it; the same in the plain
// textarea without JavaScript; axe on the page at a desktop and a phone width.

/** The demo password, so that the sign-in fixture signs them in as it does the demo accounts. */
const LEARNER = {
  userName: 'lab.learner',
  email: 'lab.learner@example.com',
  password: DEMO_PASSWORD,
  firstName: 'Lara',
  lastName: 'Labs',
}

test.beforeAll(async () => {
  await createLearner(LEARNER, { courses: ['SQL Fundamentals'], mayExist: true })
})

/** From My Courses to the SQL Fundamentals lab's page. */
async function openLab(page: Page) {
  await page.goto('/courses')
  await startCourse(page, 'SQL Fundamentals')
  const labs = page.getByRole('region', { name: 'SQL Labs' })
  await expect(labs.getByRole('link')).toHaveCount(1)
  await expect(labs.getByRole('link')).toContainText(/45 min/)
  await labs.getByRole('link').click()
  await expect(page).toHaveURL(/\/course\/[0-9a-f-]+\/lab\/[0-9a-f-]+$/)
  await expect(page.getByRole('heading', { name: 'SQL Fundamentals', level: 1 })).toBeVisible()
}

const exercise = (page: Page, title: string) =>
  page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: title }) })

test('a learner types a wrong query in the editor, sees the extra rows, fixes it and passes', async ({
  page,
  signInAs,
}) => {
  // queries typed key by key into the editor and graded: 17 to 21 s on a machine whose two cores also run the files
  // beside this one
  test.setTimeout(60_000)
  await signInAs(LEARNER.userName)
  await page.goto('/courses')
  await startCourse(page, 'SQL Fundamentals')
  const before = Number(await coursePercent(page).getAttribute('aria-valuenow'))
  await openLab(page)
  await whenHydrated(page)
  await expect(page.getByRole('complementary').getByText('books', { exact: true })).toBeVisible()
  const card = exercise(page, '1. Filter rows with WHERE')
  const editor = card.getByRole('textbox', { name: 'Your SQL for Filter rows with WHERE' })
  // CodeMirror's text box, mounted over the (now hidden) textarea
  await expect(editor).toHaveAttribute('contenteditable', 'true')
  await expect(card.locator('textarea[name="sql"]')).toBeHidden()

  await editor.focus()
  await page.keyboard.type("SELECT title, published_year, price FROM books WHERE category = 'Science'")
  // Tab leaves the editor (no indentWithTab): the next stop is Submit, sent with Enter
  await page.keyboard.press('Escape')
  await page.keyboard.press('Tab')
  const submit = card.getByRole('button', { name: 'Submit' })
  await expect(submit).toBeFocused()
  await page.keyboard.press('Enter')
  const status = card.getByRole('status')
  await expect(status).toContainText('Not passed.')
  await expect(status).toContainText(/extra/i)
  await expect(card.getByText('Rows your result should not have:')).toBeVisible()
  await expect(card.getByRole('region', { name: /^Your result: \d+ rows$/ })).toBeVisible()
  await expect(card.getByTestId('exercise-state')).toContainText('Not passed yet')
  // the SQL stays in the editor, and a failed attempt opens the first hint
  await expect(editor).toContainText("category = 'Science'")
  await expect(card.getByRole('heading', { name: 'Hint', level: 4 })).toBeVisible()
  await expectAccessible(page, 'the lab page with a grading shown')

  await editor.click()
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.type(
    "SELECT title, published_year, price FROM books WHERE category = 'Science' AND published_year >= 2015",
  )
  await page.keyboard.press('Escape')
  await page.keyboard.press('Tab')
  await page.keyboard.press('Enter')
  await expect(status).toContainText('Passed.')
  await expect(card.getByTestId('exercise-state')).toContainText('Passed')

  // the passed exercise counts toward the course: its percent moves
  await page.goto('/courses')
  await startCourse(page, 'SQL Fundamentals')
  await expect(coursePercent(page)).toBeVisible()
  expect(Number(await coursePercent(page).getAttribute('aria-valuenow'))).toBeGreaterThan(before)
})

/** The course page's progress bar. */
const coursePercent = (page: Page) => page.getByRole('progressbar', { name: 'Course progress' })

test('without JavaScript the SQL is typed in a textarea, graded, and kept', async ({ browser, signInAs }) => {
  const context = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  await signInAs(LEARNER.userName, { page })
  await openLab(page)
  const card = exercise(page, '3. Remove duplicates with DISTINCT')
  const box = card.getByRole('textbox', { name: 'Your SQL for Remove duplicates with DISTINCT' })
  await expect(box).toHaveJSProperty('tagName', 'TEXTAREA')
  await box.fill('SELECT DISTINCT city FROM customers ORDER BY city')
  await card.getByRole('button', { name: 'Submit' }).click()
  // the page comes back with the grading and the SQL still in the box
  const after = exercise(page, '3. Remove duplicates with DISTINCT')
  await expect(after.getByRole('status')).toContainText('Not passed.')
  await expect(after.getByText(/Rows your result should not have/)).toBeVisible()
  await expect(after.getByRole('textbox', { name: /Your SQL for Remove duplicates/ })).toHaveValue(
    'SELECT DISTINCT city FROM customers ORDER BY city',
  )
  await after
    .getByRole('textbox', { name: /Your SQL for Remove duplicates/ })
    .fill('SELECT DISTINCT city FROM customers WHERE city IS NOT NULL ORDER BY city')
  await after.getByRole('button', { name: 'Submit' }).click()
  await expect(exercise(page, '3. Remove duplicates with DISTINCT').getByRole('status')).toContainText('Passed.')
  await expect(exercise(page, '3. Remove duplicates with DISTINCT').getByTestId('exercise-state')).toContainText(
    'Passed',
  )
  await context.close()
})

test('a refused statement is shown at the SQL field', async ({ browser, signInAs }) => {
  const context = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  await signInAs(LEARNER.userName, { page })
  await openLab(page)
  const card = exercise(page, '3. Remove duplicates with DISTINCT')
  const box = card.getByRole('textbox', { name: /Your SQL for Remove duplicates/ })
  await box.fill('DELETE FROM customers')
  await card.getByRole('button', { name: 'Submit' }).click()
  const refused = exercise(page, '3. Remove duplicates with DISTINCT').getByRole('textbox', {
    name: /Your SQL for Remove duplicates/,
  })
  await expect(refused).toHaveAttribute('aria-invalid', 'true')
  await expect(refused).toHaveAccessibleDescription(/DELETE is not allowed/)
  await context.close()
})

for (const [name, viewport] of AXE_VIEWPORTS)
  test(`the lab page passes axe on a ${name}`, async ({ page, signInAs }) => {
    await page.setViewportSize(viewport)
    await signInAs(LEARNER.userName)
    await openLab(page)
    await whenHydrated(page)
    await expect(page.locator('[data-sql-editor] .cm-content').first()).toBeVisible()
    await expectAccessible(page, `the lab page on a ${name}`)
  })

import { type Page } from '@playwright/test'
import { DEMO_PASSWORD } from '../../db/seeds/demo-content.ts'
import { expect, test } from './fixtures.ts'
import { createLearner, expectAccessible, expectFitsScreen, startCourse, whenHydrated } from './helpers.ts'

// A plan exercise of the demo Data warehousing lab, for a learner of this file's own: the slow report sent as
// it is fails on its plan (a sequential scan; the plan's tree and the unmet rule shown), and passes once the
// learner creates the index in the same attempt; axe and a phone's width with a plan shown; the same without
// JavaScript, the form posted and the tree drawn by the server.

const LEARNER = {
  userName: 'plan.learner',
  email: 'plan.learner@example.com',
  password: DEMO_PASSWORD,
  firstName: 'Piera',
  lastName: 'Plans',
}
const COURSE = 'Data Warehousing and Dimensional Design'
const TITLE = 'An index for a slow report'
const REPORT =
  'SELECT store_key, count(*) AS big_lines, sum(sales_amount) AS revenue FROM fact_sales ' +
  'WHERE sales_amount >= 1000 GROUP BY store_key ORDER BY store_key'
const INDEXED = `CREATE INDEX big_sales_idx ON fact_sales (sales_amount); ${REPORT}`

test.beforeAll(async () => {
  await createLearner(LEARNER, { courses: [COURSE], mayExist: true })
})

async function openLab(page: Page) {
  await page.goto('/courses')
  await startCourse(page, 'Data Warehousing')
  await page
    .getByRole('region', { name: 'SQL Labs' })
    .getByRole('link', { name: /Data warehousing/ })
    .click()
  await expect(page.getByRole('heading', { name: 'Data warehousing', level: 1 })).toBeVisible()
}

const exercise = (page: Page) =>
  page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: new RegExp(`^\\d+\\. ${TITLE}$`) }) })

test('the report fails on its sequential scan, with the plan and the unmet rule shown, and passes with an index', async ({
  page,
  signInAs,
}) => {
  // two long statements typed key by key into the editor, each graded with its plan: half a minute on a machine
  // whose two cores also run the files beside this one
  test.setTimeout(60_000)
  await signInAs(LEARNER.userName)
  await openLab(page)
  await whenHydrated(page)
  const card = exercise(page)
  const editor = card.getByRole('textbox', { name: `Your SQL for ${TITLE}` })
  await expect(editor).toHaveAttribute('contenteditable', 'true')
  await editor.focus()
  await page.keyboard.type(REPORT)
  await page.keyboard.press('Escape')
  await card.getByRole('button', { name: 'Submit' }).click()

  const status = card.getByRole('status')
  await expect(status).toContainText('Not passed.')
  await expect(status).toContainText(
    'Your query returns the right rows, but its plan has a Seq Scan on fact_sales; the exercise expects an Index Scan on fact_sales',
  )
  const rules = card.getByRole('list', { name: 'What the exercise expects of the plan' })
  await expect(rules.getByRole('listitem').filter({ hasText: 'Has Index Scan on fact_sales' })).toContainText('Not met')
  await expect(rules.getByRole('listitem').filter({ hasText: 'Has no Seq Scan on fact_sales' })).toContainText(
    'Not met',
  )
  const plan = card.getByRole('region', { name: 'Your query’s plan' })
  await expect(plan).toContainText(/Seq Scan on fact_sales · rows ≈ [\d,]+ · cost [\d,.]+/)
  // the tree is lists in lists: the scan is a step under the aggregate
  await expect(plan.getByRole('list')).not.toHaveCount(1)
  await expectAccessible(page, 'the lab page with a plan shown')
  await page.setViewportSize({ width: 360, height: 740 })
  await expectFitsScreen(page)
  await expectAccessible(page, 'the lab page with a plan shown on a phone')
  await page.setViewportSize({ width: 1280, height: 800 })

  await editor.click()
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.type(INDEXED)
  await page.keyboard.press('Escape')
  await card.getByRole('button', { name: 'Submit' }).click()
  await expect(status).toContainText('Passed.')
  await expect(rules.getByRole('listitem').filter({ hasText: 'Not met' })).toHaveCount(0)
  await expect(plan).toContainText('big_sales_idx')
  await expect(plan).not.toContainText('Seq Scan on fact_sales')
  await expect(card.getByTestId('exercise-state')).toContainText('Passed')
})

test('without JavaScript the form posts and the server draws the plan', async ({ browser, signInAs }) => {
  const context = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  await signInAs(LEARNER.userName, { page })
  await openLab(page)
  const box = exercise(page).getByRole('textbox', { name: `Your SQL for ${TITLE}` })
  await expect(box).toHaveJSProperty('tagName', 'TEXTAREA')
  await box.fill(REPORT)
  await exercise(page).getByRole('button', { name: 'Submit' }).click()
  const after = exercise(page)
  await expect(after.getByRole('status')).toContainText('its plan has a Seq Scan on fact_sales')
  await expect(after.getByRole('region', { name: 'Your query’s plan' })).toContainText('Seq Scan on fact_sales')
  await after.getByRole('textbox', { name: `Your SQL for ${TITLE}` }).fill(INDEXED)
  await after.getByRole('button', { name: 'Submit' }).click()
  await expect(exercise(page).getByRole('status')).toContainText('Passed.')
  await expect(exercise(page).getByRole('region', { name: 'Your query’s plan' })).toContainText('big_sales_idx')
  await context.close()
})

import { type Locator, type Page } from '@playwright/test'
import { DEMO_PASSWORD } from '../../db/seeds/demo-content.ts'
import { expect, test } from './fixtures.ts'
import {
  AXE_VIEWPORTS,
  createLearner,
  expectAccessible,
  expectFitsScreen,
  PHONES,
  startCourse,
  whenHydrated,
} from './helpers.ts'

// The demo lab Transactions and locks, for a learner of this file's own: two sessions started side by side, A's
// open transaction holding a row, B's update of it shown waiting, then finishing once A commits, and Check passed;
// axe on the page with both sessions' histories, at a desktop and a phone width, and the page fitting the phone.

const LEARNER = {
  userName: 'sessions.learner',
  email: 'sessions.learner@example.com',
  password: DEMO_PASSWORD,
  firstName: 'Sasha',
  lastName: 'Sessions',
}
const COURSE = 'Data Warehousing and Dimensional Design'

test.beforeAll(async () => {
  await createLearner(LEARNER, { courses: [COURSE], mayExist: true })
})

async function openLab(page: Page) {
  await page.goto('/courses')
  await startCourse(page, COURSE)
  await page
    .getByRole('region', { name: 'SQL Labs' })
    .getByRole('link', { name: /Transactions and locks/ })
    .click()
  await expect(page.getByRole('heading', { name: 'Transactions and locks', level: 1 })).toBeVisible()
  await whenHydrated(page)
}

const exercise = (page: Page, title: string) =>
  page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: title }) })

/** Types a statement into a session's editor (replacing what it held) and runs it. */
async function run(card: Locator, session: 'A' | 'B', sql: string) {
  const column = card.getByTestId(`session-${session}`)
  const editor = column.getByRole('textbox', { name: new RegExp(`SQL for session ${session}`) })
  await expect(editor).toHaveAttribute('contenteditable', 'true')
  await editor.click()
  await editor.press('ControlOrMeta+A')
  await editor.page().keyboard.type(sql)
  await column.getByRole('button', { name: `Run in ${session}` }).click()
  return column
}

test('B waits on A’s lock, goes on once A commits, and Check passes', async ({ page, signInAs }) => {
  // each statement typed key by key into its session's editor and run: nearly half a minute on a machine whose
  // two cores also run the files beside this one
  test.setTimeout(60_000)
  await signInAs(LEARNER.userName)
  await openLab(page)
  // two-session exercises have no Run: a lab of them alone loads no practice database
  await expect(page.getByTestId('practice-status')).toHaveCount(0)
  const card = exercise(page, '1. Wait for a row lock')
  await card.getByRole('button', { name: 'Start two sessions' }).click()
  await expect(card.getByTestId('session-A')).toBeVisible()

  const a = await run(card, 'A', 'BEGIN')
  await expect(a.getByText('In a transaction · READ COMMITTED')).toBeVisible()
  await run(card, 'A', 'UPDATE accounts SET balance = balance - 100 WHERE account_id = 1')
  await expect(a.getByText('UPDATE 1')).toBeVisible()
  const b = await run(card, 'B', 'UPDATE accounts SET balance = balance + 100 WHERE account_id = 1')
  await expect(b.getByRole('status')).toContainText('waiting for a lock…')
  await expect(b.getByRole('button', { name: 'Run in B' })).toBeDisabled()
  await expectAccessible(page, 'the two-session exercise with B waiting')

  await run(card, 'A', 'COMMIT')
  await expect(b.getByText('waiting for a lock…')).toHaveCount(0)
  await expect(b.getByText(/Waited for a lock, then UPDATE 1/)).toBeVisible()
  await run(card, 'B', 'SELECT balance FROM accounts WHERE account_id = 1')
  await expect(b.getByRole('cell', { name: '500.00' })).toBeVisible()

  await card.getByRole('button', { name: 'Check' }).click()
  await expect(card.getByRole('status').filter({ hasText: 'Passed.' })).toBeVisible()
  await expect(card.getByTestId('exercise-state')).toContainText('Passed')

  for (const [name, viewport] of AXE_VIEWPORTS) {
    await page.setViewportSize(viewport)
    await expectAccessible(page, `the two-session exercise with its histories, ${name}`)
  }
  await page.setViewportSize(PHONES[0])
  await expectFitsScreen(page)

  await card.getByRole('button', { name: 'Close' }).click()
  await expect(card.getByRole('button', { name: 'Start two sessions' })).toBeVisible()
})

test('leaving the page closes the two sessions', async ({ page, signInAs }) => {
  await signInAs(LEARNER.userName)
  await openLab(page)
  const labUrl = page.url()
  const card = exercise(page, '2. A read that changes, and one that does not')
  await card.getByRole('button', { name: 'Start two sessions' }).click()
  await run(card, 'A', 'BEGIN')
  await expect(card.getByTestId('session-A').getByText('In a transaction · READ COMMITTED')).toBeVisible()
  // the beacon goes as the page is left; coming back finds no sessions open
  await page.goto('/courses')
  await expect(async () => {
    await page.goto(labUrl)
    await expect(
      exercise(page, '2. A read that changes, and one that does not').getByRole('button', {
        name: 'Start two sessions',
      }),
    ).toBeVisible({ timeout: 1000 })
  }).toPass()
})

test('without JavaScript every button is a form post, and a waiting statement shows with Refresh', async ({
  browser,
  signInAs,
}) => {
  const context = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  await signInAs(LEARNER.userName, { page })
  await page.goto('/courses')
  await startCourse(page, COURSE)
  await page
    .getByRole('region', { name: 'SQL Labs' })
    .getByRole('link', { name: /Transactions and locks/ })
    .click()
  const card = () => exercise(page, '1. Wait for a row lock')
  await card().getByRole('button', { name: 'Start two sessions' }).click()
  const runPlain = async (session: 'A' | 'B', sql: string) => {
    const column = card().getByTestId(`session-${session}`)
    const box = column.getByRole('textbox', { name: new RegExp(`SQL for session ${session}`) })
    await expect(box).toHaveJSProperty('tagName', 'TEXTAREA')
    await box.fill(sql)
    await column.getByRole('button', { name: `Run in ${session}` }).click()
  }
  await runPlain('A', 'BEGIN')
  await runPlain('A', 'UPDATE accounts SET balance = balance - 1 WHERE account_id = 1')
  await runPlain('B', 'UPDATE accounts SET balance = balance + 1 WHERE account_id = 1')
  await expect(card().getByTestId('session-B').getByText('waiting for a lock…')).toBeVisible()
  await expect(card().getByRole('button', { name: 'Refresh' })).toBeVisible()
  await runPlain('A', 'COMMIT')
  await card()
    .getByRole('button', { name: /Refresh|Check/ })
    .first()
    .click()
  await expect(
    card()
      .getByTestId('session-B')
      .getByText(/Waited for a lock, then UPDATE 1/),
  ).toBeVisible()
  await card().getByRole('button', { name: 'Check' }).click()
  await expect(card().getByRole('status').filter({ hasText: 'Passed.' })).toBeVisible()
  await card().getByRole('button', { name: 'Close' }).click()
  await expect(card().getByRole('button', { name: 'Start two sessions' })).toBeVisible()
  await context.close()
})

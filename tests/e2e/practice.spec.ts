import { type Locator, type Page } from '@playwright/test'
import { DEMO_PASSWORD } from '../../db/seeds/demo-content.ts'
import { expect, test } from './fixtures.ts'
import { createLearner, expectAccessible, expectFitsScreen, PHONES, startCourse, whenHydrated } from './helpers.ts'

// Practice in the browser on the SQL Fundamentals demo lab: once the practice database is ready, three Runs (rows,
// a change and its rows, an error with its place) go to PostgreSQL in the page and not to the server, Reset brings the
// changed row back, and Submit still grades on the server. Without WebAssembly, and without JavaScript, the page says
// so in one line and Submit still passes.

const LEARNER = {
  userName: 'practice.learner',
  email: 'practice.learner@example.com',
  password: DEMO_PASSWORD,
  firstName: 'Priya',
  lastName: 'Practice',
}

/** The first exercise's right answer (db/seeds/labs/sql-fundamentals/lab.yaml). */
const SOLUTION = "SELECT title, published_year, price FROM books WHERE category = 'Science' AND published_year >= 2015"
const TITLE = 'Filter rows with WHERE'

test.beforeAll(async () => {
  await createLearner(LEARNER, { courses: ['SQL Fundamentals'], mayExist: true })
})

async function openLab(page: Page) {
  await page.goto('/courses')
  await startCourse(page, 'SQL Fundamentals')
  await page.getByRole('region', { name: 'SQL Labs' }).getByRole('link').click()
  await expect(page.getByRole('heading', { name: 'SQL Fundamentals', level: 1 })).toBeVisible()
}

const exercise = (page: Page, title: string) =>
  page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: title }) })

/** Replaces the SQL in the exercise's editor by typing it. */
async function typeSql(page: Page, card: Locator, sql: string) {
  const editor = card.getByRole('textbox', { name: `Your SQL for ${TITLE}` })
  await expect(editor).toHaveAttribute('contenteditable', 'true')
  await editor.click()
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.type(sql)
  await page.keyboard.press('Escape')
}

const practiceLine = (page: Page) => page.getByTestId('practice-status')

/** Signs the learner in and opens the lab once practice is ready: its status line, the exercise's Run and result. */
async function readyToRun(page: Page, signInAs: (userName: string) => Promise<unknown>) {
  await signInAs(LEARNER.userName)
  await openLab(page)
  await whenHydrated(page)
  const status = practiceLine(page).getByRole('status')
  await expect(status).toContainText(/Practice database (loading|ready)/)
  await expect(status).toContainText('Practice database ready', { timeout: 90_000 })
  const card = exercise(page, TITLE)
  const run = card.getByRole('button', { name: `Run ${TITLE} in your browser` })
  return { status, card, run, result: card.getByTestId('run-result') }
}

test('Run answers in the browser without asking the server, Reset restores the data, Submit grades', async ({
  page,
  signInAs,
}) => {
  test.setTimeout(120_000)
  const { status, card, run, result } = await readyToRun(page, signInAs)
  const asked: string[] = []
  page.on('request', (request) => asked.push(`${request.method()} ${request.url()}`))

  await typeSql(page, card, 'SELECT book_id, price FROM books WHERE book_id = 1')
  await run.click()
  await expect(result).toContainText('Run: 1 row.')
  const price = await result.getByRole('cell').nth(1).textContent()
  expect(price).toMatch(/^\d+\.\d\d$/)

  await typeSql(page, card, 'UPDATE books SET price = 1 WHERE book_id = 1;\nSELECT price FROM books WHERE book_id = 1')
  await run.click()
  await expect(result).toContainText('Run: 2 statements ran; the last gave 1 row.')
  // as PostgreSQL prints a numeric(6,2), as grading compares it
  await expect(result.getByRole('cell')).toHaveText(['1.00'])

  await typeSql(page, card, 'SELECT nme FROM books')
  await run.click()
  await expect(result).toContainText('column "nme" does not exist')
  await expect(result).toContainText('The error is at line 1, character 8:')
  expect(asked).toEqual([])

  // Reset: the dataset as loaded, the changed row back
  await practiceLine(page).getByRole('button', { name: 'Reset' }).click()
  await expect(status).toContainText('Practice database ready')
  await typeSql(page, card, 'SELECT book_id, price FROM books WHERE book_id = 1')
  await run.click()
  await expect(result.getByRole('cell')).toHaveText(['1', price!])
  expect(asked).toEqual([])

  await typeSql(page, card, SOLUTION)
  await card.getByRole('button', { name: 'Submit' }).click()
  await expect(card.getByRole('status')).toContainText('Passed.')

  // the next visit opens the copy this one kept in the browser: the dataset as it was loaded, before any Run
  await page.waitForFunction(() => performance.getEntriesByName('practice: copy kept').length > 0)
  await page.reload()
  await expect(status).toContainText('Practice database ready', { timeout: 30_000 })
  expect(await page.evaluate(() => performance.getEntriesByName('practice: copy read').length)).toBe(1)
  await typeSql(page, card, 'UPDATE books SET price = 2 WHERE book_id = 1;\nSELECT price FROM books WHERE book_id = 1')
  await run.click()
  await expect(result.getByRole('cell')).toHaveText(['2.00'])
  await typeSql(page, card, 'SELECT book_id, price FROM books WHERE book_id = 1')
  await practiceLine(page).getByRole('button', { name: 'Reset' }).click()
  await expect(status).toContainText('Practice database ready')
  await run.click()
  await expect(result.getByRole('cell')).toHaveText(['1', price!])
})

test('a Run that does not end is stopped after 10 s, and practice opens the lab’s data again', async ({
  page,
  signInAs,
}) => {
  test.setTimeout(120_000)
  const { status, card, run, result } = await readyToRun(page, signInAs)
  await typeSql(page, card, 'SELECT price FROM books WHERE book_id = 1')
  await run.click()
  await expect(result).toContainText('Run: 1 row.')
  const price = await result.getByRole('cell').textContent()
  await typeSql(page, card, 'UPDATE books SET price = 3 WHERE book_id = 1')
  await run.click()
  await expect(result).toContainText('Run: the statement returned no rows.')

  // counts for ever: PGlite cannot cancel it, so its worker is ended
  await typeSql(page, card, 'WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r')
  await run.click()
  await expect(card.getByRole('button', { name: `Running… ${TITLE} in your browser` })).toBeDisabled()
  await expect(result).toContainText('Stopped after 10 s: the practice database is opened again, as Reset does.', {
    timeout: 20_000,
  })
  await expect(status).toContainText('Practice database ready', { timeout: 60_000 })
  // the lab's data as it was loaded: the update went with the ended worker
  await typeSql(page, card, 'SELECT price FROM books WHERE book_id = 1')
  await run.click()
  await expect(result.getByRole('cell')).toHaveText([price!])
})

test('on a phone a Run’s rows scroll in their own box, and the page with them passes axe', async ({
  page,
  signInAs,
}) => {
  test.setTimeout(120_000)
  await page.setViewportSize(PHONES[0])
  const { card, run, result } = await readyToRun(page, signInAs)
  await typeSql(page, card, 'SELECT * FROM books ORDER BY book_id')
  await run.click()
  await expect(result).toContainText(/Run: \d+ rows\./)
  await expectFitsScreen(page)
  await expectAccessible(page, 'the lab page with a Run’s rows, on a phone')
})

test('a browser that takes brotli gets PostgreSQL’s files as the build compressed them, and practice opens', async ({
  browser,
  signInAs,
}) => {
  test.setTimeout(120_000)
  // Chromium asks for brotli over https only: asked for here, as over https
  const context = await browser.newContext({ extraHTTPHeaders: { 'Accept-Encoding': 'gzip, deflate, br' } })
  const page = await context.newPage()
  const encodings = new Map<string, string | undefined>()
  page.on('response', (response) => {
    if (response.url().includes('/build/practice/'))
      encodings.set(new URL(response.url()).pathname.split('/').pop()!, response.headers()['content-encoding'])
  })
  await signInAs(LEARNER.userName, { page })
  await openLab(page)
  await expect(practiceLine(page).getByRole('status')).toContainText('Practice database ready', { timeout: 90_000 })
  // the worker's fetches: PostgreSQL's WebAssembly, its file-system image, and the empty cluster made at build time
  const files = [...encodings].filter(([name]) => /\.(wasm|data|tar)$/.test(name))
  expect(files).toHaveLength(3)
  for (const [name, encoding] of files) expect(encoding, name).toBe('br')
  // the worker and PostgreSQL's own files were asked for as the page's HTML was read, before its JavaScript ran
  const prefetched = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLLinkElement>('head link[rel="prefetch"]')].map((link) => link.href),
  )
  expect(prefetched.map((href) => new URL(href).pathname.replace(/-\w+\./, '-*.'))).toEqual([
    '/build/practice/worker-*.js',
    '/build/practice/pglite-*.wasm',
    '/build/practice/pglite-*.data',
  ])
  await context.close()
})

test('a lab page loaded whole asks for PostgreSQL’s files from its HTML, before its JavaScript runs', async ({
  browser,
  signInAs,
}) => {
  const context = await browser.newContext()
  const page = await context.newPage()
  await signInAs(LEARNER.userName, { page })
  await page.goto('/courses')
  await startCourse(page, 'SQL Fundamentals')
  // the lab's address, not opened yet: nothing of practice is in this browser's cache
  const lab = (await page.getByRole('region', { name: 'SQL Labs' }).getByRole('link').getAttribute('href')) ?? ''
  // the portal's own scripts never arrive: only what the HTML carries runs
  await page.route(/\/build\/(?!practice\/).*\.js$/, (route) => route.abort())
  const asked = practiceRequests(page)
  await page.goto(lab)
  await expect
    .poll(() => asked.map((url) => new URL(url).pathname.replace(/-\w+\./, '-*.')).sort())
    .toEqual(['/build/practice/pglite-*.data', '/build/practice/pglite-*.wasm', '/build/practice/worker-*.js'])
  await context.close()
})

/** The practice files the page asks for: none, where practice cannot run. */
function practiceRequests(page: Page) {
  const asked: string[] = []
  page.on('request', (request) => {
    if (request.url().includes('/build/practice/')) asked.push(request.url())
  })
  return asked
}

test('without WebAssembly the page says so in one line and Submit still passes', async ({ page, signInAs }) => {
  await page.addInitScript(() => {
    delete (window as { WebAssembly?: unknown }).WebAssembly
  })
  const asked = practiceRequests(page)
  await signInAs(LEARNER.userName)
  await openLab(page)
  await whenHydrated(page)
  await expect(practiceLine(page)).toHaveText(
    'Practice in the browser is not available here (this browser does not run WebAssembly); Submit still grades your SQL.',
  )
  const card = exercise(page, TITLE)
  await expect(card.getByRole('button', { name: /^Run/ })).toHaveCount(0)
  await typeSql(page, card, SOLUTION)
  await card.getByRole('button', { name: 'Submit' }).click()
  await expect(card.getByRole('status')).toContainText('Passed.')
  expect(asked).toEqual([])
})

test('without JavaScript the page says so in one line and Submit still passes', async ({ browser, signInAs }) => {
  const context = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  const asked = practiceRequests(page)
  await signInAs(LEARNER.userName, { page })
  await openLab(page)
  await expect(practiceLine(page)).toHaveText('Practice in the browser needs JavaScript; Submit still grades your SQL.')
  const card = exercise(page, TITLE)
  await expect(card.getByRole('button', { name: /^Run/ })).toHaveCount(0)
  await card.getByRole('textbox', { name: `Your SQL for ${TITLE}` }).fill(SOLUTION)
  await card.getByRole('button', { name: 'Submit' }).click()
  await expect(exercise(page, TITLE).getByRole('status')).toContainText('Passed.')
  // a learner without JavaScript downloads no PostgreSQL
  expect(asked).toEqual([])
  await context.close()
})

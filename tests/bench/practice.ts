import { chmod, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { chromium, type BrowserContext, type Page } from '@playwright/test'
import { DEMO_PASSWORD } from '#db/seeds/demo-content.ts'
import { buildIfMissing, portalEnv, signIn, start, stop } from '#tests/bench/serve.ts'

// npm run bench:practice: practice in the browser, measured in Debian's Chromium against the real `portal serve` (the
// demo content, a throwaway DATA_DIR) with the network held to 10 Mbit/s (the DevTools protocol's
// Network.emulateNetworkConditions on the page, which holds its practice worker's requests to it too). For each demo lab the learner has: the
// bytes a first and a second visit download, the time from the page's start to "Practice database ready" on each,
// and the time of a Run of a demo query once ready (click to rows shown, the median of several). The browser asks
// for brotli, as it does over https, where the portal runs (Chromium asks for gzip only over http). Figures and the
// goals beside them, never pass/fail.
//
//   BENCH_PRACTICE_RUNS=9   Runs per lab (default 9)
//   CHROMIUM_PATH           the browser (default /usr/bin/chromium), as for the end-to-end suite

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const RUNS = Math.max(1, Math.round(Number(process.env.BENCH_PRACTICE_RUNS ?? 9)))
const LEARNER = 'learner1'
/** 10 Mbit/s both ways, and a 20 ms round trip. */
const NETWORK = { offline: false, latency: 20, downloadThroughput: 10e6 / 8, uploadThroughput: 10e6 / 8 }
const GOALS = { first: 5000, repeat: 1000, run: 50 }
const BROTLI = { 'Accept-Encoding': 'gzip, deflate, br' }
/** A demo query per lab, as a learner would try it. */
const QUERIES: Record<string, string> = {
  'SQL Fundamentals': "SELECT title, price FROM books WHERE category = 'Science' ORDER BY price DESC",
  'Data Warehousing and Dimensional Design':
    'SELECT d.year, sum(f.quantity) AS units FROM fact_sales f JOIN dim_date d USING (date_key) GROUP BY d.year ORDER BY d.year',
}

type Lab = { courseTitle: string; path: string }
type Visit = { bytes: number; files: Map<string, number>; readyMs: number; steps: { name: string; at: number }[] }

async function main() {
  await buildIfMissing()
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-practice-bench-'))
  await chmod(dataDir, 0o755)
  const env = await portalEnv(dataDir)
  const base = `http://127.0.0.1:${env.PORT}`
  let portal: Awaited<ReturnType<typeof start>> | undefined
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] })
  try {
    portal = await start(env, base)
    const cookie = await signIn(base, LEARNER, DEMO_PASSWORD)
    const labs = await labsOf(base, cookie)
    console.log(
      `practice in Chromium at 10 Mbit/s (20 ms round trip); ${os.cpus().length} CPUs, ` +
        `load average (1 min) ${os.loadavg()[0].toFixed(2)}; ${RUNS} Runs per lab\n`,
    )
    for (const lab of labs) {
      // a browser asks for brotli over https only, as the portal is served: asked for here over http
      const context = await browser.newContext({ baseURL: base, extraHTTPHeaders: BROTLI })
      const [name, value] = cookie.split('=')
      await context.addCookies([{ name: name!, value: value!, url: base }])
      try {
        const page = await context.newPage()
        page.on('crash', () => console.error(`bench: the page of ${lab.path} crashed`))
        console.log(`${lab.courseTitle} (${lab.path})`)
        const first = await visit(context, page, lab.path)
        if (!first) {
          console.log('  no exercise here runs in the browser (two-session exercises only)')
          continue
        }
        printVisit('first visit ', first, GOALS.first)
        // the next visit opens the copy the first one keeps once it is ready
        await page.waitForFunction(() => performance.getEntriesByName('practice: copy kept').length > 0, undefined, {
          timeout: 60_000,
        })
        const repeat = await visit(context, page, lab.path)
        if (!repeat) throw new Error(`bench: ${lab.path} offered practice once, then not`)
        printVisit('repeat visit', repeat, GOALS.repeat)
        printRuns(await runTimes(page, QUERIES[lab.courseTitle] ?? 'SELECT 1'))
        printReset(await resetTime(page))
      } finally {
        await context.close()
      }
    }
    console.log(`\nload average (1 min) at the end: ${os.loadavg()[0].toFixed(2)}`)
  } finally {
    await browser.close()
    if (portal) await stop(portal.child)
    await rm(dataDir, { recursive: true, force: true })
  }
}

/** The learner's courses with a lab (those assigned directly and through a program), through the API as the learner. */
async function labsOf(base: string, cookie: string): Promise<Lab[]> {
  const get = async <T>(route: string) => {
    const response = await fetch(base + route, { headers: { Cookie: cookie } })
    if (!response.ok) throw new Error(`bench: GET ${route} answered ${response.status}`)
    return (await response.json()) as T
  }
  const { user } = await get<{ user: { _id: string } }>('/api/user/profile')
  const { message } = await get<{ message: { assignedCourses: { _id: string; title: string }[] } }>(
    `/api/category/assignedCourses/${user._id}`,
  )
  const labs: Lab[] = []
  for (const course of message.assignedCourses) {
    const { data } = await get<{ data: { id: string }[] }>(`/api/labs?courseId=${course._id}`)
    for (const lab of data) labs.push({ courseTitle: course.title, path: `/course/${course._id}/lab/${lab.id}` })
  }
  if (!labs.length) throw new Error(`bench: ${LEARNER} has no lab`)
  return labs
}

/**
 * Throttles the page (its workers' requests go through the page's conditions: a worker's own session refuses them)
 * and adds up the bytes the page and every worker it starts receive from the network (a response from the browser's
 * cache counts nothing). A worker is a target of its own for the DevTools protocol, held at its start until its
 * requests are watched.
 */
async function throttled(context: BrowserContext, page: Page) {
  let bytes = 0
  // each request's file (by target, as request ids are the target's), and the bytes each file took
  const urls = new Map<string, string>()
  const files = new Map<string, number>()
  const sent = (target: string, event: { requestId: string; request: { url: string } }) =>
    void urls.set(`${target} ${event.requestId}`, new URL(event.request.url).pathname)
  const count = (target: string, event: { requestId: string; encodedDataLength: number }) => {
    bytes += event.encodedDataLength
    const file = urls.get(`${target} ${event.requestId}`) ?? '?'
    files.set(file, (files.get(file) ?? 0) + event.encodedDataLength)
  }
  const session = await context.newCDPSession(page)
  session.on('Network.requestWillBeSent', (event) => sent('page', event))
  session.on('Network.loadingFinished', (event) => count('page', event))
  await session.send('Network.enable')
  await session.send('Network.emulateNetworkConditions', NETWORK)
  // a worker's session, spoken to through the page's: the protocol's messages as text
  let id = 0
  const toWorker = (sessionId: string, method: string, params: object = {}) =>
    session.send('Target.sendMessageToTarget', {
      sessionId,
      message: JSON.stringify({ id: ++id, method, params }),
    })
  session.on('Target.attachedToTarget', ({ sessionId }) => {
    void (async () => {
      await toWorker(sessionId, 'Network.enable')
      await toWorker(sessionId, 'Runtime.runIfWaitingForDebugger')
    })()
  })
  session.on('Target.receivedMessageFromTarget', ({ sessionId, message }) => {
    const event = JSON.parse(message) as { method?: string; params?: never }
    if (event.method === 'Network.requestWillBeSent' && event.params) sent(sessionId, event.params)
    if (event.method === 'Network.loadingFinished' && event.params) count(sessionId, event.params)
  })
  await session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false })
  return { bytes: () => bytes, files, session }
}

/**
 * Opens the lab page and waits for practice to be ready: the bytes received and the time since the page's start;
 * null for a lab none of whose exercises has Run.
 */
async function visit(context: BrowserContext, page: Page, labPath: string): Promise<Visit | null> {
  const network = await throttled(context, page)
  await page.goto(labPath)
  // Run appears once the page's JavaScript has taken over the server's line about practice
  await page.waitForFunction(
    () => !document.querySelector('[data-testid="practice-status"]')?.textContent?.includes('needs JavaScript'),
    undefined,
    { polling: 20 },
  )
  // a lab of two-session exercises alone has no practice
  const status = page.getByTestId('practice-status')
  if (!(await status.count())) {
    await network.session.detach()
    return null
  }
  // a build older than the page's code (a manifest without a file practice needs) would measure nothing
  const line = (await status.textContent()) ?? ''
  if (line.includes('not available')) throw new Error(`bench: ${labPath} says: ${line.trim()}`)
  await page.waitForFunction(
    () => document.querySelector('[data-testid="practice-status"]')?.textContent?.includes('Practice database ready'),
    undefined,
    { polling: 20, timeout: 180_000 },
  )
  const readyMs = await page.evaluate(() => performance.now())
  const steps = await practiceMarks(page, 0)
  await network.session.detach()
  return { bytes: network.bytes(), files: network.files, readyMs, steps }
}

/** Runs the query in the first exercise RUNS times: click to rows shown, in the page's own clock. */
async function runTimes(page: Page, sql: string): Promise<number[]> {
  const times: number[] = []
  const card = page
    .getByRole('listitem')
    .filter({ has: page.getByRole('button', { name: /^Run/ }) })
    .first()
  await card.locator('textarea[name="sql"]').evaluate((area, text) => {
    ;(area as HTMLTextAreaElement).value = text
  }, sql)
  for (let i = 0; i < RUNS; i++) {
    const ms = await card.evaluate(async (element) => {
      const result = element.querySelector('[data-testid="run-result"]')!
      const button = [...element.querySelectorAll('button')].find((b) => b.textContent?.startsWith('Run'))!
      const started = performance.now()
      // the result goes blank while the Run runs, then shows its rows
      let cleared = !result.textContent
      const shown = new Promise<void>((resolve) => {
        new MutationObserver((_, observer) => {
          if (!result.textContent) cleared = true
          else if (cleared && result.textContent.startsWith('Run:')) {
            observer.disconnect()
            resolve()
          }
        }).observe(result, { subtree: true, childList: true, characterData: true })
      })
      button.click()
      await shown
      return performance.now() - started
    })
    times.push(ms)
  }
  return times
}

/**
 * The steps of opening the page and its worker marked (use-practice-db.ts) after `since` in the page's clock, in
 * order, each with its time since then.
 */
function practiceMarks(page: Page, since: number): Promise<Visit['steps']> {
  return page.evaluate(
    (after) =>
      performance
        .getEntriesByType('mark')
        .filter((entry) => entry.name.startsWith('practice: ') && entry.startTime > after)
        .map((entry) => ({ name: entry.name.slice('practice: '.length), at: entry.startTime - after }))
        .sort((a, b) => a.at - b.at),
    since,
  )
}

/** Reset: the click to "ready" again, the copy opened by a worker whose PostgreSQL is compiled and has run. */
async function resetTime(page: Page): Promise<{ ms: number; steps: Visit['steps'] }> {
  const before = await page.evaluate(() => performance.now())
  await page.getByRole('button', { name: 'Reset' }).click()
  await page.waitForFunction(
    (after) => performance.getEntriesByName('practice: ready').some((entry) => entry.startTime > after),
    before,
    { polling: 20, timeout: 60_000 },
  )
  const steps = await practiceMarks(page, before)
  return { ms: steps.find((s) => s.name === 'ready')?.at ?? NaN, steps }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`

function printVisit(name: string, { bytes, files, readyMs, steps }: Visit, goal: number) {
  console.log(`  ${name}  ${mb(bytes).padStart(9)} downloaded, ready at ${seconds(readyMs)}  (goal ≤ ${seconds(goal)})`)
  // the files that weigh (one downloaded twice counts twice)
  const heavy = [...files].filter(([, size]) => size >= 20_000).sort(([, a], [, b]) => b - a)
  if (heavy.length) console.log(`      ${heavy.map(([file, size]) => `${path.basename(file)} ${mb(size)}`).join(', ')}`)
  printSteps(steps)
}

function printSteps(steps: Visit['steps']) {
  // each step as it ended since the page's start, and how long after the one before
  let before = 0
  for (const { name: step, at } of steps) {
    console.log(`      ${seconds(at).padStart(7)}  +${(at - before).toFixed(0).padStart(5)} ms  ${step}`)
    before = at
  }
}

function printReset({ ms, steps }: { ms: number; steps: Visit['steps'] }) {
  console.log(`  Reset         ready ${ms.toFixed(0)} ms after the click`)
  printSteps(steps)
}

function printRuns(runs: number[]) {
  console.log(
    `  Run           median ${median(runs).toFixed(1)} ms, fastest ${Math.min(...runs).toFixed(1)} ms, ` +
      `slowest ${Math.max(...runs).toFixed(1)} ms  (goal < ${GOALS.run} ms)`,
  )
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})

import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import * as chromeLauncher from 'chrome-launcher'
import lighthouse, { type Flags, type Result } from 'lighthouse'
import { DEMO_PASSWORD } from '#db/seeds/demo-content.ts'
import { buildIfMissing, portalEnv, signIn, start, stop } from '#tests/bench/serve.ts'

// npm run bench:lighthouse: Lighthouse (mobile, its default simulated throttling, performance and
// accessibility) on the landing page (anonymous), My Courses and a video page of one of the demo
// learner's courses (signed in: the session cookie in the browser's jar), against the real
// `portal serve` on a throwaway DATA_DIR, in Debian's Chromium. Figures, never pass/fail; the JSON
// reports go to a temporary folder, whose path is printed.
//
//   LIGHTHOUSE_RUNS=3    runs per page; the row is the run with the median performance score (default 3)
//   CHROMIUM_PATH        the browser (default /usr/bin/chromium), as for the end-to-end suite

const RUNS = Math.max(1, Math.round(Number(process.env.LIGHTHOUSE_RUNS ?? 3)))
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
// headless as root in a container: no sandbox, no GPU, /tmp rather than a small /dev/shm
const CHROMIUM_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage']
const LEARNER = 'learner1'

type Page = { name: string; path: string; cookie?: string }

async function main() {
  await buildIfMissing()
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-lighthouse-data-'))
  await chmod(dataDir, 0o755)
  const reportsDir = await mkdtemp(path.join(os.tmpdir(), 'portal-lighthouse-'))
  const env = await portalEnv(dataDir)
  const base = `http://127.0.0.1:${env.PORT}`
  let portal: Awaited<ReturnType<typeof start>> | undefined
  try {
    portal = await start(env, base)
    const cookie = await signIn(base, LEARNER, DEMO_PASSWORD)
    const pages: Page[] = [
      { name: 'landing /', path: '/' },
      { name: 'My Courses', path: '/courses', cookie },
      { name: 'video page', path: await videoPagePath(base, cookie), cookie },
    ]
    // one unmeasured visit each, so no run pays for the server's first render of a route
    for (const page of pages)
      await fetch(base + page.path, { headers: page.cookie ? { Cookie: page.cookie } : {} }).then((r) =>
        r.arrayBuffer(),
      )

    console.log(
      `Lighthouse in ${CHROMIUM}, mobile with simulated throttling; ` +
        `${RUNS === 1 ? 'one run' : `the median of ${RUNS} runs`} per page; ` +
        `${os.cpus().length} CPUs, load average (1 min) ${os.loadavg()[0].toFixed(2)}`,
    )
    const rows: Row[] = []
    for (const page of pages) {
      const results: Result[] = []
      for (let n = 1; n <= RUNS; n++) {
        const lhr = await audit(base + page.path, page.cookie)
        await writeFile(path.join(reportsDir, `${slug(page.name)}-${n}.json`), JSON.stringify(lhr, null, 2))
        results.push(lhr)
      }
      rows.push(row(page, results))
    }
    printTable(rows)
    console.log(`\nLighthouse ${rows[0].version}; browser ${rows[0].browser}`)
    console.log(`\nJSON reports: ${reportsDir}`)
    console.log(`load average (1 min) at the end: ${os.loadavg()[0].toFixed(2)}`)
  } finally {
    if (portal) await stop(portal.child)
    await rm(dataDir, { recursive: true, force: true })
  }
}

/** A video of the learner's first assigned course that has one, found through the API as the learner. */
async function videoPagePath(base: string, cookie: string) {
  const get = async <T>(route: string) => {
    const response = await fetch(base + route, { headers: { Cookie: cookie } })
    if (!response.ok) throw new Error(`bench: GET ${route} answered ${response.status}`)
    return (await response.json()) as T
  }
  const { user } = await get<{ user: { assignedCourses: string[] } }>('/api/user/profile')
  for (const courseId of user.assignedCourses) {
    const { message } = await get<{ message: { videos: { _id: string }[] } }>(`/api/category/course/${courseId}`)
    if (message.videos.length) return `/course/${courseId}/${message.videos[0]._id}`
  }
  throw new Error(`bench: ${LEARNER} has no assigned course with a video`)
}

/** One Lighthouse run in a fresh Chromium, with the session cookie in its cookie jar when there is one. */
async function audit(url: string, cookie: string | undefined): Promise<Result> {
  const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: CHROMIUM_FLAGS })
  try {
    if (cookie) await setCookie(chrome.port, new URL(url).origin, cookie)
    const flags: Flags = {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility'],
    }
    const result = await lighthouse(url, flags)
    if (!result) throw new Error(`bench: Lighthouse gave no result for ${url}`)
    if (result.lhr.runtimeError) throw new Error(`bench: ${url}: ${result.lhr.runtimeError.message}`)
    return result.lhr
  } finally {
    chrome.kill()
  }
}

/**
 * Puts the session cookie in the browser's jar through the DevTools protocol. Lighthouse's own
 * `extraHeaders: { Cookie }` signs in the page itself but not the page's fetches (Chromium sends the
 * jar's cookies there, so the access-log ping answered 401); Lighthouse leaves cookies in place.
 */
async function setCookie(port: number, origin: string, cookie: string) {
  const { webSocketDebuggerUrl } = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as {
    webSocketDebuggerUrl: string
  }
  const [name, ...value] = cookie.split('=')
  const socket = new WebSocket(webSocketDebuggerUrl)
  try {
    await new Promise<void>((resolve, reject) => {
      socket.onerror = () => reject(new Error('bench: the DevTools connection failed'))
      socket.onopen = () =>
        socket.send(
          JSON.stringify({
            id: 1,
            method: 'Storage.setCookies',
            params: { cookies: [{ name, value: value.join('='), url: origin, httpOnly: true, sameSite: 'Lax' }] },
          }),
        )
      socket.onmessage = (event) => {
        const answer = JSON.parse(String(event.data)) as { id?: number; error?: { message: string } }
        if (answer.id !== 1) return
        if (answer.error) reject(new Error(`bench: setting the session cookie failed: ${answer.error.message}`))
        else resolve()
      }
    })
  } finally {
    socket.close()
  }
}

// ——— figures ———

type Row = {
  page: Page
  scores: number[]
  performance: number
  accessibility: number
  metrics: Record<(typeof METRICS)[number][0], string>
  jsKb: number
  opportunities: string[]
  warnings: string[]
  version: string
  browser: string
}

const METRICS = [
  ['FCP', 'first-contentful-paint'],
  ['LCP', 'largest-contentful-paint'],
  ['TBT', 'total-blocking-time'],
  ['CLS', 'cumulative-layout-shift'],
  ['Speed Index', 'speed-index'],
] as const

/** The run with the median performance score stands for the page. */
function row(page: Page, results: Result[]): Row {
  const score = (lhr: Result) => Math.round((lhr.categories.performance?.score ?? 0) * 100)
  const sorted = [...results].sort((a, b) => score(a) - score(b))
  const lhr = sorted[Math.floor((sorted.length - 1) / 2)]
  const metrics = Object.fromEntries(
    METRICS.map(([label, id]) => [label, lhr.audits[id]?.displayValue ?? 'n/a']),
  ) as Row['metrics']
  return {
    page,
    scores: results.map(score),
    performance: score(lhr),
    accessibility: Math.round((lhr.categories.accessibility?.score ?? 0) * 100),
    metrics,
    jsKb: scriptTransferBytes(lhr) / 1000,
    opportunities: opportunities(lhr),
    warnings: lhr.runWarnings,
    version: lhr.lighthouseVersion,
    browser: lhr.environment.hostUserAgent.match(/(?:Headless)?Chrome\/[\d.]+/)?.[0] ?? lhr.environment.hostUserAgent,
  }
}

function scriptTransferBytes(lhr: Result) {
  const items = (lhr.audits['resource-summary']?.details as { items?: ResourceItem[] } | undefined)?.items ?? []
  return items.find((item) => item.resourceType === 'script')?.transferSize ?? 0
}
type ResourceItem = { resourceType: string; transferSize: number }

/**
 * The three performance audits short of a full score with the largest estimated savings: the time an
 * opportunity or insight says it would save (its own estimate, or the most of its FCP/LCP savings), then
 * the bytes; when fewer than three have an estimate, the lowest-scored of the others follow.
 */
function opportunities(lhr: Result) {
  const refs = lhr.categories.performance?.auditRefs ?? []
  const short = refs
    .map((ref) => ({ audit: lhr.audits[ref.id], group: ref.group }))
    .filter(
      ({ audit: a, group }) =>
        a && a.score !== null && a.score < 1 && (a.details?.type === 'opportunity' || group === 'insights'),
    )
    .map(({ audit: a }) => {
      const details = a.details as { overallSavingsMs?: number; overallSavingsBytes?: number } | undefined
      const ms = Math.max(details?.overallSavingsMs ?? 0, a.metricSavings?.LCP ?? 0, a.metricSavings?.FCP ?? 0)
      return { title: a.title, score: a.score ?? 0, ms, bytes: details?.overallSavingsBytes ?? 0 }
    })
  const estimated = short.filter((o) => o.ms > 0 || o.bytes > 0).sort((a, b) => b.ms - a.ms || b.bytes - a.bytes)
  const others = short.filter((o) => !(o.ms > 0 || o.bytes > 0)).sort((a, b) => a.score - b.score)
  return [...estimated, ...others].slice(0, 3).map((o) => {
    const savings = [o.ms > 0 && `~${o.ms.toFixed(0)} ms`, o.bytes > 0 && `~${(o.bytes / 1000).toFixed(1)} KB`]
    const said = savings.filter(Boolean).join(', ') || `score ${o.score}, no estimate`
    return `${o.title} (${said})`
  })
}

// ——— output ———

function printTable(rows: Row[]) {
  const width = Math.max(4, ...rows.map((r) => r.page.name.length))
  const columns: [string, number][] = [
    ['performance', 11],
    ['runs', Math.max(4, ...rows.map((r) => r.scores.join(' ').length))],
    ['FCP', 7],
    ['LCP', 7],
    ['TBT', 7],
    ['CLS', 6],
    ['Speed Index', 11],
    ['JS KB', 6],
    ['a11y', 4],
  ]
  console.log(`\n${'page'.padEnd(width)} ${columns.map(([name, w]) => name.padStart(w)).join(' ')}`)
  for (const r of rows) {
    const cells = [
      String(r.performance),
      r.scores.join(' '),
      r.metrics.FCP,
      r.metrics.LCP,
      r.metrics.TBT,
      r.metrics.CLS,
      r.metrics['Speed Index'],
      r.jsKb.toFixed(1),
      String(r.accessibility),
    ]
    console.log(`${r.page.name.padEnd(width)} ${cells.map((c, i) => c.padStart(columns[i][1])).join(' ')}`)
  }
  console.log("\nJS KB: JavaScript transferred (compressed), 1,000 bytes; runs: each run's performance score")
  for (const r of rows) {
    console.log(`\n${r.page.name} (${r.page.path}): top opportunities`)
    for (const o of r.opportunities.length ? r.opportunities : ['none with estimated savings']) console.log(`  ${o}`)
    for (const w of r.warnings) console.log(`  warning: ${w}`)
  }
}

const slug = (name: string) =>
  name
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase() || 'page'

await main()

import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { chmod, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import url from 'node:url'
import type pg from 'pg'
import { DEMO_PASSWORD } from '#db/seeds/demo-content.ts'
import { cannon, notOk, type Target } from '#tests/bench/autocannon.ts'
import {
  BENCH_PASSWORD,
  COURSES,
  heartbeat,
  LEARNERS,
  loadDataSet,
  portalDatabase,
  rotate,
  second,
  VIDEO_SECONDS,
  VIDEOS_PER_COURSE,
  type Pair,
} from '#tests/bench/data-set.ts'
import { children, postmasterPid, treeCpuMs } from '#tests/bench/measure.ts'
import {
  buildIfMissing,
  portalEnv,
  printMachine,
  root,
  run,
  signIn,
  start,
  stop,
  waitUntilServing,
} from '#tests/bench/serve.ts'
import { patchedPackages, unpackPublished } from '#tests/patched-packages.ts'
import { freePort } from '#tests/setup/global.ts'

// npm run bench: the real `portal serve` on a fresh DATA_DIR. Prints start-up times, then the ingest
// calls and the pages under load, each beside a floor measured in the same run on the same machine:
//   ingest floor  a bare node:http + pg server running the same single statement per event, no sign-in
//                 (tests/bench/floors/ingest-floor.ts), on the portal's own database;
//   page floor    a one-route Remix 2 hello-world page served by the portal's own web server
//                 (server/app-server.js, same workers, logs and metrics) (tests/bench/floors/remix-hello/).
// Beside req/s and latency: CPU milliseconds per request of the Node server (all its workers) and of PostgreSQL.
// Figures, never pass/fail; BENCH.md says what each row means and keeps the last figures.
//
//   BENCH_SECONDS=5          seconds of each measured load (default 5)
//   BENCH_WARMUP_SECONDS=1   unmeasured load before each, same connections (default 1)
//   BENCH_RUNS=1             measure each row this many times and print the medians (default 1)
//   BENCH_ONLY=heartbeat,mycourses   only these rows (names below, ROW_KEYS); the floors only where needed
//   BENCH_PROFILE=1          one app server process (WEB_CONCURRENCY=1) under --cpu-prof; the profile and the
//                            times of each measured load are written to bench-profiles/ when it stops
//                            (read them with tests/bench/profile-summary.ts)
//   BENCH_COMPARE_PATCHES=1  a second app server on the same database runs the patched packages as published
//                            (patches/, ADR 024); each portal row is measured on both, taking turns, and both
//                            are printed side by side (not with BENCH_PROFILE)

const floorsDir = path.join(root, 'tests', 'bench', 'floors')
const helloDir = path.join(floorsDir, 'remix-hello')
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1)
const RUNS = Math.max(1, Math.round(Number(process.env.BENCH_RUNS ?? 1)))
const PROFILE = Boolean(process.env.BENCH_PROFILE && process.env.BENCH_PROFILE !== '0')
const PROFILE_DIR = path.join(root, 'bench-profiles')
const COMPARE = Boolean(process.env.BENCH_COMPARE_PATCHES && process.env.BENCH_COMPARE_PATCHES !== '0')
/** The published copies of the patched packages: inside node_modules, so that what they require is found. */
const PUBLISHED_DIR = path.join(root, 'node_modules', '.cache', 'bench-published')

/** BENCH_ONLY's names for the rows. */
const ROW_KEYS = [
  'heartbeat',
  'audit',
  'ping',
  'mycourses',
  'course',
  'video',
  'adminusers',
  'accesslog',
  'verify',
] as const
type RowKey = (typeof ROW_KEYS)[number]
const ONLY = parseOnly(process.env.BENCH_ONLY)
const wanted = (key: RowKey) => !ONLY || ONLY.has(key)

function parseOnly(value: string | undefined) {
  if (!value?.trim()) return undefined
  const keys = value.split(',').map((k) => k.trim().toLowerCase())
  const unknown = keys.filter((k) => !(ROW_KEYS as readonly string[]).includes(k))
  if (unknown.length) {
    console.error(`bench: BENCH_ONLY has unknown rows (${unknown.join(', ')}); the rows are ${ROW_KEYS.join(', ')}`)
    process.exit(2)
  }
  return new Set(keys as RowKey[])
}

const INGEST_CONNECTIONS = 100
const PAGE_CONNECTIONS = [10, 50]
const ADMIN_CONNECTIONS = 10

async function main() {
  if (COMPARE && PROFILE) {
    // a profiled server is one process, the published one would be two: their CPU would not compare
    console.error('bench: BENCH_COMPARE_PATCHES and BENCH_PROFILE measure different things; set one of them')
    process.exit(2)
  }
  await buildIfMissing()
  // the page floor is built every time: a second or so, and never stale
  await run(process.execPath, ['node_modules/@remix-run/dev/dist/cli.js', 'build', helloDir], {
    NODE_ENV: 'production',
  })
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-bench-'))
  await chmod(dataDir, 0o755)
  const env = await portalEnv(dataDir)
  const base = `http://127.0.0.1:${env.PORT}`
  const floors: ChildProcess[] = []
  let portal: ChildProcess | undefined
  let publishedPortal: ChildProcess | undefined
  let client: pg.Client | undefined
  let appPid: number | undefined
  const profileRun = path.join(PROFILE_DIR, new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19))
  try {
    const cold = await start(env, base)
    console.log(`start to first served page, fresh DATA_DIR (initdb, migrate, seed): ${cold.ms.toFixed(0)} ms`)
    await stop(cold.child)
    // the profiled server is one process: its workers would each write a profile of their share
    // (NODE_OPTIONS reaches `portal serve` too, and its loader thread: only the app server's profile is kept)
    const warm = await start(
      PROFILE
        ? {
            ...env,
            WEB_CONCURRENCY: '1',
            NODE_OPTIONS: [process.env.NODE_OPTIONS, `--cpu-prof --cpu-prof-dir=${profileRun}`]
              .filter(Boolean)
              .join(' '),
          }
        : env,
      base,
    )
    portal = warm.child
    console.log(`start to first served page, existing DATA_DIR:                    ${warm.ms.toFixed(0)} ms`)

    // this process mints the learners' tokens and reads the database password as the server does
    const database = await portalDatabase(env)
    client = database.client
    const data = await loadDataSet(client)
    const { rows: version } = await client.query<{ server_version: string }>('SHOW server_version')
    printMachine(version[0].server_version)

    const ingest = ingestTargets(data.pairs).filter((target) => wanted(target.key))
    const course = data.courses[0]
    const learner = { Cookie: await signIn(base, 'bench1', BENCH_PASSWORD) }
    const admin = { Cookie: await signIn(base, 'admin', DEMO_PASSWORD) }
    const pages = (
      [
        ['mycourses', `My Courses (${COURSES} courses)`, { path: '/courses', headers: learner }, PAGE_CONNECTIONS],
        ['course', 'course page', { path: `/course/${course.id}`, headers: learner }, PAGE_CONNECTIONS],
        [
          'video',
          'video page',
          { path: `/course/${course.id}/${course.videos[0]}`, headers: learner },
          PAGE_CONNECTIONS,
        ],
        ['adminusers', 'admin Users List', { path: '/admin/users', headers: admin }, [ADMIN_CONNECTIONS]],
        ['accesslog', 'admin access log', { path: '/admin/accesslog', headers: admin }, [ADMIN_CONNECTIONS]],
        // opened cold by employers and link previews: no session, one certificate among the bench's
        ['verify', 'certificate verify page (public)', { path: `/verify/${data.certificateCode}` }, PAGE_CONNECTIONS],
      ] satisfies [RowKey, string, Target, number[]][]
    ).filter(([key]) => wanted(key))

    // each floor only when a row compares with it
    const ingestFloorPort = await freePort()
    const ingestFloor = ingest.length ? await startIngestFloor(database.url, ingestFloorPort) : undefined
    if (ingestFloor) floors.push(ingestFloor)
    const pageFloorPort = await freePort()
    const pageFloor = pages.length ? await startPageFloor(pageFloorPort) : undefined
    if (pageFloor) floors.push(pageFloor)

    const postgres = postmasterPid(dataDir)
    appPid = appServerPid(warm.child.pid as number)
    const published = COMPARE ? await startPublished(env, database.url) : undefined
    publishedPortal = published?.child
    const servers = {
      portal: { base, pid: appPid, postgres },
      published: published && { base: published.base, pid: appServerPid(published.child.pid as number), postgres },
      ingestFloor: { base: `http://127.0.0.1:${ingestFloorPort}`, pid: ingestFloor?.pid ?? 0, postgres },
      pageFloor: { base: `http://127.0.0.1:${pageFloorPort}`, pid: pageFloor?.pid ?? 0, postgres },
    }
    const rssBefore = rss(servers.portal.pid)

    const rows: Row[] = []
    const floorRows: Row[] = []

    console.log(
      `\ningest: ${INGEST_CONNECTIONS} connections rotating over ${LEARNERS} learners × ${VIDEOS_PER_COURSE} videos; ` +
        `pages: one learner with ${COURSES} courses, and the demo admin.\n` +
        'each heartbeat reports the 1 s played since the last one of its pair ([s, s+1), playhead s+1), within ' +
        'the credit;\neach ping is a Video page ping (repeats within 30 s are folded into the last one, as the ' +
        'portal does).\n' +
        `${SECONDS} s each after ${WARMUP_SECONDS} s of warm-up, ${RUNS === 1 ? 'one run' : `median of ${RUNS} runs`}; ` +
        'request logging on, as in production.',
    )
    // with BENCH_COMPARE_PATCHES each portal row is measured on both app servers, taking turns; the
    // ingest calls go on through the same rotation, so each heartbeat still reports the next second
    const portalServers = servers.published ? [servers.portal, servers.published] : [servers.portal]
    for (const target of ingest) {
      const [figures, publishedFigures] = await measureEach(
        portalServers,
        target.portal,
        INGEST_CONNECTIONS,
        target.name,
      )
      const floor = await measure(servers.ingestFloor, target.floor, INGEST_CONNECTIONS)
      rows.push({ name: target.name, connections: INGEST_CONNECTIONS, figures, floor, published: publishedFigures })
      floorRows.push({ name: `ingest floor: ${target.name}`, connections: INGEST_CONNECTIONS, figures: floor })
    }

    const hello: Record<number, Figures> = {}
    for (const connections of new Set(pages.flatMap(([, , , counts]) => counts))) {
      hello[connections] = await measure(servers.pageFloor, { path: '/' }, connections)
      floorRows.push({ name: 'page floor: Remix hello world', connections, figures: hello[connections] })
    }
    for (const [, name, target, connectionCounts] of pages) {
      for (const server of portalServers) await preflight(name, server.base, target)
      for (const connections of connectionCounts) {
        const [figures, publishedFigures] = await measureEach(portalServers, target, connections, name)
        rows.push({ name, connections, figures, floor: hello[connections], published: publishedFigures })
      }
    }

    printTable(rows, floorRows)
    if (COMPARE) printComparison(rows)
    const rssAfter = rss(servers.portal.pid)
    console.log(`\napp server memory (RSS): ${mb(rssBefore)} after start, ${mb(rssAfter)} after the load`)
    console.log(`load average (1 min) at the end: ${os.loadavg()[0].toFixed(2)}`)
  } finally {
    await client?.end().catch(() => undefined)
    for (const floor of floors) await stop(floor)
    if (publishedPortal) await stop(publishedPortal)
    if (COMPARE) await rm(PUBLISHED_DIR, { recursive: true, force: true })
    if (portal) await stop(portal)
    await rm(dataDir, { recursive: true, force: true })
    if (PROFILE) await keepProfile(profileRun, appPid)
  }
}

// ——— profiling (BENCH_PROFILE=1) ———

/** The measured loads of the portal, on the clock of the profile (µs of the monotonic clock). */
const loads: { name: string; connections: number; startUs: number; endUs: number }[] = []

/**
 * Keeps the app server's profile (written by Node as it exited) as portal.cpuprofile beside loads.json,
 * and drops the others (`portal serve` itself and its loader thread, which --cpu-prof profiled too).
 */
async function keepProfile(dir: string, pid: number | undefined) {
  const files = existsSync(dir) ? await readdir(dir) : []
  const mine = files.find((name) => pid !== undefined && name.includes(`.${pid}.0.`))
  for (const name of files) if (name !== mine) await rm(path.join(dir, name))
  if (!mine) {
    console.error('bench: the app server wrote no CPU profile (did it stop on its own?)')
    process.exitCode = 1
    return
  }
  await rename(path.join(dir, mine), path.join(dir, 'portal.cpuprofile'))
  await writeFile(path.join(dir, 'loads.json'), JSON.stringify(loads, null, 2) + '\n')
  console.log(
    `\nCPU profile of the app server: ${path.relative(root, path.join(dir, 'portal.cpuprofile'))}\n` +
      `  npx tsx tests/bench/profile-summary.ts ${path.relative(root, dir)}`,
  )
}

// ——— the ingest targets ———

/**
 * The three ingest calls, each rotating over the (learner, video) pairs; the same body to the portal
 * and to the floor, the portal with the learner's token, the floor with the bare user id.
 *
 * Heartbeats are realistic ones (`heartbeat`, tests/bench/data-set.ts), all within the portal's credit:
 * a 429 would show in the errors column.
 */
function ingestTargets(pairs: Pair[]) {
  const kinds: [RowKey, string, string, (pair: Pair, visit: number) => object][] = [
    ['heartbeat', 'heartbeat (1 s watched)', '/api/category/videoProgress', heartbeat],
    [
      'audit',
      'video audit',
      '/api/category/videoAudit',
      (pair, visit) => ({
        userId: pair.learner.id,
        courseId: pair.courseId,
        videoId: pair.videoId,
        videoDuration: VIDEO_SECONDS,
        videoProgress: second(visit) + 1,
      }),
    ],
    [
      'ping',
      'access-log ping (Video)',
      '/api/user/postAccessLog',
      (pair) => ({
        pageName: 'Video',
        recordedDate: new Date().toISOString(),
        courseId: pair.courseId,
        videoId: pair.videoId,
      }),
    ],
  ]
  return kinds.map(([key, name, route, body]) => {
    // the portal and its floor each walk the pairs from the start, at their own pace
    const portal = rotate(pairs, body, (pair) => pair.learner.token)
    const floor = rotate(pairs, body, (pair) => pair.learner.id)
    return {
      key,
      name,
      portal: { path: route, method: 'POST', next: portal } satisfies Target,
      floor: { path: route, method: 'POST', next: floor } satisfies Target,
    }
  })
}

// ——— measuring ———

type Server = { base: string; pid: number; postgres: number }
type Figures = {
  rps: number
  p50: number
  p95: number
  p99: number
  errors: number
  statuses: Record<string, number>
  nodeCpuMs: number
  pgCpuMs: number
  /** node CPU ms/req of each run, in the order measured */
  nodeCpuRuns: number[]
}
type Row = { name: string; connections: number; figures: Figures; floor?: Figures; published?: Figures }

/** A row's figures; `name` marks a load of the portal, whose times go with its profile. */
async function measure(server: Server, target: Target, connections: number, name?: string): Promise<Figures> {
  const [figures] = await measureEach([server], target, connections, name)
  return figures
}

/**
 * A row's figures on each server: each warmed up, then RUNS loads of each, taking turns (first to last in
 * the odd runs, last to first in the even ones) so that a machine getting busier or quieter weighs on all
 * alike. `name` marks the loads of the first server (the portal), whose times go with its profile.
 */
async function measureEach(servers: Server[], target: Target, connections: number, name?: string) {
  if (WARMUP_SECONDS > 0) for (const server of servers) await load(server, target, connections, WARMUP_SECONDS)
  const runs: Figures[][] = servers.map(() => [])
  for (let i = 0; i < RUNS; i++) {
    const order = servers.map((_, index) => index)
    if (i % 2) order.reverse()
    for (const index of order) {
      const startUs = Number(process.hrtime.bigint() / 1000n)
      runs[index].push(await load(servers[index], target, connections, SECONDS))
      if (name && index === 0)
        loads.push({ name, connections, startUs, endUs: Number(process.hrtime.bigint() / 1000n) })
    }
  }
  return runs.map(summary)
}

/** The medians of a row's runs on one server. */
function summary(runs: Figures[]): Figures {
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p95: median(runs.map((r) => r.p95)),
    p99: median(runs.map((r) => r.p99)),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    statuses: runs.reduce<Record<string, number>>((all, r) => {
      for (const [code, count] of Object.entries(r.statuses)) all[code] = (all[code] ?? 0) + count
      return all
    }, {}),
    nodeCpuMs: median(runs.map((r) => r.nodeCpuMs)),
    pgCpuMs: median(runs.map((r) => r.pgCpuMs)),
    nodeCpuRuns: runs.flatMap((r) => r.nodeCpuRuns),
  }
}

async function load(server: Server, target: Target, connections: number, seconds: number): Promise<Figures> {
  const nodeBefore = treeCpuMs(server.pid)
  const pgBefore = treeCpuMs(server.postgres)
  const { times, result } = await cannon(server.base, target, { connections, duration: seconds })
  const nodeCpuMs = treeCpuMs(server.pid) - nodeBefore
  const pgCpuMs = treeCpuMs(server.postgres) - pgBefore
  const answered = Math.max(1, times.length)
  const statuses = notOk(result)
  return {
    rps: times.length / result.duration,
    p50: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    p99: percentile(times, 0.99),
    errors: result.non2xx + result.errors,
    statuses,
    nodeCpuMs: nodeCpuMs / answered,
    pgCpuMs: pgCpuMs / answered,
    nodeCpuRuns: [nodeCpuMs / answered],
  }
}

/** A page that does not answer 200 before the load is said so; the load runs anyway and counts it. */
async function preflight(name: string, base: string, target: Target) {
  const response = await fetch(base + target.path, { headers: target.headers, redirect: 'manual' })
  if (response.status !== 200) console.log(`note: ${name} (${target.path}) answered ${response.status} before the load`)
  await response.arrayBuffer()
}

const percentile = (sorted: number[], share: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] : 0

function median(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

// ——— the web server’s processes, from /proc ———

/** The web server under `portal serve` (server/app-server.js): the cluster's primary, its workers below it. */
function appServerPid(servePid: number) {
  const pid = children(servePid).find((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('app-server.js'))
  if (!pid) throw new Error('bench: app server process not found')
  return pid
}

/** Resident memory of a server: the process and its workers. */
function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)
  return (line ? Number(line[1]) * 1024 : 0) + children(pid).reduce((sum, child) => sum + rss(child), 0)
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

// ——— output ———

function printTable(rows: Row[], floorRows: Row[]) {
  const width = Math.max(...[...rows, ...floorRows].map((r) => r.name.length))
  const header = [
    'work'.padEnd(width),
    'conns'.padStart(5),
    'req/s'.padStart(7),
    'p50'.padStart(7),
    'p95'.padStart(7),
    'p99'.padStart(7),
    'errors'.padStart(6),
    'floor req/s'.padStart(11),
    'ratio'.padStart(6),
    'node CPU ms/req'.padStart(15),
    'pg CPU ms/req'.padStart(13),
  ].join(' ')
  const line = (row: Row) => {
    const { figures: f, floor } = row
    return [
      row.name.padEnd(width),
      String(row.connections).padStart(5),
      f.rps.toFixed(0).padStart(7),
      f.p50.toFixed(1).padStart(7),
      f.p95.toFixed(1).padStart(7),
      f.p99.toFixed(1).padStart(7),
      String(f.errors).padStart(6),
      (floor ? floor.rps.toFixed(0) : '').padStart(11),
      (floor ? (f.rps / floor.rps).toFixed(2) : '').padStart(6),
      (floor ? `${cpu(f.nodeCpuMs)} / ${cpu(floor.nodeCpuMs)}` : cpu(f.nodeCpuMs)).padStart(15),
      (floor ? `${cpu(f.pgCpuMs)} / ${cpu(floor.pgCpuMs)}` : cpu(f.pgCpuMs)).padStart(13),
    ].join(' ')
  }
  console.log('\nlatency in ms; ratio = portal req/s ÷ floor req/s; CPU columns: portal / floor')
  console.log(header)
  for (const row of rows) console.log(line(row))
  console.log('\nthe floors themselves')
  console.log(header)
  for (const row of floorRows) console.log(line(row))
  const failed = [...rows, ...floorRows].filter((r) => r.figures.errors > 0)
  if (failed.length) {
    console.log('\nerrors (answers other than 2xx, and connection errors):')
    for (const r of failed)
      console.log(
        `  ${r.name}, ${r.connections} connections: ` +
          Object.entries(r.figures.statuses)
            .map(([code, count]) => `${code} × ${count}`)
            .join(', '),
      )
  }
}

const cpu = (ms: number) => ms.toFixed(2)

/** BENCH_COMPARE_PATCHES: each portal row as patched and as published, side by side. */
function printComparison(rows: Row[]) {
  const compared = rows.filter((row): row is Row & { published: Figures } => row.published !== undefined)
  const each = (f: Figures) => `${cpu(f.nodeCpuMs)} (${f.nodeCpuRuns.map(cpu).join(' ')})`
  const width = Math.max(...compared.map((r) => r.name.length))
  const column = Math.max('published'.length, ...compared.map((r) => each(r.published).length))
  console.log(
    '\nthe patched packages (patches/, ADR 024) against the same packages as published, on two app servers\n' +
      'taking turns on each row: node CPU ms/req, median (each run, in the order measured); req/s medians',
  )
  console.log(
    [
      'work'.padEnd(width),
      'conns'.padStart(5),
      'patched'.padEnd(column),
      'published'.padEnd(column),
      'saved'.padStart(12),
      'req/s patched / published'.padStart(25),
    ].join(' '),
  )
  for (const { name, connections, figures: patched, published } of compared) {
    const saved = published.nodeCpuMs - patched.nodeCpuMs
    console.log(
      [
        name.padEnd(width),
        String(connections).padStart(5),
        each(patched).padEnd(column),
        each(published).padEnd(column),
        `${cpu(saved)} ${((saved / published.nodeCpuMs) * 100).toFixed(0)} %`.padStart(12),
        `${patched.rps.toFixed(0)} / ${published.rps.toFixed(0)}`.padStart(25),
      ].join(' '),
    )
  }
}

// ——— processes ———

/** The bare node:http + pg server, on the portal's database, with the same Node. */
async function startIngestFloor(databaseUrl: string, port: number) {
  const child = spawn(process.execPath, [path.join(floorsDir, 'ingest-floor.ts')], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), NODE_ENV: 'production' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve())
    child.once('exit', (code) => reject(new Error(`bench: the ingest floor exited with ${code}`)))
  })
  return child
}

/**
 * A second `portal serve` on the portal's database (its own port, no background jobs: the first one runs
 * them) whose processes load the patched packages as published (tests/bench/published-packages.ts).
 */
async function startPublished(env: NodeJS.ProcessEnv, databaseUrl: string) {
  await rm(PUBLISHED_DIR, { recursive: true, force: true })
  await unpackPublished(PUBLISHED_DIR)
  const hook = url.pathToFileURL(path.join(import.meta.dirname, 'published-packages.ts')).href
  const publishedEnv = {
    ...env,
    DATABASE_URL: databaseUrl,
    PORT: String(await freePort()),
    BENCH_PUBLISHED_DIR: PUBLISHED_DIR,
    NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${hook}`].filter(Boolean).join(' '),
  }
  assertLoadsPublished(publishedEnv)
  const base = `http://127.0.0.1:${publishedEnv.PORT}`
  const { child } = await start(publishedEnv, base, ['--no-workers', '--no-demo'])
  return { child, base }
}

/** A figure of the published packages that was in fact of the patched ones would mislead: check first. */
function assertLoadsPublished(env: NodeJS.ProcessEnv) {
  const script =
    "import { createRequire } from 'node:module'; await import('@remix-run/node'); await import('@remix-run/react');" +
    'console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)))'
  const loaded = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, env, encoding: 'utf8' }),
  ) as string[]
  for (const { name } of patchedPackages()) {
    const from = (folder: string) => loaded.some((file) => file.startsWith(path.join(folder, name) + path.sep))
    if (!from(path.join(PUBLISHED_DIR, 'node_modules')) || from(path.join(root, 'node_modules')))
      throw new Error(`bench: the published app server would not load ${name} as published`)
  }
}

/** The hello-world Remix app, served by the portal's own web server (server/app-server.js) from its own folder. */
async function startPageFloor(port: number) {
  const child = spawn(process.execPath, [path.join(root, 'server', 'app-server.js'), 'build/index.js'], {
    cwd: helloDir,
    env: { ...process.env, PORT: String(port), NODE_ENV: 'production' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  await waitUntilServing(child, `http://127.0.0.1:${port}/`)
  return child
}

await main()

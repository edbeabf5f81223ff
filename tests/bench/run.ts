import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import { DEMO_PASSWORD } from '#db/seeds/demo-content.ts'
import { freePort } from '#tests/setup/global.ts'

// npm run bench: the real `portal serve` on a fresh DATA_DIR. Prints start-up times, then throughput
// and latency of pages and /api calls as ratios to a baseline measured in the same run (the
// healthcheck: one trivial query through the same server). Figures, never pass/fail.

const root = path.resolve(import.meta.dirname, '..', '..')
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10)

async function main() {
  if (!existsSync(path.join(root, 'build', 'index.js')))
    await run(process.execPath, ['node_modules/@remix-run/dev/dist/cli.js', 'build'])
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-bench-'))
  await chmod(dataDir, 0o755)
  const env = {
    ...process.env,
    DATABASE_URL: undefined,
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(await freePort()),
    NODE_ENV: 'production' as const,
    SESSION_SECRET: 'bench-session-secret-0123456789',
    JWT_SECRET: 'bench-jwt-secret-0123456789abcdef',
    BRIDGE_SECRET: 'bench-bridge-secret-0123456789ab',
  }
  const base = `http://127.0.0.1:${env.PORT}`
  try {
    const cold = await start(env, base)
    console.log(`start to first served page, fresh DATA_DIR (initdb, migrate, seed): ${cold.ms.toFixed(0)} ms`)
    await stop(cold.child)
    const warm = await start(env, base)
    console.log(`start to first served page, existing DATA_DIR:                    ${warm.ms.toFixed(0)} ms`)

    const cookie = await signIn(base, 'learner1')
    const token = await apiToken(base, 'learner1')
    const server = appServerPid(warm.child.pid as number)
    const rssBefore = rss(server)

    const auth = { Authorization: `Bearer ${token}` }
    const heartbeat = await firstVideo(base, token)
    const targets: Target[] = [
      { name: 'GET /healthcheck (baseline)', path: '/healthcheck' },
      { name: 'GET /sign-in (SSR, no query)', path: '/sign-in' },
      { name: 'GET /courses (SSR, learner)', path: '/courses', headers: { Cookie: cookie } },
      { name: 'GET /course/{id} (SSR, learner)', path: `/course/${heartbeat.courseId}`, headers: { Cookie: cookie } },
      { name: 'GET /api/user/profile', path: '/api/user/profile', headers: auth },
      {
        // a heartbeat carrying only the playhead: the same single upsert, but no seconds, so the
        // per-video credit (2 s of video per second of wall time) does not answer 429 under the load
        name: 'POST videoProgress (heartbeat)',
        path: '/api/category/videoProgress',
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          courseId: heartbeat.courseId,
          videoId: heartbeat.videoId,
          watched: [],
          position: 1,
        }),
      },
      {
        name: 'POST postAccessLog (ping)',
        path: '/api/user/postAccessLog',
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ pageName: 'My Courses' }),
      },
    ]
    const results = []
    for (const target of targets) results.push({ ...target, ...(await load(base, target)) })
    const baseline = results[0].rps
    console.log(`\n${connections} connections, ${seconds} s each (request logging on, as in production)`)
    console.log(
      'call'.padEnd(34),
      'req/s'.padStart(8),
      'p50 ms'.padStart(8),
      'p99 ms'.padStart(8),
      'vs baseline'.padStart(12),
    )
    for (const r of results) {
      console.log(
        r.name.padEnd(34),
        r.rps.toFixed(0).padStart(8),
        r.p50.toFixed(1).padStart(8),
        r.p99.toFixed(1).padStart(8),
        `${(r.rps / baseline).toFixed(2)}×`.padStart(12),
      )
    }
    const rssAfter = rss(server)
    console.log(`\napp server memory (RSS): ${mb(rssBefore)} after start, ${mb(rssAfter)} after the load`)
    await stop(warm.child)
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
}

async function start(env: NodeJS.ProcessEnv, base: string) {
  const started = performance.now()
  const child = spawn(process.execPath, [path.join(root, 'cli', 'bin.js'), 'serve', '--no-build'], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  for (;;) {
    if (child.exitCode !== null) throw new Error(`portal serve exited with ${child.exitCode}`)
    const ok = await fetch(`${base}/`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) return { child, ms: performance.now() - started }
    await new Promise((r) => setTimeout(r, 20))
  }
}

function stop(child: ChildProcess) {
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGINT')
  })
}

async function signIn(base: string, login: string) {
  const response = await fetch(`${base}/sign-in`, {
    method: 'POST',
    body: new URLSearchParams({ email: login, password: DEMO_PASSWORD }),
    redirect: 'manual',
  })
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('__portal_session='))
  if (!cookie) throw new Error('bench: sign-in failed')
  return cookie.split(';')[0]
}

async function apiToken(base: string, login: string) {
  const response = await fetch(`${base}/api/user/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: login, password: DEMO_PASSWORD }),
  })
  return ((await response.json()) as { token: string }).token
}

type Target = { name: string; path: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }

async function load(base: string, target: Target) {
  const result = await autocannon({
    url: base + target.path,
    connections,
    duration: seconds,
    method: target.method ?? 'GET',
    headers: target.headers ?? {},
    body: target.body,
  })
  if (result.non2xx > 0) throw new Error(`bench: ${target.path} answered ${result.non2xx} non-2xx responses`)
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 }
}

/** learner1's first open video of an assigned course, for the heartbeat figures. */
async function firstVideo(base: string, token: string) {
  const headers = { Authorization: `Bearer ${token}` }
  const profile = (await (await fetch(`${base}/api/user/profile`, { headers })).json()) as {
    user: { assignedCourses: string[] }
  }
  const courseId = profile.user.assignedCourses[0]
  const course = (await (await fetch(`${base}/api/category/course/${courseId}`, { headers })).json()) as {
    message: { videos: { _id: string; prerequisiteVideos: unknown[] }[] }
  }
  const video = course.message.videos.find((v) => v.prerequisiteVideos.length === 0)
  if (!video) throw new Error('bench: no open video for learner1')
  return { courseId, videoId: video._id }
}

/** The remix-serve process under `portal serve` (cli/app-server.js). */
function appServerPid(servePid: number) {
  const children = readFileSync(`/proc/${servePid}/task/${servePid}/children`, 'utf8').trim().split(/\s+/)
  const pid = children.find((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('app-server.js'))
  if (!pid) throw new Error('bench: app server process not found')
  return Number(pid)
}

function rss(pid: number) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)
  return line ? Number(line[1]) * 1024 : 0
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

function run(command: string, args: string[]) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' })
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited with ${code}`))))
  })
}

await main()

import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '#db/client.ts'
import { makeLearner, PASSWORD } from '#tests/factories.ts'
import { parsePage } from '#tests/render.tsx'
import { freePort } from '#tests/setup/global.ts'
import { metricsAllowed } from '../../server/metrics.js'

// The real `portal serve` with two web server workers, on this test file's database: what it logs, what
// /metrics shows and to whom, and a worker that dies being replaced.

const root = path.resolve(import.meta.dirname, '..', '..')
const METRICS_TOKEN = 'metrics-token-for-the-test-0123'
let serve: ChildProcess
let exited: Promise<number | null>
let base: string
let output = ''

beforeAll(async () => {
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  serve = spawn(process.execPath, [path.join(root, 'cli', 'bin.js'), 'serve', '--no-demo', '--no-workers'], {
    cwd: root,
    // every statement counts as slow: the slow-query lines must carry no value either
    env: {
      ...process.env,
      PORT: String(port),
      WEB_CONCURRENCY: '2',
      METRICS_TOKEN,
      SLOW_SQL_MS: '0',
      LOG_LEVEL: 'info',
    },
  })
  exited = new Promise((resolve) => serve.on('exit', resolve))
  const ready = new Promise<void>((resolve) => {
    const read = (data: Buffer) => {
      output += data.toString()
      if (output.includes('The portal is ready')) resolve()
    }
    serve.stdout!.on('data', read)
    serve.stderr!.on('data', read)
  })
  await Promise.race([ready, exited])
  expect(output).toContain('The portal is ready')
}, 300_000)

afterAll(async () => {
  serve.kill('SIGTERM')
  expect(await exited).toBe(0)
})

const logLines = () =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)

/** The request log's line of the request with this id (the app's own lines during it carry the id too). */
const requestLine = (requestId: string | null) =>
  logLines().find((l) => l.msg === 'request' && l.requestId === requestId)

async function until<T>(find: () => T | undefined | Promise<T | undefined>): Promise<T> {
  // a minute: `portal serve` starting its database, workers and web server on a busy machine takes a while
  for (let i = 0; i < 1200; i++) {
    const found = await find()
    if (found !== undefined) return found
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('never happened')
}

const children = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number)

describe('the request log', () => {
  it('is one JSON line per request with its id, route, status, duration and user, and no secret', async () => {
    const learner = await makeLearner()
    const login = await fetch(`${base}/api/user/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: learner.userName, password: PASSWORD }),
    })
    expect(login.status).toBe(200)
    const { token } = (await login.json()) as { token: string }
    const profile = await fetch(`${base}/api/user/profile?token=${token}`, {
      headers: { Authorization: `Bearer ${token}`, 'X-Request-Id': 'profile-call-1' },
    })
    expect(profile.status).toBe(200)
    expect(profile.headers.get('X-Request-Id')).toBe('profile-call-1')
    const reset = await fetch(`${base}/api/user/resetPassword/a-reset-token-in-the-path`, {
      headers: { 'X-Request-Id': 'bad id with spaces' },
    })
    const resetId = reset.headers.get('X-Request-Id')
    expect(resetId).toMatch(/^[0-9a-f-]{36}$/)

    const line = await until(() => requestLine('profile-call-1'))
    expect(line).toMatchObject({
      msg: 'request',
      method: 'GET',
      route: 'routes/api+/user.profile',
      status: 200,
      userId: learner.id,
    })
    expect(line.durationMs).toEqual(expect.any(Number))
    const resetLine = await until(() => requestLine(resetId))
    expect(resetLine).toMatchObject({ route: 'routes/api+/user.resetPassword.$token', status: reset.status })
    expect(resetLine).not.toHaveProperty('userId')

    // the slow-query lines (all of them, at SLOW_SQL_MS=0) name statements by hash, without their values,
    // and the request they ran for
    const slow = logLines().filter((l) => l.msg === 'slow query')
    expect(slow.length).toBeGreaterThan(0)
    expect(slow[0]).toMatchObject({ sqlHash: expect.stringMatching(/^[0-9a-f]{12}$/), durationMs: expect.any(Number) })
    expect(slow.filter((l) => l.requestId === 'profile-call-1').length).toBeGreaterThan(0)
    const { passwordHash } = (await (await db()).User.findByPk(learner.id))!
    for (const secret of [token, PASSWORD, passwordHash!, 'a-reset-token-in-the-path', learner.userName])
      expect(output).not.toContain(secret)
  })
})

describe('static files', () => {
  it('serves the files of public/ and the built assets, and leaves every other path to the app', async () => {
    const favicon = await fetch(`${base}/favicon.svg`)
    expect(favicon.status).toBe(200)
    expect(favicon.headers.get('Content-Type')).toMatch(/^image\/svg\+xml/)
    expect(favicon.headers.get('Cache-Control')).toBe('public, max-age=3600')
    const page = await (await fetch(`${base}/`)).text()
    const script = /<link rel="modulepreload" href="(\/build\/[^"]+\.js)"/.exec(page)?.[1]
    expect(script).toBeDefined()
    const asset = await fetch(`${base}${script}`)
    expect(asset.status).toBe(200)
    expect(asset.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable')
    // a path that is no file of public/ reaches the app, whose 404 page says so
    const missing = await fetch(`${base}/favicon.svg.missing`)
    expect(missing.status).toBe(404)
    expect(missing.headers.get('Content-Type')).toMatch(/^text\/html/)
  })
})

describe('refusals the app does not see', () => {
  it('answers a malformed %-escape with 400: JSON on the /api, a line of text on a page', async () => {
    const api = await fetch(`${base}/api/category/course/%E0%A4%A`)
    expect(api.status).toBe(400)
    expect(await api.json()).toEqual({ message: 'The address could not be read: it has a malformed %-escape.' })
    const page = await fetch(`${base}/course/%E0%A4%A`)
    expect(page.status).toBe(400)
    expect(await page.text()).toBe('The address could not be read: it has a malformed %-escape.')
  })

  it('refuses a page form sent from another site with 403 and a page that says why', async () => {
    for (const origin of ['https://elsewhere.example', 'null']) {
      const response = await fetch(`${base}/sign-in`, {
        method: 'POST',
        headers: { Origin: origin, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'email=learner1&password=wrong',
        redirect: 'manual',
      })
      expect(response.status, origin).toBe(403)
      const page = parsePage(await response.text())
      expect(page.getByRole('heading', { level: 1, name: 'This form was sent from another site' })).toBeVisible()
      expect(
        page.getByText(/^The portal accepts its forms only from its own pages, so nothing was changed\./),
      ).toBeVisible()
      expect(page.getByRole('link', { name: 'Go to the portal' })).toHaveAttribute('href', '/')
    }
    // the portal's own origin is still welcome
    const own = await fetch(`${base}/sign-in`, {
      method: 'POST',
      headers: { Origin: base, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'email=learner1&password=wrong',
      redirect: 'manual',
    })
    expect(own.status).not.toBe(403)
    expect(own.status).toBeLessThan(500)
  })
})

describe('/metrics', () => {
  it('shows request durations by route, the database pool and event-loop lag of both workers, to loopback', async () => {
    // a request is counted when its response has gone, as its log line is written: wait for that line
    await fetch(`${base}/healthcheck`, { headers: { 'X-Request-Id': 'metrics-health-1' } })
    await until(() => requestLine('metrics-health-1'))
    const response = await fetch(`${base}/metrics`)
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toMatch(/^text\/plain/)
    const text = await response.text()
    expect(text).toMatch(
      /^http_request_duration_seconds_bucket\{.*route="routes\/healthcheck".*status="2xx".*\} [1-9]/m,
    )
    // DB_POOL_MAX (10) shared by the two workers, added up again
    expect(text).toMatch(/^portal_db_pool_connections\{state="max"\} 10$/m)
    // the pool the app's routes use, as its build reports it: the health check's statement opened a connection
    expect(text).toMatch(/^portal_db_pool_connections\{state="size"\} [1-9]\d*$/m)
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m)
  })

  it('refuses what comes through a proxy or from another host, unless it brings METRICS_TOKEN', async () => {
    const forwarded = await fetch(`${base}/metrics`, { headers: { 'X-Forwarded-For': '203.0.113.9' } })
    expect(forwarded.status).toBe(403)
    const wrong = await fetch(`${base}/metrics`, {
      headers: { 'X-Forwarded-For': '203.0.113.9', Authorization: 'Bearer not-the-token-at-all-0123456' },
    })
    expect(wrong.status).toBe(403)
    const right = await fetch(`${base}/metrics`, {
      headers: { 'X-Forwarded-For': '203.0.113.9', Authorization: `Bearer ${METRICS_TOKEN}` },
    })
    expect(right.status).toBe(200)
    expect(await right.text()).toContain('http_request_duration_seconds')

    expect(metricsAllowed({ remoteAddress: '10.0.0.7', headers: {} }, undefined)).toBe(false)
    expect(metricsAllowed({ remoteAddress: '::ffff:127.0.0.1', headers: {} }, undefined)).toBe(true)
    expect(
      metricsAllowed(
        { remoteAddress: '10.0.0.7', headers: { authorization: `Bearer ${METRICS_TOKEN}` } },
        METRICS_TOKEN,
      ),
    ).toBe(true)
    expect(metricsAllowed({ remoteAddress: '10.0.0.7', headers: { authorization: 'Bearer ' } }, '')).toBe(false)

    // a real client on another address of this host, when it has one
    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)
    if (external) {
      const url = base.replace('127.0.0.1', external.address)
      expect((await fetch(`${url}/metrics`)).status).toBe(403)
      expect((await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(
        200,
      )
    }
  })
})

describe('WEB_CONCURRENCY=2', () => {
  it('runs two workers on the one port and replaces one that is killed', async () => {
    const [primary] = children(serve.pid!).filter((p) =>
      readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('app-server.js'),
    )
    const workers = children(primary)
    expect(workers).toHaveLength(2)
    // each on a connection of its own: the primary hands connections to the workers in turn
    let sent = 0
    const servedBy = async () => {
      const id = `spread-${++sent}`
      await new Promise((resolve, reject) =>
        http
          .get(`${base}/healthcheck`, { agent: false, headers: { 'X-Request-Id': id } }, (r) =>
            r.resume().on('end', resolve),
          )
          .on('error', reject),
      )
      return (await until(() => requestLine(id))).pid as number
    }
    const served = new Set<number>()
    for (let i = 0; i < 40 && served.size < 2; i++) served.add(await servedBy())
    expect([...served].sort()).toEqual([...workers].sort())

    process.kill(workers[0], 'SIGKILL')
    const replaced = await until(() => {
      const now = children(primary)
      return now.length === 2 && !now.includes(workers[0]) ? now : undefined
    })
    expect(replaced).toContain(workers[1])
    await until(() => logLines().find((l) => l.msg === 'a web server worker stopped; restarting it'))
    // the new worker serves
    const newcomer = replaced.find((p) => p !== workers[1])!
    expect(await until(async () => ((await servedBy()) === newcomer ? true : undefined))).toBe(true)
  })
})

describe('a port that is taken', () => {
  it('stops `portal serve` with the reason instead of restarting workers forever', { timeout: 120_000 }, async () => {
    const blocker = net.createServer()
    const taken = await freePort()
    await new Promise<void>((r) => blocker.listen(taken, r))
    try {
      const child = spawn(process.execPath, [path.join(root, 'cli', 'bin.js'), 'serve', '--no-build', '--no-demo'], {
        cwd: root,
        env: { ...process.env, PORT: String(taken), WEB_CONCURRENCY: '2' },
      })
      let all = ''
      child.stdout.on('data', (d: Buffer) => (all += d.toString()))
      child.stderr.on('data', (d: Buffer) => (all += d.toString()))
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
      expect(code).toBe(1)
      expect(all).toContain('EADDRINUSE')
      expect(all).toContain('The app server stopped unexpectedly (exit code 1).')
      expect(all).not.toContain('restarting it')
    } finally {
      blocker.close()
    }
  })
})

describe('a `portal serve` killed outright', () => {
  it('takes its web server primary and workers with it', { timeout: 120_000 }, async () => {
    const port = await freePort()
    const child = spawn(process.execPath, [path.join(root, 'cli', 'bin.js'), 'serve', '--no-build', '--no-demo'], {
      cwd: root,
      env: { ...process.env, PORT: String(port), WEB_CONCURRENCY: '2' },
    })
    let all = ''
    child.stdout.on('data', (d: Buffer) => (all += d.toString()))
    await until(() => (all.includes('The portal is ready') ? true : undefined))
    const [primary] = children(child.pid!).filter((p) =>
      readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('app-server.js'),
    )
    const servers = [primary, ...children(primary)]
    expect(servers).toHaveLength(3)
    child.kill('SIGKILL')
    const alive = (pid: number) => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
      } catch {
        return false
      }
    }
    await until(() => (servers.some(alive) ? undefined : true))
    await expect(fetch(`http://127.0.0.1:${port}/healthcheck`)).rejects.toMatchObject({
      cause: { code: 'ECONNREFUSED' },
    })
  })
})

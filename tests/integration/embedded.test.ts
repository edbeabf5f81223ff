import { spawn, type ChildProcess } from 'node:child_process'
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DatabaseStartError, openEmbeddedDatabase, runningPostmaster, type EmbeddedHandle } from '#db/embedded.ts'
import { freePort } from '#tests/setup/global.ts'

// The embedded PostgreSQL's life: first start, restart with the data kept, recovery from a crash
// (a stale lock file, a postmaster left running), and the clear one-line errors when it cannot start.

const root = path.resolve(import.meta.dirname, '..', '..')
const password = 'embedded-test-secret'
let dataDir: string
let port: number

const open = (options: { mode?: 'own' | 'share'; port?: number; dir?: string; log?: (l: string) => void } = {}) =>
  openEmbeddedDatabase({
    dataDir: options.dir ?? dataDir,
    port: options.port ?? port,
    password,
    mode: options.mode ?? 'own',
    fast: true,
    log: options.log,
  })

async function query(handle: EmbeddedHandle, sql: string) {
  const client = new pg.Client({ connectionString: handle.url })
  await client.connect()
  try {
    return (await client.query(sql)).rows
  } finally {
    await client.end()
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Another process that opens the database as its owner, as `portal serve` does. */
function ownerProcess(): Promise<ChildProcess> {
  const code = `
    const { openEmbeddedDatabase } = await import('#db/embedded.ts')
    await openEmbeddedDatabase(${JSON.stringify({ dataDir: '__DIR__', port: 0, password, mode: 'own', fast: true })})
    console.log('ready')
    setInterval(() => {}, 60_000)`
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      code.replace('__DIR__', dataDir).replace('"port":0', `"port":${port}`),
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  return new Promise((resolve, reject) => {
    let err = ''
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && resolve(child))
    child.on('exit', (code) => reject(new Error(`owner exited with ${code}: ${err}`)))
  })
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-embedded-'))
  await chmod(dataDir, 0o755)
  port = await freePort()
})

afterAll(async () => {
  const running = await runningPostmaster(path.join(dataDir, 'postgres'))
  if (running) process.kill(running.pid, 'SIGINT')
  await rm(dataDir, { recursive: true, force: true })
})

describe('the embedded PostgreSQL', () => {
  it('creates a cluster on first start and keeps its data across a restart', async () => {
    const first = await open()
    await query(first, 'CREATE TABLE kept (note text); INSERT INTO kept VALUES ($$still here$$)')
    await first.stop()
    expect(await runningPostmaster(path.join(dataDir, 'postgres'))).toBeUndefined()

    const second = await open()
    expect(await query(second, 'SELECT note FROM kept')).toEqual([{ note: 'still here' }])
    await second.stop()
  })

  it('removes a stale postmaster.pid left by a crash and starts', async () => {
    // a pid that is certainly not running: a process that has already exited
    const gone = spawn(process.execPath, ['-e', '0'])
    await new Promise((r) => gone.on('exit', r))
    await writeFile(path.join(dataDir, 'postgres', 'postmaster.pid'), `${gone.pid}\n${dataDir}\n0\n${port}\n`)
    const handle = await open()
    expect(await query(handle, 'SELECT count(*)::int AS n FROM kept')).toEqual([{ n: 1 }])
    await handle.stop()
  })

  it('refuses a second owner while the first lives, lets the CLI share it, and adopts it after a crash', async () => {
    const owner = await ownerProcess()
    try {
      await expect(open()).rejects.toThrow(/in use by another portal process/)
      // the CLI attaches to the running server without owning it
      const shared = await open({ mode: 'share' })
      expect(shared.owned).toBe(false)
      expect(await query(shared, 'SELECT count(*)::int AS n FROM kept')).toEqual([{ n: 1 }])
      await shared.stop()
      expect(await runningPostmaster(path.join(dataDir, 'postgres'))).toBeDefined()
    } finally {
      owner.kill('SIGKILL')
      await new Promise((r) => owner.once('exit', r))
    }
    // the owner died without stopping the postmaster: the next start adopts it and stops it later
    const left = await runningPostmaster(path.join(dataDir, 'postgres'))
    expect(left).toBeDefined()
    const lines: string[] = []
    const adopted = await open({ log: (l) => lines.push(l) })
    expect(lines.join('\n')).toMatch(/Adopting the PostgreSQL server left running/)
    expect(await query(adopted, 'SELECT count(*)::int AS n FROM kept')).toEqual([{ n: 1 }])
    await adopted.stop()
    expect(alive(left!.pid)).toBe(false)
  })

  it('says in one line what to do when the port is taken', async () => {
    const blocker = net.createServer()
    const taken = await freePort()
    await new Promise<void>((r) => blocker.listen(taken, '127.0.0.1', r))
    try {
      const error = await open({ port: taken }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(DatabaseStartError)
      expect((error as Error).message).toMatch(/Port \d+ .* is taken .* set EMBEDDED_PG_PORT/)
      expect((error as Error).message).not.toContain('\n')
    } finally {
      blocker.close()
    }
  })

  it('says what to do with a folder that holds files but no database', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-embedded-junk-'))
    await mkdir(path.join(dir, 'postgres'))
    await writeFile(path.join(dir, 'postgres', 'stray.txt'), 'not a database')
    const error = await open({ dir, port: await freePort() }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DatabaseStartError)
    expect((error as Error).message).toMatch(/not empty but holds no database.*move or delete it/)
    await rm(dir, { recursive: true, force: true })
  })
})

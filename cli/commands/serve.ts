import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { Command } from 'commander'
import { CONSOLE_LOG, startJobWorkers, type JobWorkers } from '#app/modules/jobs/runner.server.ts'
import { getCertificateSigningKey, getEnv, getSecrets } from '#app/utils/env.server.ts'
import { connect, disconnect } from '#db/client.ts'
import { migrate } from '#db/migrate.ts'
import { seedDemoOnce } from '#db/seeds/demo.ts'
import { printDemoAccounts } from '../demo.ts'

const require = createRequire(import.meta.url)

/** The `remix` command as @remix-run/dev declares it in its package.json (`bin`), not a path inside the package. */
function remixBin() {
  const manifest = require.resolve('@remix-run/dev/package.json')
  const { bin } = require(manifest) as { bin: { remix: string } }
  return path.join(path.dirname(manifest), bin.remix)
}
const root = path.resolve(import.meta.dirname, '..', '..')
/** What server/build-practice.js writes last (not imported from it: it needs esbuild, which a built image lacks). */
const PRACTICE_MANIFEST = path.join(root, 'public', 'build', 'practice', 'manifest.json')

export function registerServe(program: Command) {
  program
    .command('serve')
    .description('build if needed, start the database, migrate, seed the demo once, and serve (npm start)')
    .option('--no-build', 'serve the existing build as it is')
    .option('--no-demo', 'do not seed the demo content into a fresh database')
    .option('--no-workers', 'serve the web only; background jobs run in `portal worker` processes elsewhere')
    .action(async (options: ServeOptions) => serve(options))
}

type ServeOptions = { build: boolean; demo: boolean; workers: boolean }

async function serve(options: ServeOptions) {
  const started = performance.now()
  const env = getEnv()
  // secrets come from the environment or DATA_DIR/secrets.json; production refuses to run without them
  const secrets = getSecrets()
  if (options.build && buildIsStale()) {
    console.log('Building the app…')
    await run(process.execPath, [remixBin(), 'build'])
    await run(process.execPath, [path.join(root, 'server', 'build-practice.js')])
  }

  // an embedded database is stopped by this process, after the web server has drained (ADR 026)
  const { sequelize, embedded } = await connect({ mode: 'own', log: (line) => console.log(line) })
  const applied = await migrate(sequelize)
  if (applied.length) console.log(`Database migrated (${applied.join(', ')}).`)
  if (options.demo) await seedDemoOnce((line) => console.log(line))
  // background jobs (queued mail, imports, scheduled exports and backups, housekeeping) run here unless they run in
  // `portal worker` processes of their own
  const workers: JobWorkers | undefined = options.workers ? await startJobWorkers({ log: CONSOLE_LOG }) : undefined
  if (!workers) console.log('Background jobs are not run here (--no-workers): run `portal worker` beside it.')

  const server = spawn(
    process.execPath,
    [path.join(root, 'server', 'app-server.js'), path.join(root, 'build', 'index.js')],
    {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: process.env.NODE_ENV ?? 'production',
        // the web server connects where this process did and never starts or adopts a database itself
        DATABASE_URL: embedded?.url ?? env.DATABASE_URL,
        PORT: String(env.PORT),
        SESSION_SECRET: secrets.sessionSecret,
        JWT_SECRET: secrets.jwtSecret,
        BRIDGE_SECRET: secrets.bridgeSecret,
        // one certificate signing key for every web worker (made here once if the data folder has none)
        CERTIFICATE_SIGNING_KEY: getCertificateSigningKey(),
      },
      // the IPC channel only tells the child when this process is gone (server/app-server.js)
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  )

  let stopping = false
  const stop = async (code: number) => {
    if (stopping) return
    stopping = true
    const delay = env.DRAIN_DELAY_SECONDS > 0 ? `takes connections for ${env.DRAIN_DELAY_SECONDS} s more, then ` : ''
    console.log(
      `Stopping: the web server ${delay}finishes the requests in flight and the workers their jobs (at most ${env.DRAIN_SECONDS} s), then the database stops.`,
    )
    // the jobs in hand finish or go back to the queue while the web server drains, both before the database stops
    await Promise.all([
      workers?.stop(env.DRAIN_SECONDS),
      stopChild(server, (env.DRAIN_DELAY_SECONDS + env.DRAIN_SECONDS + 10) * 1000),
    ])
    await disconnect()
    process.exit(code)
  }
  process.on('SIGINT', () => void stop(0))
  process.on('SIGTERM', () => void stop(0))
  // a postmaster that dies (kill -9, the out-of-memory killer) is started again; the web server's pool
  // reconnects by itself, and answers 503 meanwhile
  embedded?.keepRunning({
    log: (line) => console.error(line),
    gaveUp: (error) => {
      console.error(`PostgreSQL could not be started again (${error.message}); stopping the portal.`)
      void stop(1)
    },
  })
  // Under `npm start` a SIGTERM sent to npm reaches only the `sh -c` between npm and this process,
  // and the shell dies without passing it on: stop as well when the process that started us is gone.
  if (process.env.npm_lifecycle_event) {
    const parent = process.ppid
    setInterval(() => process.ppid !== parent && void stop(0), 1000).unref()
  }
  server.on('exit', (code) => {
    if (!stopping) {
      console.error(`The app server stopped unexpectedly (exit code ${code}).`)
      void stop(code || 1)
    }
  })

  if (await waitUntilServing(env.PORT, server)) {
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    console.log(`\nThe portal is ready at ${env.PUBLIC_URL} (started in ${seconds} s). Press Ctrl+C to stop.`)
    if (options.demo) printDemoAccounts()
  }
}

/** The build is stale when a source file is newer than build/index.js, or the lab pages' practice files are missing. */
function buildIsStale() {
  const built = path.join(root, 'build', 'index.js')
  if (!existsSync(built) || !existsSync(PRACTICE_MANIFEST)) return true
  const builtAt = statSync(built).mtimeMs
  const newer = (entry: string): boolean => {
    const info = statSync(entry)
    if (info.isDirectory()) return readdirSync(entry).some((name) => newer(path.join(entry, name)))
    return info.mtimeMs > builtAt
  }
  return ['app', 'db', 'remix.config.js', 'tailwind.config.ts', 'package-lock.json']
    .map((p) => path.join(root, p))
    .filter(existsSync)
    .some(newer)
}

function run(command: string, args: string[]) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } })
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(args[0] ?? command)} exited with ${code}`)),
    )
  })
}

async function waitUntilServing(port: number, server: ChildProcess) {
  for (let i = 0; i < 600 && server.exitCode === null; i++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`)
      if (response.ok) return true
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return false
}

function stopChild(child: ChildProcess, graceMs: number) {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

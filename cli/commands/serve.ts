import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { Command } from 'commander'
import { startExportScheduler } from '#app/modules/exports/scheduler.server.ts'
import { sweepUnattachedFiles, UNATTACHED_FILE_LIFETIME_MS } from '#app/modules/files/service.server.ts'
import { startMailSender } from '#app/modules/mail/sender.server.ts'
import { getEnv, getSecrets } from '#app/utils/env.server.ts'
import { errorLine } from '#app/utils/redact.server.ts'
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

export function registerServe(program: Command) {
  program
    .command('serve')
    .description('build if needed, start the database, migrate, seed the demo once, and serve (npm start)')
    .option('--no-build', 'serve the existing build as it is')
    .option('--no-demo', 'do not seed the demo content into a fresh database')
    .option('--no-exports', 'do not run scheduled exports here (run `portal exports run-due` from cron instead)')
    .option('--no-mail-queue', 'do not send queued mail here (run `portal mail send-due` from cron instead)')
    .action(async (options: ServeOptions) => serve(options))
}

type ServeOptions = { build: boolean; demo: boolean; exports: boolean; mailQueue: boolean }

async function serve(options: ServeOptions) {
  const started = performance.now()
  const env = getEnv()
  // secrets come from the environment or DATA_DIR/secrets.json; production refuses to run without them
  const secrets = getSecrets()
  if (options.build && buildIsStale()) {
    console.log('Building the app…')
    await run(process.execPath, [remixBin(), 'build'])
  }

  // an embedded database is stopped by this process, after the web server has drained (ADR 026)
  const { sequelize, embedded } = await connect({ mode: 'own', log: (line) => console.log(line) })
  const applied = await migrate(sequelize)
  if (applied.length) console.log(`Database migrated (${applied.join(', ')}).`)
  if (options.demo) await seedDemoOnce((line) => console.log(line))
  // uploads never attached to a course, program or assessment: swept now and every hour after
  const sweep = () =>
    sweepUnattachedFiles({ olderThanMs: UNATTACHED_FILE_LIFETIME_MS }).then(
      (count) => count > 0 && console.log(`Removed ${count} unattached upload(s).`),
      (error: unknown) => console.error(`Sweeping unattached uploads failed: ${errorLine(error)}`),
    )
  void sweep()
  const sweeper = setInterval(() => void sweep(), 60 * 60 * 1000)
  sweeper.unref()
  // scheduled exports: a slot missed while the portal was down now, then every minute; queued mail (the
  // invitations of an import): sent now, then every few seconds. A deployment that runs them from its own
  // scheduler instead (`portal exports run-due`, `portal mail send-due`) turns them off here.
  const exportScheduler = options.exports ? startExports() : undefined
  if (!exportScheduler)
    console.log('Scheduled exports are not run here (--no-exports): run `portal exports run-due` from cron.')
  const mailSender = options.mailQueue ? startMailQueue() : undefined
  if (!mailSender) console.log('Queued mail is not sent here (--no-mail-queue): run `portal mail send-due` from cron.')

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
      `Stopping: the web server ${delay}finishes the requests in flight (at most ${env.DRAIN_SECONDS} s), then the database stops.`,
    )
    clearInterval(sweeper)
    // an export still running is stopped and recorded while the database is still there
    await exportScheduler?.stop()
    await mailSender?.stop()
    await stopChild(server, (env.DRAIN_DELAY_SECONDS + env.DRAIN_SECONDS + 10) * 1000)
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

function startExports() {
  return startExportScheduler({
    run: (run) =>
      run.status === 'succeeded'
        ? console.log(`Scheduled export ${run.scheduleName}: ${run.rows} rows to ${run.location}.`)
        : console.error(`Scheduled export ${run.scheduleName} failed: ${run.error}`),
    error: (error: unknown) => console.error(`Looking for due exports failed: ${errorLine(error)}`),
  })
}

/** Queued mail at MAIL_RATE_PER_MINUTE, counted over every process on the database. */
function startMailQueue() {
  return startMailSender({
    sent: (r) => {
      const parts = [`${r.sent} sent`]
      if (r.cancelled) parts.push(`${r.cancelled} no longer needed`)
      if (r.retrying) parts.push(`${r.retrying} to retry`)
      if (r.failed) parts.push(`${r.failed} failed for good`)
      if (r.waiting) parts.push(`${r.waiting} waiting`)
      const line = `Mail queue: ${parts.join(', ')}.`
      if (r.retrying || r.failed) console.error(`${line} Last error: ${r.errors.at(-1)}`)
      else console.log(line)
    },
    error: (error: unknown) => console.error(`Sending queued mail failed: ${errorLine(error)}`),
  })
}

/** The build is stale when a source file is newer than build/index.js. */
function buildIsStale() {
  const built = path.join(root, 'build', 'index.js')
  if (!existsSync(built)) return true
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

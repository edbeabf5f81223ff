import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '#tests/setup/global.ts'

// What the benches share: the built portal under `portal serve --no-build` on a throwaway DATA_DIR and
// free ports, started, waited for, signed in to and stopped.

export const root = path.resolve(import.meta.dirname, '..', '..')

/** Builds the app unless a build is there already, with the lab pages' practice files. */
export async function buildIfMissing() {
  if (!existsSync(path.join(root, 'build', 'index.js')))
    await run(process.execPath, ['node_modules/@remix-run/dev/dist/cli.js', 'build'])
  // the lab pages' practice files, which `remix build` alone does not make
  if (!existsSync(path.join(root, 'public', 'build', 'practice', 'manifest.json')))
    await run(process.execPath, ['server/build-practice.js'])
}

/** The environment of a production `portal serve` on its own data folder, ports and secrets. */
export async function portalEnv(dataDir: string) {
  return {
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
}

/** Starts `portal serve --no-build` (and `options`) and waits for its first served page. */
export async function start(env: NodeJS.ProcessEnv, base: string, options: string[] = []) {
  const started = performance.now()
  const child = spawn(process.execPath, [path.join(root, 'cli', 'bin.js'), 'serve', '--no-build', ...options], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  await waitUntilServing(child, `${base}/`)
  return { child, ms: performance.now() - started }
}

export async function waitUntilServing(child: ChildProcess, url: string) {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bench: ${child.spawnargs.join(' ')} exited with ${child.exitCode}`)
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) return
    await new Promise((r) => setTimeout(r, 20))
  }
}

export function stop(child: ChildProcess) {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGINT')
  })
}

/** Signs in through the sign-in form and answers the session cookie (`name=value`). */
export async function signIn(base: string, login: string, password: string) {
  const response = await fetch(`${base}/sign-in`, {
    method: 'POST',
    body: new URLSearchParams({ email: login, password }),
    redirect: 'manual',
  })
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('__portal_session='))
  if (!cookie) throw new Error(`bench: sign-in as ${login} failed (${response.status})`)
  return cookie.split(';')[0]
}

export function run(command: string, args: string[], extraEnv: Record<string, string> = {}) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...extraEnv } })
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited with ${code}`))))
  })
}

/** One line saying what machine the figures were measured on, and how busy it was. */
export function printMachine(postgresVersion: string) {
  const cpus = os.cpus()
  console.log(
    `machine: ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ` +
      `${(os.totalmem() / 1024 ** 3).toFixed(1)} GB memory, ${os.type()} ${os.release()}, ` +
      `Node ${process.version}, PostgreSQL ${postgresVersion}; load average (1 min) ${os.loadavg()[0].toFixed(2)}`,
  )
}

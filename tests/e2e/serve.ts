import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import path from 'node:path'

// Playwright's web server: a fresh DATA_DIR every run, then the real `portal serve` on the build.
const dataDir = process.env.DATA_DIR
if (!dataDir || !dataDir.includes('portal-e2e')) throw new Error('tests/e2e/serve.ts needs a throwaway DATA_DIR')
rmSync(dataDir, { recursive: true, force: true })

const root = path.resolve(import.meta.dirname, '..', '..')
const child = spawn(process.execPath, [path.join(root, 'cli', 'bin.js'), 'serve', '--no-build'], {
  cwd: root,
  stdio: 'inherit',
  env: process.env,
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal))
child.on('exit', (code) => {
  rmSync(dataDir, { recursive: true, force: true })
  process.exit(code ?? 0)
})

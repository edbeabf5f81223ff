import { exec } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { filesOfPatch, patchedPackages, root, unpackPublished } from '#tests/patched-packages.ts'

// The patches to the router (patches/, ADR 024) are applied by package.json's postinstall on every install. A
// release of a patched package can change the lines a patch expects: the install must then fail, naming the
// package, rather than leave the server on the published code with a warning nobody reads. Here the same
// command runs in a folder of its own, on the published copies of the packages, never on the real node_modules.

const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
}
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; dependencies?: Record<string, string> }>
}
const packages = patchedPackages()

let work: string
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'portal-patches-'))
  await unpackPublished(path.join(work, 'published'), packages)
})
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true })
})

let apps = 0
/** A folder with the portal's package.json, lock and patches, and the published packages in its node_modules. */
async function freshApp() {
  const app = path.join(work, `app-${++apps}`)
  for (const file of ['package.json', 'package-lock.json']) await cp(path.join(root, file), path.join(app, file))
  await cp(path.join(root, 'patches'), path.join(app, 'patches'), { recursive: true })
  await cp(path.join(work, 'published', 'node_modules'), path.join(app, 'node_modules'), { recursive: true })
  return app
}

/** Runs a command as npm runs a script: through the shell, with the project's tools on the PATH. */
function runScript(command: string, cwd: string) {
  // patch-package turns --error-on-fail on by itself when NODE_ENV is `test` (vitest's) or on CI: neither
  // here, so what fails here is what fails a developer's `npm ci`
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    PATH: `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}`,
    PATCH_PACKAGE_INTEGRATION_TEST: '1',
  }
  return new Promise<{ code: number; output: string }>((resolve) => {
    exec(command, { cwd, env }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: stdout + stderr }),
    )
  })
}

/** The patch with the first line of context of its first hunk changed, as a new release might change it. */
function stale(patch: string) {
  const lines = patch.split('\n')
  const hunk = lines.findIndex((line) => line.startsWith('@@'))
  const context = lines.findIndex((line, i) => i > hunk && line.startsWith(' ') && line.trim() !== '')
  lines[context] = `${lines[context]} // changed by a later release`
  return lines.join('\n')
}

describe('the patched packages', () => {
  it('are pinned, in the dependencies production installs, to the version each patch was made for', () => {
    expect(packages.map((p) => p.name)).toEqual(['@remix-run/react', '@remix-run/router', 'react-router-dom'])
    for (const { name, version } of packages) {
      expect(manifest.dependencies[name], name).toBe(version)
      expect(manifest.devDependencies[name], name).toBeUndefined()
      expect(lock.packages[''].dependencies?.[name], name).toBe(version)
      // one copy: patch-package patches node_modules/<name> only, so a nested copy would run unpatched
      const copies = Object.keys(lock.packages).filter((key) => key.endsWith(`node_modules/${name}`))
      expect(copies, name).toEqual([`node_modules/${name}`])
      expect(lock.packages[`node_modules/${name}`].version, name).toBe(version)
    }
  })

  it('are patched in the Docker image: patches/ is there before its npm ci runs the postinstall', () => {
    const steps = readFileSync(path.join(root, 'Dockerfile'), 'utf8').split('\n')
    const install = steps.findIndex((line) => /^RUN npm ci\b/.test(line))
    expect(install).toBeGreaterThan(0)
    expect(steps[install]).not.toContain('--ignore-scripts')
    const copy = steps.findIndex((line) => /^COPY (?:\S+ )*patches\b/.test(line))
    expect(copy).toBeGreaterThanOrEqual(0)
    expect(copy).toBeLessThan(install)
  })

  it('apply cleanly to the published packages, and give exactly what the install holds', async () => {
    const app = await freshApp()
    const { code, output } = await runScript(manifest.scripts.postinstall, app)
    expect(output).not.toContain('ERROR')
    expect(code).toBe(0)
    for (const item of packages) {
      expect(output).toContain(`${item.name}@${item.version} ✔`)
      const files = filesOfPatch(item)
      expect(files.length, item.name).toBeGreaterThan(0)
      for (const file of files)
        expect(await readFile(path.join(app, 'node_modules', item.name, file), 'utf8'), `${item.name}/${file}`).toBe(
          readFileSync(path.join(root, 'node_modules', item.name, file), 'utf8'),
        )
    }
  })

  it.each(packages.map((item) => [item.name, item] as const))(
    'fail the install when the patch of %s no longer applies, naming the package',
    async (name, item) => {
      const app = await freshApp()
      const patch = path.join(app, 'patches', path.basename(item.patchFile))
      await writeFile(patch, stale(await readFile(patch, 'utf8')))
      const { code, output } = await runScript(manifest.scripts.postinstall, app)
      expect(code, output).not.toBe(0)
      expect(output).toContain(`Failed to apply patch for package ${name}`)
      // the others still apply: the failure is this package's
      for (const other of packages.filter((p) => p !== item))
        expect(output).toContain(`${other.name}@${other.version} ✔`)
    },
  )

  it('would let a stale patch pass with a warning without --error-on-fail', async () => {
    // what the postinstall's flag is for: patch-package alone exits 0 outside CI
    const app = await freshApp()
    const patch = path.join(app, 'patches', path.basename(packages[0].patchFile))
    await writeFile(patch, stale(await readFile(patch, 'utf8')))
    const { code, output } = await runScript('patch-package', app)
    expect(output).toContain(`Failed to apply patch for package ${packages[0].name}`)
    expect(code).toBe(0)
    expect(manifest.scripts.postinstall).not.toBe('patch-package')
  })
})

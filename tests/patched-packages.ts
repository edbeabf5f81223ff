import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'

// The packages the portal patches (patches/, applied by `patch-package` on install, ADR 024), and copies of
// them as the registry publishes them: what the install starts from before the patches, for the test that
// a stale patch fails the install and for the bench that measures what the patches save.

const run = promisify(execFile)
export const root = path.resolve(import.meta.dirname, '..')

export type PatchedPackage = { name: string; version: string; patchFile: string }

/** The patched packages, each at the version its patch was made for (in patch-package's file name). */
export function patchedPackages(patchesDir = path.join(root, 'patches')): PatchedPackage[] {
  return readdirSync(patchesDir)
    .filter((file) => file.endsWith('.patch'))
    .sort()
    .map((file) => {
      // `@scope+name+1.2.3.patch`; a `++` would be a package nested in another, which the portal does not patch
      const parts = file.slice(0, -'.patch'.length).split('+')
      if (parts.some((part) => !part)) throw new Error(`patches/${file}: a nested package's patch is not expected`)
      const version = parts.pop() as string
      return { name: parts.join('/'), version, patchFile: path.join(patchesDir, file) }
    })
}

/** The files a patch changes, relative to its package's folder. */
export function filesOfPatch(item: PatchedPackage): string[] {
  const prefix = `diff --git a/node_modules/${item.name}/`
  return readFileSync(item.patchFile, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length).split(' ')[0])
}

/**
 * Puts the published copy of each package in `<dir>/node_modules/<name>`: `npm pack` at the patch's version
 * (from npm's cache when the install left it there), checked against package-lock.json's integrity so it is
 * byte for byte what `npm ci` unpacks, then unpacked.
 */
export async function unpackPublished(dir: string, packages = patchedPackages()) {
  await mkdir(dir, { recursive: true })
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; integrity?: string }>
  }
  // from the project's folder, so its .npmrc (registry, cache) applies
  const { stdout } = await run(
    'npm',
    ['pack', ...packages.map((p) => `${p.name}@${p.version}`), '--json', '--prefer-offline', '--pack-destination', dir],
    { cwd: root },
  )
  const packed = JSON.parse(stdout) as { id: string; integrity: string; filename: string }[]
  for (const item of packages) {
    const tarball = packed.find((p) => p.id === `${item.name}@${item.version}`)
    const locked = lock.packages[`node_modules/${item.name}`]
    if (!tarball || tarball.integrity !== locked?.integrity)
      throw new Error(
        `${item.name}@${item.version} as packed (${tarball?.integrity ?? 'missing'}) is not what package-lock.json installs (${locked?.version} ${locked?.integrity})`,
      )
    const target = path.join(dir, 'node_modules', item.name)
    await mkdir(target, { recursive: true })
    // a registry tarball holds one folder, `package/`
    await run('tar', ['-xzf', path.join(dir, tarball.filename), '-C', target, '--strip-components=1'])
    await rm(path.join(dir, tarball.filename))
  }
}

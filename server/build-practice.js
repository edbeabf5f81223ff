// The lab pages' practice files, built after `remix build` (whose browser bundle cannot hold a worker): the practice
// worker bundled with PGlite by esbuild, and PGlite's WebAssembly and file-system image copied beside it, every
// file named by its content so the web server can let browsers keep them for good (the built assets' caching).
// The manifest says the page which names this build made. Run by `npm run build` and `portal serve`.
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { builtinModules, createRequire } from 'node:module'
import path from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants } from 'node:zlib'
import { build } from 'esbuild'

const root = path.resolve(import.meta.dirname, '..')
/** Under the built assets' folder (public/build, served as /build/): the practice files and their manifest. */
const PRACTICE_DIR = path.join(root, 'public', 'build', 'practice')
const PUBLIC_PATH = '/build/practice/'
const WORKER = path.join(root, 'app', 'components', 'labs', 'practice.worker.ts')
/** PGlite's own files the worker fetches: its PostgreSQL, its initdb (for a new cluster), its file-system image. */
const PGLITE_FILES = { pgliteWasm: 'pglite.wasm', initdbWasm: 'initdb.wasm', fsBundle: 'pglite.data' }

/**
 * PGlite's code for Node (its file system, zlib) is behind checks for Node and never runs in a worker; the modules
 * it imports are empty here, so the bundle imports nothing a browser lacks.
 * @type {import('esbuild').Plugin}
 */
const NODE_STUBS = {
  name: 'node-stubs',
  setup(build) {
    const builtins = new Set(builtinModules)
    build.onResolve({ filter: /^[\w:/]+$/ }, ({ path: name }) =>
      builtins.has(name.replace(/^node:/, '')) ? { path: name, namespace: 'node-stub' } : undefined,
    )
    build.onLoad({ filter: /.*/, namespace: 'node-stub' }, () => ({ contents: 'module.exports = {}', loader: 'js' }))
  },
}

/**
 * Each file is also written brotli-compressed at the highest quality (`<name>.br`), which the web server sends to
 * browsers that take brotli: a third smaller than its on-the-fly gzip for PostgreSQL's files. That takes half a
 * minute, so the compressed files are kept between builds by their content's name and the quality.
 * PRACTICE_BROTLI_QUALITY (0 to 11) trades size for build time where the bytes a learner downloads do not matter:
 * at 5 the files take under a second and are a sixth larger.
 */
const BROTLI_QUALITY = Math.min(11, Math.max(0, Math.round(Number(process.env.PRACTICE_BROTLI_QUALITY ?? 11))))
const BROTLI_CACHE = path.join(root, 'node_modules', '.cache', 'practice-brotli')
const brotli = promisify(brotliCompress)

/** @param {string} file a file of PRACTICE_DIR, named by its content */
async function writeBrotli(file) {
  const kept = path.join(BROTLI_CACHE, `${path.basename(file)}.q${BROTLI_QUALITY}.br`)
  if (!existsSync(kept)) {
    const bytes = await readFile(file)
    const params = {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    }
    await mkdir(BROTLI_CACHE, { recursive: true })
    // written whole, then named: a build running beside this one never copies half a file
    const writing = `${kept}.${process.pid}`
    await writeFile(writing, await brotli(bytes, { params }))
    await rename(writing, kept)
  }
  await copyFile(kept, `${file}.br`)
}

/** @param {Buffer} bytes */
const digest = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 12)

/** Builds the practice files; answers the manifest written (each file's address). */
async function buildPractice() {
  await rm(PRACTICE_DIR, { recursive: true, force: true })
  await mkdir(PRACTICE_DIR, { recursive: true })
  const result = await build({
    entryPoints: { worker: WORKER },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    outdir: PRACTICE_DIR,
    entryNames: '[name]-[hash]',
    metafile: true,
    plugins: [NODE_STUBS],
    logLevel: 'warning',
  })
  const worker = Object.keys(result.metafile.outputs).find((file) => file.endsWith('.js'))
  if (!worker) throw new Error('esbuild wrote no worker.')
  /** @type {Record<string, string>} */
  const manifest = { worker: PUBLIC_PATH + path.basename(worker) }
  const dist = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'))
  for (const [key, file] of Object.entries(PGLITE_FILES)) {
    const from = path.join(dist, file)
    const { name, ext } = path.parse(file)
    const named = `${name}-${digest(await readFile(from))}${ext}`
    await copyFile(from, path.join(PRACTICE_DIR, named))
    manifest[key] = PUBLIC_PATH + named
  }
  await Promise.all(
    Object.values(manifest).map((address) => writeBrotli(path.join(PRACTICE_DIR, path.basename(address)))),
  )
  await writeFile(path.join(PRACTICE_DIR, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  return manifest
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  const manifest = await buildPractice()
  console.log(`Practice files built: ${Object.values(manifest).join(', ')}`)
}

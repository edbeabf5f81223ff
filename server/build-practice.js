// The lab pages' practice files, built after `remix build` (whose browser bundle cannot hold a worker): the practice
// worker bundled with PGlite by esbuild, PGlite's WebAssembly and file-system image beside it, and an empty cluster
// made here by PGlite's initdb, every file named by its content so the web server can let browsers keep them for good
// (the built assets' caching).
// The manifest says the page which names this build made. Run by `npm run build` and `portal serve`.
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
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
/** PGlite's own files the worker fetches: its PostgreSQL and its file-system image. */
const PGLITE_FILES = { pgliteWasm: 'pglite.wasm', fsBundle: 'pglite.data' }
/** PGlite's initdb, run here (not in the browser) to make the empty cluster every practice database starts from. */
const PGLITE_INITDB = 'initdb.wasm'
/** Made clusters, kept between builds, named by the PGlite (its files and version) that made them and the steps. */
const CLUSTER_CACHE = path.join(root, 'node_modules', '.cache', 'practice-cluster')
/**
 * Files of PGlite's image that only initdb reads (the catalogs' bootstrap, the SQL it runs, the sample configuration
 * files it copies) or that only build extensions (pgxs).
 */
const INITDB_ONLY = [
  /^\/pglite\/share\/postgresql\/(postgres\.bki|information_schema\.sql|snowball_create\.sql|sql_features\.txt)$/,
  /^\/pglite\/share\/postgresql\/system_(constraints|functions|views)\.sql$/,
  /^\/pglite\/share\/postgresql\/[\w.]+\.sample$/,
  /^\/pglite\/lib\/postgresql\/pgxs\//,
]
/**
 * Libraries of PGlite's image that PGlite does not run: the encoding conversions (`convert_to(text, 'LATIN1')` answers
 * no row and the next query never answers, as published) and replication's (one user, no server to replicate from or
 * to). The East Asian conversions alone are half the image's download.
 */
const NOT_RUN = [/^\/pglite\/lib\/postgresql\/(\w+_and_\w+|euc2004_sjis2004|libpqwalreceiver|pgoutput)\.so$/]
/** How emptyCluster makes a cluster, part of its name in CLUSTER_CACHE: changing the steps changes this too. */
const CLUSTER_STEPS = 'initdb; wal_recycle off; pg_switch_wal; CHECKPOINT; dumpDataDir none'

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
  // the largest window browsers decode (16 MB) for the cluster, which holds three copies of a 7.5 MB database; the
  // default (4 MB) for the rest, which it serves a little better
  const window = file.endsWith('.tar') ? 24 : constants.BROTLI_DEFAULT_WINDOW
  const kept = path.join(BROTLI_CACHE, `${path.basename(file)}.q${BROTLI_QUALITY}w${window}.br`)
  if (!existsSync(kept)) {
    const bytes = await readFile(file)
    const params = {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_LGWIN]: window,
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

/** @param {Buffer[]} parts */
const digest = (...parts) => {
  const hash = createHash('sha256')
  for (const part of parts) hash.update(part)
  return hash.digest('hex').slice(0, 12)
}

/**
 * PGlite's file-system image with the files only initdb (and extension builds) read blanked out, and the libraries
 * PGlite does not run: the browser never runs initdb (it opens the cluster made here), so together they are three
 * fifths of the image's download for nothing. Their bytes
 * become zeros, not gone, because PGlite's loader checks the image's size and where each file starts; the list of
 * files is read from PGlite's own loader and checked against the image (contiguous, ending at its size). If PGlite
 * changes so the list cannot be read, the image is copied as it is.
 * @param {string} dist PGlite's package folder
 * @returns {Promise<{ bytes: Buffer; blanked: number }>}
 */
export async function fsBundleForBrowsers(dist) {
  const bytes = await readFile(path.join(dist, PGLITE_FILES.fsBundle))
  const code = (
    await Promise.all(
      (await readdir(dist))
        .filter((name) => name.endsWith('.js'))
        .map((name) => readFile(path.join(dist, name), 'utf8')),
    )
  ).find((text) => text.includes('remote_package_size'))
  const files = [...(code ?? '').matchAll(/filename:"([^"]+)",start:(\d+),end:(\d+)/g)].map((m) => ({
    name: m[1] ?? '',
    start: Number(m[2]),
    end: Number(m[3]),
  }))
  const contiguous = files.every((file, i) => file.start === (i ? files[i - 1]?.end : 0) && file.end >= file.start)
  if (!files.length || !contiguous || files.at(-1)?.end !== bytes.length) {
    console.warn('PGlite’s file list was not found as expected: its file-system image is served whole.')
    return { bytes, blanked: 0 }
  }
  let blanked = 0
  for (const file of files.filter(({ name }) => [...INITDB_ONLY, ...NOT_RUN].some((pattern) => pattern.test(name)))) {
    bytes.fill(0, file.start, file.end)
    blanked += file.end - file.start
  }
  return { bytes, blanked }
}

/**
 * The empty cluster (a tar of PGlite's data directory after initdb) the worker opens before it loads a lab's dataset.
 * initdb costs a browser one to three seconds of CPU, more than the cluster's download (about 0.65 MB as brotli):
 * it runs once here instead. Its write-ahead log is left as one zero-filled segment, which compresses to nothing:
 * the log initdb wrote (1 MB as brotli) is switched away from and removed by a checkpoint.
 * @param {string} dist PGlite's package folder
 * @returns {Promise<string>} the cluster's tar, kept in CLUSTER_CACHE
 */
export async function emptyCluster(dist) {
  // PGlite's files and its version (its JavaScript sets initdb's environment and arguments)
  const made = await Promise.all(
    [...Object.values(PGLITE_FILES), PGLITE_INITDB, path.join('..', 'package.json')].map((file) =>
      readFile(path.join(dist, file)),
    ),
  )
  const kept = path.join(CLUSTER_CACHE, `cluster-${digest(...made, Buffer.from(CLUSTER_STEPS))}.tar`)
  if (existsSync(kept)) return kept
  const { PGlite } = await import('@electric-sql/pglite')
  const db = await PGlite.create()
  try {
    await db.exec('SET wal_recycle = off')
    await db.query('SELECT pg_switch_wal()')
    await db.exec('CHECKPOINT')
    const tar = Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer())
    await mkdir(CLUSTER_CACHE, { recursive: true })
    const writing = `${kept}.${process.pid}`
    await writeFile(writing, tar)
    await rename(writing, kept)
    return kept
  } finally {
    await db.close()
  }
}

/** PGlite's package folder, where its WebAssembly, file-system image and initdb are. */
export const pgliteDist = () => path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'))

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
  const dist = pgliteDist()
  const wasm = await readFile(path.join(dist, PGLITE_FILES.pgliteWasm))
  const fsBundle = await fsBundleForBrowsers(dist)
  for (const [key, bytes, file] of /** @type {const} */ ([
    ['pgliteWasm', wasm, PGLITE_FILES.pgliteWasm],
    ['fsBundle', fsBundle.bytes, PGLITE_FILES.fsBundle],
  ])) {
    const { name, ext } = path.parse(file)
    const named = `${name}-${digest(bytes)}${ext}`
    await writeFile(path.join(PRACTICE_DIR, named), bytes)
    manifest[key] = PUBLIC_PATH + named
  }
  const cluster = await emptyCluster(dist)
  const clusterName = `cluster-${digest(await readFile(cluster))}.tar`
  await copyFile(cluster, path.join(PRACTICE_DIR, clusterName))
  manifest.cluster = PUBLIC_PATH + clusterName
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

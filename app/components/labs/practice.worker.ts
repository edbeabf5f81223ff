import { PGlite, type PGliteOptions } from '@electric-sql/pglite'
import { loadPracticeDataset, runPracticeSql, textParsers } from '#app/modules/labs/practice.ts'
import type { FromWorker, PracticeFiles, ToWorker } from './practice-protocol.ts'

// The practice worker: PostgreSQL (PGlite) off the page's thread, so typing never waits for a query. It is bundled
// on its own by `npm run build` (app/modules/labs/practice-assets), PGlite inside it, and fetches PGlite's WebAssembly
// and file-system image from the content-named files the page gives it.

type Scope = { onmessage: ((event: MessageEvent<ToWorker>) => void) | null; postMessage(message: FromWorker): void }
const scope = self as unknown as Scope

let db: PGlite | undefined
let parsers: Awaited<ReturnType<typeof textParsers>> = {}
// PostgreSQL's WebAssembly, compiled once: Reset opens a new database on the same module
let modules: Promise<PGliteOptions> | undefined
// the empty cluster a dataset is loaded into, fetched once
let cluster: Promise<Blob> | undefined

const post = (message: FromWorker) => scope.postMessage(message)

/** The wall-clock time now, in milliseconds: the page and its worker count from different origins of time. */
const now = () => performance.timeOrigin + performance.now()
/** When each step of opening ended, sent with `ready` so the page can mark them (bench:practice reads them). */
let steps: [string, number][] = [['worker started', now()]]

async function fetched(url: string) {
  const response = await fetch(url)
  if (!response.ok) throw new Error(`${url} answered ${response.status}.`)
  return response
}

function step<T>(name: string, work: Promise<T>) {
  return work.then((value) => {
    steps.push([name, now()])
    return value
  })
}

/**
 * initdb never runs here: every database opens a data directory, the empty cluster made at build time or a dump.
 * PGlite still takes an initdb module; it is given an empty one, never run.
 */
const NO_INITDB = new WebAssembly.Module(Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00))

/**
 * PostgreSQL as PGlite starts it, with 32 MB of shared buffers instead of the cluster's 128 MB: a database opens a
 * third faster, and a lab's dataset is far smaller. Plans do not change: the planner's costs do not count buffers.
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB']

// each fetched once; a fetch that failed is tried again by the next open (Reset, or a load after a copy that failed)
function loadModules(files: PracticeFiles) {
  if (modules) return modules
  modules = Promise.all([
    step('PostgreSQL compiled', WebAssembly.compileStreaming(fetched(files.pgliteWasm))),
    step(
      'file system fetched',
      fetched(files.fsBundle).then((r) => r.blob()),
    ),
  ]).then(([pgliteWasmModule, fsBundle]) => ({
    pgliteWasmModule,
    initdbWasmModule: NO_INITDB,
    fsBundle,
    startParams: START_PARAMS,
  }))
  modules.catch(() => (modules = undefined))
  return modules
}

function loadCluster(files: PracticeFiles) {
  if (cluster) return cluster
  cluster = step(
    'empty cluster fetched',
    fetched(files.cluster).then((r) => r.blob()),
  )
  cluster.catch(() => (cluster = undefined))
  return cluster
}

/**
 * The data directory as a tar, kept by the page for the next visit and for Reset. A checkpoint at the start of a new
 * log segment comes first, so opening the copy replays none of the load's log (a tenth of a second less for the
 * data-warehousing lab), and the segment the load filled is removed, not kept for reuse. Not compressed: a gzip copy
 * is a tenth of the size, but unpacking it costs every later visit a tenth of a second more.
 */
async function keptCopy(database: PGlite): Promise<Blob | undefined> {
  try {
    await database.exec('SET wal_recycle = off')
    await database.query('SELECT pg_switch_wal()')
    await database.exec('CHECKPOINT')
    return (await database.dumpDataDir('none')) as Blob
  } catch {
    // no copy (too little memory for it, say): the database works, and the next visit loads the statements again
    return undefined
  } finally {
    await database.exec('RESET wal_recycle').catch(() => undefined)
  }
}

/** Says the database is ready, with the steps that led to it. */
function ready(started: number) {
  steps.push(['ready', now()])
  post({ type: 'ready', ms: Math.round(now() - started), steps })
  steps = []
}

async function open(message: Extract<ToWorker, { type: 'open' }>) {
  const started = now()
  steps.push(['open asked', started])
  post({ type: 'step', step: 0 })
  const options = await loadModules(message.files)
  await db?.close()
  db = undefined
  if (message.dump) {
    db = await PGlite.create({ ...options, loadDataDir: message.dump })
    steps.push(['copy opened', now()])
    parsers = await textParsers(db)
    ready(started)
    return
  }
  if (!message.dataset) throw new Error('Nothing to open.')
  const empty = await loadCluster(message.files)
  post({ type: 'step', step: 1 })
  db = await PGlite.create({ ...options, loadDataDir: empty })
  steps.push(['empty cluster opened', now()])
  await loadPracticeDataset(db, message.dataset)
  steps.push(['dataset loaded', now()])
  parsers = await textParsers(db)
  ready(started)
  // the learner need not wait for the copy: a Run sent now waits for it here, so the copy is the dataset as loaded
  const copy = await keptCopy(db)
  if (copy) post({ type: 'kept', dump: copy })
}

async function run(id: number, sql: string) {
  const started = performance.now()
  try {
    if (!db) throw new Error('The practice database is not open.')
    const result = await runPracticeSql(db, sql, parsers)
    post({ type: 'ran', id, outcome: { ok: true, ...result, ms: performance.now() - started } })
  } catch (error) {
    const { message, position } = error as Error & { position?: string }
    const at = Number(position)
    post({ type: 'ran', id, outcome: { ok: false, message, ...(at > 0 ? { position: at } : {}) } })
  }
}

// messages are handled one at a time, in order: a Run sent while the database opens waits for it
let queue = Promise.resolve()
scope.onmessage = ({ data }) => {
  if (data.type === 'prepare') {
    loadModules(data.files).catch(() => undefined)
    if (data.fresh) loadCluster(data.files).catch(() => undefined)
    return
  }
  queue = queue.then(async () => {
    if (data.type === 'run') return run(data.id, data.sql)
    await open(data).catch((error: unknown) => {
      post({ type: 'failed', message: error instanceof Error ? error.message : String(error) })
    })
  })
}

import { PGlite } from '@electric-sql/pglite'
import { loadPracticeDataset, runPracticeSql, textParsers } from '#app/modules/labs/practice.ts'
import type { FromWorker, PracticeFiles, ToWorker } from './practice-protocol.ts'

// The practice worker: PostgreSQL (PGlite) off the page's thread, so typing never waits for a query. It is bundled
// on its own by `npm run build` (app/modules/labs/practice-assets), PGlite inside it, and fetches PGlite's WebAssembly
// and file-system image from the content-named files the page gives it.

type Scope = { onmessage: ((event: MessageEvent<ToWorker>) => void) | null; postMessage(message: FromWorker): void }
const scope = self as unknown as Scope

let db: PGlite | undefined
let parsers: Awaited<ReturnType<typeof textParsers>> = {}
// PostgreSQL's WebAssembly, compiled once: Reset opens a new database on the same modules
let modules: Promise<{ pgliteWasmModule: WebAssembly.Module; initdbWasmModule: WebAssembly.Module; fsBundle: Blob }>

const post = (message: FromWorker) => scope.postMessage(message)

async function fetched(url: string) {
  const response = await fetch(url)
  if (!response.ok) throw new Error(`${url} answered ${response.status}.`)
  return response
}

function loadModules(files: PracticeFiles) {
  modules ??= Promise.all([
    WebAssembly.compileStreaming(fetched(files.pgliteWasm)),
    WebAssembly.compileStreaming(fetched(files.initdbWasm)),
    fetched(files.fsBundle).then((r) => r.blob()),
  ]).then(([pgliteWasmModule, initdbWasmModule, fsBundle]) => ({ pgliteWasmModule, initdbWasmModule, fsBundle }))
  return modules
}

async function open(message: Extract<ToWorker, { type: 'open' }>) {
  const started = performance.now()
  post({ type: 'step', step: 0 })
  const options = await loadModules(message.files)
  await db?.close()
  db = undefined
  if (message.dump) {
    db = await PGlite.create({ ...options, loadDataDir: message.dump })
    parsers = await textParsers(db)
    post({ type: 'ready', ms: Math.round(performance.now() - started) })
    return
  }
  if (!message.dataset) throw new Error('Nothing to open.')
  post({ type: 'step', step: 1 })
  db = await PGlite.create(options)
  await loadPracticeDataset(db, message.dataset)
  parsers = await textParsers(db)
  post({ type: 'ready', ms: Math.round(performance.now() - started) })
  // the learner need not wait for the copy: a Run sent now waits for it here, so the copy is the dataset as loaded
  post({ type: 'kept', dump: (await db.dumpDataDir('gzip')) as Blob })
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
    return
  }
  queue = queue.then(async () => {
    if (data.type === 'run') return run(data.id, data.sql)
    await open(data).catch((error: unknown) => {
      post({ type: 'failed', message: error instanceof Error ? error.message : String(error) })
    })
  })
}

import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { PracticeDataset } from '#app/modules/labs/practice.ts'
import type { FromWorker, PracticeFiles, RunOutcome, ToWorker } from './practice-protocol.ts'

// The lab page's side of practice in the browser: starts the practice worker once the page is usable, opens the lab's
// dataset in it (from the copy kept by an earlier visit when there is one, else from the dataset's statements, then
// keeps a copy), runs SQL and resets. Where the browser cannot (no WebAssembly or workers, too little memory, the
// worker does not start) the state says why, and the page's forms work as they do without it.

/** What the lab page's loader gives (app/modules/labs/practice-assets.server.ts); null when not built. */
export type PracticeSetup = { worker: string; files: PracticeFiles; dataset: string; version: string } | null

/** `idle`: as the server renders the page, before its JavaScript runs (or when it never does). */
type PracticeState =
  { phase: 'idle' } | { phase: 'loading'; step: number } | { phase: 'ready' } | { phase: 'unavailable'; reason: string }

/**
 * The browser's cache holding each lab's dataset as PGlite opened it, one copy per lab: under the dataset's version
 * and the PostgreSQL that made it, so a new dataset or a new PostgreSQL (a copy another one may not open) makes
 * the next visit load the statements.
 */
const DUMPS = 'lab-practice'
const dumpKey = (labId: string, version: string) => `${location.origin}/practice-dump/${labId}/${version}`
const copyVersion = (setup: NonNullable<PracticeSetup>) =>
  `${setup.version}/${setup.files.pgliteWasm.split('/').pop() ?? ''}`

async function readDump(labId: string, version: string): Promise<Blob | undefined> {
  if (typeof caches === 'undefined') return undefined
  try {
    const kept = await (await caches.open(DUMPS)).match(dumpKey(labId, version))
    return kept ? await kept.blob() : undefined
  } catch {
    return undefined
  }
}

/** Keeps this version's dump and deletes the lab's older ones; a browser without the cache keeps it for this visit. */
async function keepDump(labId: string, version: string, dump: Blob) {
  if (typeof caches === 'undefined') return
  try {
    const cache = await caches.open(DUMPS)
    const key = dumpKey(labId, version)
    for (const old of await cache.keys())
      if (old.url.startsWith(dumpKey(labId, '')) && old.url !== key) await cache.delete(old)
    await cache.put(key, new Response(dump))
    performance.mark('practice: copy kept')
  } catch {
    // no room: the next visit loads the statements again
  }
}

/** Why this browser cannot run practice at all, before trying. */
function missingFeature(): string | undefined {
  if (typeof WebAssembly !== 'object') return 'this browser does not run WebAssembly'
  if (typeof Worker !== 'function') return 'this browser does not run workers'
  return undefined
}

/** The files every opening needs: the worker, PostgreSQL's WebAssembly and its file-system image. */
const prefetchedFiles = (setup: NonNullable<PracticeSetup>) => [
  setup.worker,
  setup.files.pgliteWasm,
  setup.files.fsBundle,
]

/**
 * Asks for the files every opening needs as prefetches, which the browser fetches after the page's own files and the
 * worker finds in its cache (or joins while they download). Twice, the same way: the page's HTML carries this as a
 * script (`prefetchScript`, run as the HTML is read, where the worker could run), and a lab reached from another page
 * of the portal (no new HTML) asks in its effect; a file already asked for is not asked again.
 */
function prefetch(setup: NonNullable<PracticeSetup>) {
  const asked = new Set([...document.querySelectorAll<HTMLLinkElement>('link[rel="prefetch"]')].map((l) => l.href))
  for (const href of prefetchedFiles(setup)) {
    const link = document.createElement('link')
    link.rel = 'prefetch'
    link.href = href
    if (!asked.has(link.href)) document.head.append(link)
  }
}

/** `prefetch` as the text of the page's own script: no JavaScript, WebAssembly or workers, no download. */
export function prefetchScript(setup: NonNullable<PracticeSetup>) {
  const files = JSON.stringify(prefetchedFiles(setup)).replace(/</g, '\\u003c')
  return `if (typeof WebAssembly === 'object' && typeof Worker === 'function') for (const href of ${files}) {
  const link = document.createElement('link'); link.rel = 'prefetch'; link.href = href; document.head.append(link) }`
}

/**
 * How long a Run may take. PGlite cannot cancel a query, so a Run still going then (an endless recursive query, say)
 * ends with its worker, and practice opens the lab's data again, as Reset does. Grading's limit is a few seconds on
 * the server; PostgreSQL in the browser is slower, so this one is wider.
 */
const RUN_LIMIT_MS = 10_000

/** Runs `start` once the page has loaded and the browser is idle, so the editor and Submit come first. */
function whenIdle(start: () => void): () => void {
  let cancelled = false
  const go = () => {
    if (cancelled) return
    if ('requestIdleCallback' in window) window.requestIdleCallback(() => !cancelled && start(), { timeout: 2000 })
    else setTimeout(() => !cancelled && start(), 0)
  }
  if (document.readyState === 'complete') go()
  else window.addEventListener('load', go, { once: true })
  return () => {
    cancelled = true
    window.removeEventListener('load', go)
  }
}

/** Marks each step of opening on the page's performance timeline, as `practice: <step>` (the bench reads them). */
function mark(steps: [string, number][]) {
  try {
    for (const [name, at] of steps) performance.mark(`practice: ${name}`, { startTime: at - performance.timeOrigin })
  } catch {
    // a mark is a measurement, never a reason for practice to stop
  }
}

export function usePracticeDb(labId: string, given: PracticeSetup) {
  // the loader's data is a new object after every Submit: the worker starts again only for other files or data
  const setupRef = useRef(given)
  setupRef.current = given
  const started = given ? `${given.worker} ${given.dataset}` : ''
  const [state, setState] = useState<PracticeState>({ phase: 'idle' })
  const worker = useRef<Worker>()
  const dump = useRef<Blob>()
  // the statements a first visit loaded, for a Reset before their copy is kept
  const dataset = useRef<PracticeDataset>()
  const pending = useRef(new Map<number, (outcome: RunOutcome) => void>())
  const nextId = useRef(0)
  // how many times a Run over its time ended the worker: each starts practice again
  const [restarts, setRestarts] = useState(0)

  useEffect(() => {
    performance.mark('practice: page usable')
    const setup = setupRef.current
    if (!setup) return setState({ phase: 'unavailable', reason: 'its files are not on this server' })
    const missing = missingFeature()
    if (missing) return setState({ phase: 'unavailable', reason: missing })
    prefetch(setup)
    let stopped = false
    let fromDump = false
    const unavailable = (reason: string) => {
      if (stopped) return
      setState({ phase: 'unavailable', reason })
      worker.current?.terminate()
      worker.current = undefined
    }
    const kept = copyVersion(setup)
    // this effect's own worker: a lab left while its dataset downloads never sends it to the next lab's
    let practice: Worker | undefined
    const send = (message: ToWorker) => practice?.postMessage(message)
    const openFromStatements = async () => {
      fromDump = false
      // a copy that did not open is not opened again by Reset
      dump.current = undefined
      send({ type: 'prepare', files: setup.files, fresh: true })
      const response = await fetch(setup.dataset, { credentials: 'same-origin' })
      if (!response.ok) throw new Error('the lab’s data could not be loaded')
      const loaded = (await response.json()) as PracticeDataset
      if (stopped) return
      dataset.current = loaded
      performance.mark('practice: dataset fetched')
      send({ type: 'open', files: setup.files, dataset: loaded })
    }
    const start = async (copy: Blob | undefined) => {
      performance.mark('practice: worker asked')
      practice = new Worker(setup.worker, { type: 'module' })
      worker.current = practice
      practice.onerror = () => unavailable('the practice worker did not start')
      send({ type: 'prepare', files: setup.files })
      practice.onmessage = ({ data }: MessageEvent<FromWorker>) => {
        if (stopped) return
        if (data.type === 'step') setState({ phase: 'loading', step: data.step })
        else if (data.type === 'ready') {
          setState({ phase: 'ready' })
          mark(data.steps)
        } else if (data.type === 'kept') {
          dump.current = data.dump
          void keepDump(labId, kept, data.dump)
        } else if (data.type === 'failed') {
          // a kept copy that no longer opens is replaced by a load from the statements
          if (fromDump) openFromStatements().catch((error: Error) => unavailable(error.message))
          else unavailable(/memory/i.test(data.message) ? 'there is too little memory' : 'PostgreSQL did not start')
        } else pending.current.get(data.id)?.(data.outcome)
      }
      dump.current = copy
      if (copy) {
        fromDump = true
        send({ type: 'open', files: setup.files, dump: copy })
      } else await openFromStatements()
    }
    setState({ phase: 'loading', step: 0 })
    const begin = (copy: Blob | undefined) => void start(copy).catch((error: Error) => unavailable(error.message))
    let cancel = () => {}
    void readDump(labId, kept).then((copy) => {
      if (stopped) return
      performance.mark(copy ? 'practice: copy read' : 'practice: no copy')
      // with a copy kept by an earlier visit PostgreSQL's files are in the browser's cache too (the copy is kept under
      // the PostgreSQL that made it): start now; else once the page is idle, so the worker's start and its fetches of
      // the cluster and the dataset do not hold up the page's own (PostgreSQL's files are on their way already)
      if (copy) begin(copy)
      else cancel = whenIdle(() => begin(undefined))
    })
    return () => {
      stopped = true
      cancel()
      worker.current?.terminate()
      worker.current = undefined
    }
  }, [labId, started, restarts])

  /** Runs SQL on the practice database: the last statement's rows, or PostgreSQL's error and where it points. */
  const run = useCallback((sql: string) => {
    const id = nextId.current++
    return new Promise<RunOutcome>((resolve) => {
      if (!worker.current) return resolve({ ok: false, message: 'The practice database is not ready.' })
      const overTime = setTimeout(() => {
        const message = `Stopped after ${RUN_LIMIT_MS / 1000} s: the practice database is opened again, as Reset does.`
        for (const answer of [...pending.current.values()]) answer({ ok: false, message })
        setRestarts((n) => n + 1)
      }, RUN_LIMIT_MS)
      pending.current.set(id, (outcome) => {
        clearTimeout(overTime)
        pending.current.delete(id)
        resolve(outcome)
      })
      worker.current.postMessage({ type: 'run', id, sql } satisfies ToWorker)
    })
  }, [])

  /** Opens the lab's dataset again as it was first loaded, undoing every Run. */
  const reset = useCallback(() => {
    const setup = setupRef.current
    if (!worker.current || !setup || !(dump.current || dataset.current)) return
    setState({ phase: 'loading', step: 0 })
    worker.current.postMessage(
      (dump.current
        ? { type: 'open', files: setup.files, dump: dump.current }
        : { type: 'open', files: setup.files, dataset: dataset.current }) satisfies ToWorker,
    )
  }, [])

  return useMemo(() => ({ state, run, reset }), [state, run, reset])
}

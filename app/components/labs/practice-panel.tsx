import { useCallback, useEffect, useMemo, useState, useSyncExternalStore, type MouseEvent } from 'react'
import { useNonce } from '#app/utils/nonce.ts'
import { OPEN_STEPS, type RunOutcome } from './practice-protocol.ts'
import { ErrorPlace, RowsTable } from './sql-output.tsx'
import { prefetchScript, usePracticeDb, type PracticeSetup } from './use-practice-db.ts'

// Practice in the browser on a lab page: Run beside each exercise's Submit tries the learner's SQL on PostgreSQL
// in the browser (the lab's dataset in PGlite), Reset brings the dataset back, and a line says how practice stands
// (loading with its progress, ready, or not available here and why). Only Submit is graded, on the server.

/** The rows a Run shows at most; the count says how many there were. */
const SHOWN_ROWS = 200

type Ran = { sql: string; outcome: RunOutcome } | 'running'

type Practice = ReturnType<typeof usePracticeDb> & {
  ran: Record<string, Ran>
  runFor: (exercise: string, sql: string) => void
  resetAll: () => void
}

// The status line holds the lab's practice database; the exercises' Run buttons and results read it from here (a
// page has one lab), so the lab page needs no wrapper around its content.
const shared = { practice: null as Practice | null, listeners: new Set<() => void>() }

function publish(practice: Practice | null) {
  shared.practice = practice
  for (const listener of shared.listeners) listener()
}

function subscribe(listener: () => void) {
  shared.listeners.add(listener)
  return () => void shared.listeners.delete(listener)
}

const usePractice = () =>
  useSyncExternalStore(
    subscribe,
    () => shared.practice,
    () => null,
  )

/** The lab's practice database: started here, shared with the exercises' Run buttons. */
function useLabPractice(labId: string, setup: PracticeSetup) {
  const db = usePracticeDb(labId, setup)
  const [ran, setRan] = useState<Record<string, Ran>>({})
  const { run, reset } = db
  const runFor = useCallback(
    (exercise: string, sql: string) => {
      setRan((all) => ({ ...all, [exercise]: 'running' }))
      void run(sql).then((outcome) => setRan((all) => ({ ...all, [exercise]: { sql, outcome } })))
    },
    [run],
  )
  const resetAll = useCallback(() => {
    setRan({})
    reset()
  }, [reset])
  const practice = useMemo(() => ({ ...db, ran, runFor, resetAll }), [db, ran, runFor, resetAll])
  useEffect(() => publish(practice), [practice])
  useEffect(() => () => publish(null), [])
  return practice
}

/** The line saying how practice stands, announced as it changes, with Reset once ready. */
export function PracticeStatus({ labId, setup }: { labId: string; setup: PracticeSetup }) {
  const practice = useLabPractice(labId, setup)
  const { state } = practice
  return (
    <div className="card flex flex-wrap items-center justify-between gap-2 p-3 text-sm" data-testid="practice-status">
      {setup ? <PracticePrefetch setup={setup} /> : null}
      <div role="status" aria-live="polite" className="min-w-0 flex-1">
        {state.phase === 'loading' ? (
          <p className="flex flex-wrap items-center gap-2">
            <span>Practice database loading…</span>
            <progress
              className="h-2 w-24"
              value={state.step + 1}
              max={OPEN_STEPS.length + 1}
              aria-label="Practice database loading"
            />
            <span className="text-slate-600">
              {OPEN_STEPS[state.step]} ({state.step + 1} of {OPEN_STEPS.length})
            </span>
          </p>
        ) : state.phase === 'ready' ? (
          <p>
            Practice database ready: <strong>Run</strong> tries your SQL in your browser on the lab’s data; only{' '}
            <strong>Submit</strong> is graded.
          </p>
        ) : state.phase === 'unavailable' ? (
          <p>Practice in the browser is not available here ({state.reason}); Submit still grades your SQL.</p>
        ) : (
          // the server's line, replaced as soon as the page's JavaScript runs
          <p>Practice in the browser needs JavaScript; Submit still grades your SQL.</p>
        )}
      </div>
      {state.phase === 'ready' ? (
        <button type="button" className="btn-secondary" onClick={practice.resetAll}>
          Reset
        </button>
      ) : null}
    </div>
  )
}

/** Run, beside an exercise's Submit: the SQL in the exercise's form, on the practice database. */
export function RunButton({ exercise, title }: { exercise: string; title: string }) {
  const practice = usePractice()
  if (!practice || practice.state.phase === 'unavailable') return null
  const running = practice.ran[exercise] === 'running'
  const onClick = (event: MouseEvent<HTMLButtonElement>) => {
    const field = event.currentTarget.form?.elements.namedItem('sql')
    if (field instanceof HTMLTextAreaElement) practice.runFor(exercise, field.value)
  }
  return (
    <button
      type="button"
      className="btn-secondary"
      disabled={practice.state.phase !== 'ready' || running}
      onClick={onClick}
    >
      {running ? 'Running…' : 'Run'}
      <span className="sr-only"> {title} in your browser</span>
    </button>
  )
}

/** What the last Run of an exercise gave: its rows, or PostgreSQL's error and where it points. */
export function RunResult({ exercise, id }: { exercise: string; id: string }) {
  const ran = usePractice()?.ran[exercise]
  return (
    <div aria-live="polite" data-testid="run-result">
      {ran === undefined || ran === 'running' ? null : ran.outcome.ok ? (
        <RunRows id={id} outcome={ran.outcome} />
      ) : (
        <div className="space-y-2 text-sm">
          <p className="rounded-md bg-red-50 p-3 text-red-900">
            <strong>Run: </strong>
            {ran.outcome.message}
          </p>
          {ran.outcome.position !== undefined ? (
            <ErrorPlace sql={ran.sql} position={ran.outcome.position} label="Where the Run’s error is" />
          ) : null}
        </div>
      )}
    </div>
  )
}

function RunRows({ id, outcome }: { id: string; outcome: Extract<RunOutcome, { ok: true }> }) {
  const { statements, columns, rows } = outcome
  const count = `${rows.length > SHOWN_ROWS ? `the first ${SHOWN_ROWS} of ` : ''}${rows.length} ${rows.length === 1 ? 'row' : 'rows'}`
  const caption =
    statements > 1
      ? `Run: ${statements} statements ran; the last ${columns.length === 0 ? 'returned no rows' : `gave ${count}`}.`
      : `Run: ${columns.length === 0 ? 'the statement returned no rows' : count}.`
  return (
    <div className="text-sm">
      <p id={`${id}-run`} className="font-medium text-slate-800">
        {caption}
      </p>
      {columns.length > 0 ? (
        <RowsTable labelledBy={`${id}-run`} columns={columns} rows={rows.slice(0, SHOWN_ROWS)} />
      ) : null}
    </div>
  )
}

/**
 * PostgreSQL's files start downloading as the page's HTML is read, not once its JavaScript has run: the download is
 * most of a first visit's wait. The cluster and the dataset are left to the worker: a visit that finds the copy an
 * earlier one kept needs neither.
 */
function PracticePrefetch({ setup }: { setup: NonNullable<PracticeSetup> }) {
  const nonce = useNonce()
  // the server's script runs once as the HTML is read; hydration keeps it as it is and never runs it again
  return <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: prefetchScript(setup) }} />
}

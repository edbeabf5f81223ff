import type { SubmissionResult } from '@conform-to/react'
import { Form, useNavigation, useRevalidator } from '@remix-run/react'
import { useEffect } from 'react'
import type { checkSessions } from '#app/modules/labs/session-exercises.server.ts'
import type { HistoryItem, PairView, SessionView } from '#app/modules/labs/sessions.server.ts'
import { FormError } from '../ui/form-footer.tsx'
import { SqlField } from './sql-editor.tsx'
import { RowsTable } from './sql-output.tsx'

// A two-session exercise on the lab page: Session A and Session B side by side (stacked on a phone), each with its
// editor, Run, its transaction and isolation level, and its history; then Check, Start over and Close. Every button
// is a form post, so the page works without JavaScript: a statement still waiting shows "waiting…" and a Refresh
// button. With JavaScript the page asks again every second while a statement runs, and leaving the page closes
// the pair (a beacon), so its locks and database do not wait for the idle limit.

/** How often the page asks for the pair again while a statement of it runs (with JavaScript). */
const POLL_MS = 1000

type Reply = { result: SubmissionResult<string[]>; check?: Awaited<ReturnType<typeof checkSessions>> }

type Props = {
  exercise: { key: string; title: string }
  pair: PairView | null
  tables: { name: string; columns: { name: string }[] }[]
  /** the action's answer to a form of this exercise */
  reply?: Reply
}

export function TwoSessions({ exercise, pair, tables, reply }: Props) {
  const navigation = useNavigation()
  const revalidator = useRevalidator()
  const running = pair?.sessions.some((s) => s.running) ?? false
  const busy = navigation.state !== 'idle' && navigation.formData?.get('exercise') === exercise.key
  const intent = busy ? navigation.formData?.get('intent') : undefined

  useEffect(() => {
    if (!running || revalidator.state !== 'idle') return
    const timer = setTimeout(() => revalidator.revalidate(), POLL_MS)
    return () => clearTimeout(timer)
  }, [running, revalidator, pair])

  // leaving the page (or closing the tab) closes the pair at once: this pair, never one opened since
  const pairId = pair?.id
  useEffect(() => {
    if (!pairId) return
    const leave = () => {
      const form = new FormData()
      form.set('intent', 'sessions-close')
      form.set('exercise', exercise.key)
      form.set('pair', pairId)
      navigator.sendBeacon(window.location.pathname, form)
    }
    window.addEventListener('pagehide', leave)
    return () => window.removeEventListener('pagehide', leave)
  }, [pairId, exercise.key])

  const id = `exercise-${exercise.key}`
  const sentIntent = reply?.result.initialValue?.intent
  const formErrors = sentIntent !== 'sessions-run' ? (reply?.result.error?.[''] ?? []) : []
  const hidden = (name: string) => (
    <>
      <input type="hidden" name="intent" value={name} />
      <input type="hidden" name="exercise" value={exercise.key} />
    </>
  )

  if (!pair)
    return (
      <div className="space-y-3 border-t border-slate-100 pt-4 text-sm">
        <p className="text-slate-700">
          This exercise runs in two sessions side by side, each its own connection to a copy of the lab’s database of
          your own. They close when you leave the page, after a few idle minutes, or at their time limit.
        </p>
        <Form method="post" preventScrollReset>
          {hidden('sessions-start')}
          <button type="submit" className="btn-primary" disabled={busy}>
            {intent === 'sessions-start' ? 'Starting…' : 'Start two sessions'}
          </button>
        </Form>
        <FormError id={`${id}-sessions-error`} errors={formErrors} />
      </div>
    )

  return (
    <section aria-labelledby={`${id}-sessions`} className="space-y-4 border-t border-slate-100 pt-4">
      <h4 id={`${id}-sessions`} className="sr-only">
        Two sessions
      </h4>
      <p className="text-sm text-slate-600">
        Your sessions close at <time dateTime={pair.closesAt}>{pair.closesAt.slice(11, 16)} UTC</time>, or after a few
        minutes without a request; Start over opens two new ones on a fresh copy.
      </p>
      <div className="grid min-w-0 gap-4 md:grid-cols-2">
        {pair.sessions.map((session) => (
          <SessionColumn
            key={session.name}
            id={id}
            exercise={exercise}
            session={session}
            tables={tables}
            reply={reply?.result.initialValue?.session === session.name ? reply : undefined}
            busy={busy && navigation.formData?.get('session') === session.name}
          />
        ))}
      </div>
      <div className="flex flex-wrap gap-2">
        <Form method="post" preventScrollReset>
          {hidden('sessions-check')}
          <button type="submit" className="btn-primary" disabled={busy}>
            {intent === 'sessions-check' ? 'Checking…' : 'Check'}
          </button>
        </Form>
        <Form method="post" preventScrollReset>
          {hidden('sessions-start')}
          <button type="submit" className="btn-secondary" disabled={busy}>
            Start over
          </button>
        </Form>
        <Form method="post" preventScrollReset>
          {hidden('sessions-close')}
          <input type="hidden" name="pair" value={pair.id} />
          <button type="submit" className="btn-secondary" disabled={busy}>
            Close
          </button>
        </Form>
        {running ? (
          // without JavaScript, the way to see a waiting statement finish
          <Form method="get" preventScrollReset>
            <button type="submit" className="btn-secondary">
              Refresh
            </button>
          </Form>
        ) : null}
      </div>
      <FormError id={`${id}-sessions-error`} errors={formErrors} />
      {reply?.check ? (
        <p
          role="status"
          className={`rounded-md p-3 text-sm ${reply.check.passed ? 'bg-emerald-50 text-emerald-900' : 'bg-red-50 text-red-900'}`}
        >
          <strong>{reply.check.passed ? 'Passed. ' : 'Not passed. '}</strong>
          {reply.check.message}
        </p>
      ) : null}
    </section>
  )
}

const ISOLATION_NAMES = {
  'read committed': 'READ COMMITTED',
  'repeatable read': 'REPEATABLE READ',
  serializable: 'SERIALIZABLE',
} as const

function transactionText(session: SessionView) {
  if (session.transaction === 'open') return `In a transaction · ${ISOLATION_NAMES[session.isolation]}`
  if (session.transaction === 'failed') return 'In a failed transaction: only ROLLBACK (or COMMIT) ends it'
  return 'No transaction open: each statement commits by itself (READ COMMITTED)'
}

function SessionColumn({
  id,
  exercise,
  session,
  tables,
  reply,
  busy,
}: {
  id: string
  exercise: { key: string; title: string }
  session: SessionView
  tables: Props['tables']
  reply?: Reply
  busy: boolean
}) {
  const base = `${id}-session-${session.name}`
  const labelId = `${base}-label`
  const sqlId = `${base}-sql`
  const sqlError = reply?.result.error?.sql?.[0]
  const sent = typeof reply?.result.initialValue?.sql === 'string' ? reply.result.initialValue.sql : ''
  return (
    <div className="min-w-0 space-y-3 rounded-md border border-slate-200 p-3" data-testid={`session-${session.name}`}>
      <div>
        <h5 className="font-semibold">Session {session.name}</h5>
        <p className="text-xs text-slate-600">{transactionText(session)}</p>
      </div>
      <Form method="post" preventScrollReset className="space-y-2">
        <input type="hidden" name="intent" value="sessions-run" />
        <input type="hidden" name="exercise" value={exercise.key} />
        <input type="hidden" name="session" value={session.name} />
        <SqlField
          id={sqlId}
          labelId={labelId}
          label={
            <>
              SQL for session {session.name}
              <span className="sr-only"> of {exercise.title}</span>
            </>
          }
          sent={sent}
          error={sqlError}
          tables={tables}
        />
        <button type="submit" className="btn-primary" disabled={busy || session.running !== null}>
          {busy ? 'Running…' : `Run in ${session.name}`}
        </button>
      </Form>
      {session.running ? (
        <p role="status" className="rounded-md bg-amber-50 p-2 text-sm text-amber-900">
          <code className="[overflow-wrap:anywhere]">{session.running.sql}</code>:{' '}
          <strong>{session.running.waiting ? 'waiting for a lock…' : 'running…'}</strong>
        </p>
      ) : null}
      <History base={base} session={session} />
    </div>
  )
}

/** The session's statements, latest first, each with how it ended. */
function History({ base, session }: { base: string; session: SessionView }) {
  if (session.history.length === 0) return <p className="text-sm text-slate-600">No statement run yet.</p>
  return (
    <div>
      <h6 id={`${base}-history`} className="text-sm font-medium text-slate-800">
        History of session {session.name}
      </h6>
      <ol aria-labelledby={`${base}-history`} className="mt-1 space-y-2" reversed>
        {[...session.history].reverse().map((item, i) => (
          <HistoryEntry key={session.history.length - i} item={item} label={`${base}-item-${i}`} />
        ))}
      </ol>
    </div>
  )
}

function HistoryEntry({ item, label }: { item: HistoryItem; label: string }) {
  return (
    <li className="rounded bg-slate-50 p-2 text-xs">
      <code className="block font-mono [overflow-wrap:anywhere]">{item.sql}</code>
      <p className={item.ok ? 'mt-1 text-slate-700' : 'mt-1 text-red-800'}>
        {item.waited ? <span className="font-medium">Waited for a lock, then </span> : null}
        {item.ok
          ? `${item.command}${item.rowCount !== null && item.command !== 'SELECT' ? ` ${item.rowCount}` : ''}`
          : `failed${item.code ? ` (${item.code})` : ''}: ${item.message}`}
      </p>
      {item.ok && item.columns.length > 0 ? <Rows item={item} label={label} /> : null}
    </li>
  )
}

function Rows({ item, label }: { item: Extract<HistoryItem, { ok: true }>; label: string }) {
  return (
    <>
      <p id={label} className="mt-1 text-slate-600">
        {item.rows.length < item.total
          ? `The first ${item.rows.length} of ${item.total} rows`
          : `${item.total} ${item.total === 1 ? 'row' : 'rows'}`}
      </p>
      <RowsTable
        labelledBy={label}
        columns={item.columns}
        rows={item.rows}
        className="mt-1 max-h-60 overflow-y-auto rounded border border-slate-200 bg-white"
        tableClassName="min-w-full text-left"
      />
    </>
  )
}

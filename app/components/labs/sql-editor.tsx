import type { EditorView } from 'codemirror'
import { type ReactNode, useEffect, useRef, useState } from 'react'

/**
 * The SQL of one exercise: a plain `<textarea name>` as the server renders it (so the form posts it without
 * JavaScript), with CodeMirror 6 mounted over it in the browser. CodeMirror is imported here only, when the
 * editor mounts, so no other page's bundle carries it; the textarea, hidden then, keeps the editor's text and
 * is what the form posts. The editor speaks PostgreSQL and completes the lab's table and column names.
 *
 * Keyboard: Tab is not bound (no `indentWithTab`), so Tab and Shift+Tab leave the editor as they leave any
 * field; Ctrl+Space opens completion and Enter takes the chosen one.
 */
function SqlEditor({
  id,
  name,
  defaultValue,
  labelId,
  describedBy,
  invalid,
  tables,
}: {
  id: string
  name: string
  defaultValue: string
  /** the visible label's id: the editor is named by it, as the textarea is by its `<label for>` */
  labelId: string
  describedBy?: string
  invalid?: boolean
  tables: { name: string; columns: { name: string }[] }[]
}) {
  const textarea = useRef<HTMLTextAreaElement>(null)
  const host = useRef<HTMLDivElement>(null)
  const view = useRef<EditorView | null>(null)
  const [mounted, setMounted] = useState(false)
  // the tables do not change while the page is open; the effect reads the first ones
  const schema = useRef(Object.fromEntries(tables.map((t) => [t.name, t.columns.map((c) => c.name)])))

  useEffect(() => {
    let cancelled = false
    void Promise.all([import('codemirror'), import('@codemirror/lang-sql')]).then(
      ([{ EditorView, basicSetup }, { sql, PostgreSQL }]) => {
        const area = textarea.current
        if (cancelled || !area || !host.current) return
        view.current = new EditorView({
          doc: area.value,
          parent: host.current,
          extensions: [
            basicSetup,
            sql({ dialect: PostgreSQL, schema: schema.current, upperCaseKeywords: true }),
            EditorView.lineWrapping,
            EditorView.contentAttributes.of({ 'aria-labelledby': labelId, spellcheck: 'false' }),
            EditorView.updateListener.of((update) => {
              if (update.docChanged) area.value = update.state.doc.toString()
            }),
            EditorView.theme({
              '&': { fontSize: '0.875rem', backgroundColor: '#fff' },
              '.cm-content': { minHeight: '7.5rem', fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' },
              '.cm-gutters': { color: '#475569' },
            }),
          ],
        })
        setMounted(true)
      },
    )
    return () => {
      cancelled = true
      view.current?.destroy()
      view.current = null
    }
  }, [labelId])

  // the field's error, as the textarea has it, on the editor's text box too
  useEffect(() => {
    const content = view.current?.contentDOM
    if (!content) return
    if (describedBy) content.setAttribute('aria-describedby', describedBy)
    else content.removeAttribute('aria-describedby')
    if (invalid) content.setAttribute('aria-invalid', 'true')
    else content.removeAttribute('aria-invalid')
  }, [mounted, describedBy, invalid])

  return (
    <div>
      <textarea
        ref={textarea}
        id={id}
        name={name}
        defaultValue={defaultValue}
        rows={6}
        spellCheck={false}
        autoCapitalize="off"
        autoComplete="off"
        aria-describedby={describedBy}
        aria-invalid={invalid || undefined}
        hidden={mounted}
        // .field-input sets its display, which would show a hidden textarea: once hidden, it has no class
        className={mounted ? 'hidden' : 'field-input font-mono text-sm'}
      />
      <div
        ref={host}
        data-sql-editor
        className={
          mounted
            ? 'overflow-hidden rounded-md border border-slate-300 focus-within:border-brand-500 focus-within:ring-2 focus-within:ring-brand-500/40'
            : 'hidden'
        }
      />
    </div>
  )
}

/**
 * A form's SQL field: its visible label, the editor named by it, and the field's error under it (described by it
 * once there is one). The form posts it as `sql`.
 */
export function SqlField({
  id,
  labelId,
  label,
  sent,
  error,
  tables,
}: {
  id: string
  labelId: string
  label: ReactNode
  /** the SQL as last sent, shown again */
  sent: string
  error?: string
  tables: { name: string; columns: { name: string }[] }[]
}) {
  const errorId = error ? `${id}-error` : undefined
  return (
    <>
      <label id={labelId} htmlFor={id} className="field-label">
        {label}
      </label>
      <SqlEditor
        id={id}
        name="sql"
        defaultValue={sent}
        labelId={labelId}
        describedBy={errorId}
        invalid={Boolean(error)}
        tables={tables}
      />
      <p id={errorId} className="field-error">
        {error}
      </p>
    </>
  )
}

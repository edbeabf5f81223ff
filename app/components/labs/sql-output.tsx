import { ScrollBox } from '#app/components/ui/scroll-box.tsx'

// What SQL gave, as the lab page shows it wherever it ran (graded on the server, a Run in the browser, a session of
// a two-session exercise): rows in a table that scrolls in its own box, and the place an error points at.

/** A value as PostgreSQL prints it, and NULL set apart from the text 'NULL'. */
export const cell = (value: string | null) =>
  value === null ? <span className="italic text-slate-600">NULL</span> : value

/** Rows under their column names, in a box labelled by the caption with this id, scrolling on its own. */
export function RowsTable({
  labelledBy,
  columns,
  rows,
  className = 'mt-1 max-h-96 overflow-y-auto rounded-md border border-slate-200',
  tableClassName = 'min-w-full text-left text-xs',
}: {
  labelledBy: string
  columns: string[]
  rows: (string | null)[][]
  className?: string
  tableClassName?: string
}) {
  return (
    <ScrollBox labelledBy={labelledBy} className={className}>
      <table className={tableClassName}>
        <thead className="sticky top-0 bg-slate-100">
          <tr>
            {columns.map((column, i) => (
              <th key={i} scope="col" className="whitespace-nowrap px-2 py-1 font-semibold">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 font-mono">
          {rows.map((row, i) => (
            <tr key={i}>
              {row.map((value, j) => (
                <td key={j} className="whitespace-nowrap px-2 py-1">
                  {cell(value)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  )
}

/** The line of the SQL a database error points at (1-based `position`), with a caret under the place. */
export function ErrorPlace({ sql, position, label }: { sql: string; position: number; label: string }) {
  const at = Math.min(Math.max(position - 1, 0), sql.length)
  const start = sql.lastIndexOf('\n', at - 1) + 1
  const end = sql.indexOf('\n', at)
  const line = sql.slice(start, end < 0 ? undefined : end)
  const lineNumber = sql.slice(0, start).split('\n').length
  const column = at - start
  // the caret's indent keeps the line's tabs, so it stands under the same character
  const indent = line.slice(0, column).replace(/[^\t]/g, ' ')
  return (
    <figure className="text-sm">
      <figcaption className="text-slate-700">
        The error is at line {lineNumber}, character {column + 1}:
      </figcaption>
      <ScrollBox label={label} className="mt-1 rounded-md bg-slate-900">
        <pre className="p-3 font-mono text-slate-50">
          {line}
          {'\n'}
          <span className="text-amber-300" aria-hidden>
            {indent}^
          </span>
        </pre>
      </ScrollBox>
    </figure>
  )
}

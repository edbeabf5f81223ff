import type { ReactNode } from 'react'
import { ColumnHeads } from './column-heads.tsx'
import { ScrollBox } from './scroll-box.tsx'

/** A cell of a table in a TableSection. */
export const TABLE_CELL = 'px-4 py-3 align-top text-slate-800'

/**
 * A part of an admin page that is one table: its heading, and the table in a card that scrolls sideways
 * on a phone (the heading names the scrolling region). Given `empty`, that is shown instead of the table.
 */
export function TableSection({
  id,
  title,
  caption,
  columns,
  empty,
  className = 'mt-6',
  children,
}: {
  id: string
  title: string
  /** the table's name for screen readers */
  caption: string
  columns: readonly (string | false | null)[]
  empty?: ReactNode
  className?: string
  children: ReactNode
}) {
  return (
    <section aria-labelledby={id} className={className}>
      <h2 id={id} className="text-lg font-semibold">
        {title}
      </h2>
      {empty ? (
        <p className="card mt-3 p-6 text-sm text-slate-600">{empty}</p>
      ) : (
        <ScrollBox labelledBy={id} className="card mt-3">
          <table className="min-w-full divide-y divide-slate-200 text-left text-sm">
            <caption className="sr-only">{caption}</caption>
            <ColumnHeads names={columns} className="px-4 py-3 font-semibold text-slate-700" />
            <tbody className="divide-y divide-slate-100 bg-white">{children}</tbody>
          </table>
        </ScrollBox>
      )}
    </section>
  )
}

import { Form, Link, useLocation, useNavigate, useSearchParams } from '@remix-run/react'
import { useId, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react'
import { useHydrated } from '#app/utils/use-hydrated.ts'
import { EmptyState } from './empty-state.tsx'
import { ScrollBox } from './scroll-box.tsx'
import { keptParams, PAGE_SIZES, tableHref, type SortDir } from './table-query.ts'

export type DataTableColumn<Row> = {
  /** Unique within the table. */
  id: string
  header: string
  cell: (row: Row) => ReactNode
  /** The `?sort=` value this column sorts by; without it the header is not a sort link. */
  sortKey?: string
  /** Extra classes for the column's header and cells (width, alignment). */
  className?: string
}

type DataTableSearch = {
  /** The query parameter; `q` unless told otherwise (what `parseTableQuery` reads). */
  name?: string
  value: string
  placeholder?: string
  /** The search box's label, read by screen readers; "Search" unless told otherwise. */
  label?: string
}

export type DataTableProps<Row> = {
  /** What the table lists ("Users List"); its accessible name. */
  label: string
  columns: DataTableColumn<Row>[]
  rows: Row[]
  getRowKey: (row: Row) => string | number
  /** Where a row leads: its first cell (or `linkColumn`) becomes a link and the whole row is clickable. */
  rowHref?: (row: Row) => string
  /** The id of the column whose cell carries the row's link; the first column by default. */
  linkColumn?: string
  total: number
  page: number
  pageSize: number
  sort?: string
  dir?: SortDir
  emptyText?: string
  /** What an empty table says under `emptyText`: why it is empty, and what to do (a link). */
  emptyHint?: ReactNode
  search?: DataTableSearch
  /** Controls shown beside the search box (an "Add New Course" button). */
  actions?: ReactNode
}

// Clicks on these inside a row do their own thing and must not also open the row.
const INTERACTIVE = 'a, button, input, select, textarea, label, summary, [role="button"], [role="link"]'

/**
 * A server-paged admin table (docs/product.md#admin-pages): paging, sorting, page size and search are plain GET
 * links and forms on the current URL, so they work without JavaScript, can be bookmarked, and keep
 * any other query parameter (a filter) as they are. Read the query back with `parseTableQuery`.
 */
export function DataTable<Row>({
  label,
  columns,
  rows,
  getRowKey,
  rowHref,
  linkColumn,
  total,
  page,
  pageSize,
  sort,
  dir = 'asc',
  emptyText = 'No Data Found',
  emptyHint,
  search,
  actions,
}: DataTableProps<Row>) {
  const { pathname } = useLocation()
  const [searchParams] = useSearchParams()
  const navigate = useNavigate()
  const hydrated = useHydrated()
  const id = useId()
  const href = (changes: Record<string, string | number | null>) => tableHref(pathname, searchParams, changes)

  const pageCount = Math.max(1, Math.ceil(total / pageSize))
  const offset = (page - 1) * pageSize
  const from = rows.length > 0 ? offset + 1 : 0
  const to = offset + rows.length
  const linkColumnId = linkColumn ?? columns[0]?.id
  const searchName = search?.name ?? 'q'

  function openRow(event: MouseEvent<HTMLTableRowElement>, target: string) {
    if (event.defaultPrevented || event.button !== 0) return
    if ((event.target as Element).closest(INTERACTIVE)) return
    // someone selecting text to copy it is not asking to leave the page
    if (window.getSelection()?.toString()) return
    if (event.metaKey || event.ctrlKey || event.shiftKey) window.open(target, '_blank', 'noopener')
    else navigate(target)
  }

  // Enter on the row's link follows it natively; Space should too, as it would on a row button.
  function onRowKeyDown(event: KeyboardEvent<HTMLTableRowElement>, target: string) {
    if (event.key !== ' ' || !(event.target as Element).matches('[data-row-link]')) return
    event.preventDefault()
    navigate(target)
  }

  return (
    <div className="card overflow-hidden">
      {search || actions ? (
        <div className="flex flex-wrap items-end justify-between gap-3 border-b border-slate-200 p-4">
          {search ? (
            <Form
              method="get"
              action={pathname}
              role="search"
              className="flex w-full flex-wrap items-end gap-2 sm:w-auto"
            >
              {keptParams(searchParams, [searchName, 'page']).map(([name, value], index) => (
                <input key={`${name}-${index}`} type="hidden" name={name} value={value} />
              ))}
              <div className="w-full sm:w-auto">
                <label htmlFor={`${id}-search`} className="field-label">
                  {search.label ?? 'Search'}
                </label>
                <input
                  id={`${id}-search`}
                  type="search"
                  name={searchName}
                  defaultValue={search.value}
                  key={search.value}
                  placeholder={search.placeholder}
                  className="field-input w-full sm:w-64"
                />
              </div>
              <button type="submit" className="btn-secondary">
                Search
              </button>
              {search.value ? (
                <Link to={href({ [searchName]: null, page: null })} className="btn px-2 text-brand-700 hover:underline">
                  Clear
                </Link>
              ) : null}
            </Form>
          ) : (
            <span />
          )}
          {actions ? <div className="flex items-center gap-2">{actions}</div> : null}
        </div>
      ) : null}

      {/* a table wider than the screen scrolls in its box, not the whole page; the sort links'
          screen-reader text stays inside the box too */}
      <ScrollBox label={label}>
        <table className="min-w-full divide-y divide-slate-200 text-left text-sm">
          <caption className="sr-only">{label}</caption>
          <thead className="bg-slate-50">
            <tr>
              {columns.map((column) => {
                const sorted = column.sortKey !== undefined && column.sortKey === sort
                const nextDir: SortDir = sorted && dir === 'asc' ? 'desc' : 'asc'
                return (
                  <th
                    key={column.id}
                    scope="col"
                    aria-sort={sorted ? (dir === 'asc' ? 'ascending' : 'descending') : undefined}
                    className={`px-4 py-3 font-semibold text-slate-700 ${column.className ?? ''}`}
                  >
                    {column.sortKey ? (
                      <Link
                        to={href({ sort: column.sortKey, dir: nextDir, page: null })}
                        className="inline-flex items-center gap-1 hover:text-brand-700"
                      >
                        {column.header}
                        <SortIcon state={sorted ? dir : null} />
                        <span className="sr-only">, sort {nextDir === 'asc' ? 'ascending' : 'descending'}</span>
                      </Link>
                    ) : (
                      column.header
                    )}
                  </th>
                )
              })}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 bg-white">
            {rows.length === 0 ? (
              <tr>
                <td colSpan={columns.length}>
                  <EmptyState title={emptyText} text={emptyHint} />
                </td>
              </tr>
            ) : (
              rows.map((row) => {
                const target = rowHref?.(row)
                return (
                  <tr
                    key={getRowKey(row)}
                    onClick={target ? (event) => openRow(event, target) : undefined}
                    onKeyDown={target ? (event) => onRowKeyDown(event, target) : undefined}
                    className={target ? 'cursor-pointer hover:bg-slate-50 focus-within:bg-brand-50' : undefined}
                  >
                    {columns.map((column) => (
                      <td key={column.id} className={`px-4 py-3 text-slate-800 ${column.className ?? ''}`}>
                        {target && column.id === linkColumnId ? (
                          <Link to={target} data-row-link className="font-medium text-brand-700 hover:underline">
                            {column.cell(row)}
                          </Link>
                        ) : (
                          column.cell(row)
                        )}
                      </td>
                    ))}
                  </tr>
                )
              })
            )}
          </tbody>
        </table>
      </ScrollBox>

      <div className="flex flex-wrap items-center justify-between gap-3 border-t border-slate-200 px-4 py-3 text-sm">
        <p aria-live="polite" aria-atomic="true" className="text-slate-600">
          {rows.length > 0 ? `Showing ${from}–${to} of ${total}` : `Showing 0 of ${total}`}
        </p>

        <Form method="get" action={pathname} className="flex items-center gap-2">
          {keptParams(searchParams, ['size', 'page']).map(([name, value], index) => (
            <input key={`${name}-${index}`} type="hidden" name={name} value={value} />
          ))}
          <label htmlFor={`${id}-size`} className="text-slate-600">
            Rows per page
          </label>
          <select
            id={`${id}-size`}
            name="size"
            defaultValue={String(pageSize)}
            key={pageSize}
            onChange={(event) => event.currentTarget.form?.requestSubmit()}
            className="rounded-md border border-slate-300 bg-white py-1 pl-2 pr-8 text-sm"
          >
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
          {/* Without JavaScript the choice needs a button; with it, the change submits by itself and the
              button only shows when a keyboard reaches it. */}
          <button
            type="submit"
            className={hydrated ? 'btn-secondary sr-only py-1 focus:not-sr-only' : 'btn-secondary py-1'}
          >
            Apply
          </button>
        </Form>

        <nav aria-label={`${label} pages`} className="flex items-center gap-2">
          <PageLink to={page > 1 ? href({ page: Math.min(page - 1, pageCount) }) : null} rel="prev">
            Previous
          </PageLink>
          <span className="tabular-nums text-slate-600">
            Page {page} of {pageCount}
          </span>
          <PageLink to={page < pageCount ? href({ page: page + 1 }) : null} rel="next">
            Next
          </PageLink>
        </nav>
      </div>
    </div>
  )
}

function PageLink({ to, rel, children }: { to: string | null; rel: 'prev' | 'next'; children: ReactNode }) {
  if (to === null) {
    // a link that goes nowhere: announced as a disabled link, not silently missing
    return (
      <a role="link" aria-disabled="true" className="btn-secondary cursor-not-allowed py-1 opacity-50">
        {children}
      </a>
    )
  }
  return (
    <Link to={to} rel={rel} className="btn-secondary py-1">
      {children}
    </Link>
  )
}

function SortIcon({ state }: { state: SortDir | null }) {
  return (
    <svg viewBox="0 0 10 14" className="h-3.5 w-2.5" fill="currentColor" aria-hidden>
      <path d="M5 0 10 5H0z" className={state === 'asc' ? 'text-brand-700' : 'opacity-30'} />
      <path d="M5 14 0 9h10z" className={state === 'desc' ? 'text-brand-700' : 'opacity-30'} />
    </svg>
  )
}

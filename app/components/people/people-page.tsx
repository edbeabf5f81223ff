import type { SubmissionResult } from '@conform-to/react'
import { Link, useSearchParams } from '@remix-run/react'
import type { ReactNode } from 'react'
import { DataTable, type DataTableColumn } from '#app/components/ui/data-table.tsx'
import { Overlay } from '#app/components/ui/overlay.tsx'
import { pagingProps, type TableQuery } from '#app/components/ui/table-query.ts'
import type { UserRow } from '#app/modules/users/service.server.ts'
import { DisabledBadge } from './disabled-badge.tsx'
import { PersonForm } from './person-form.tsx'

const COLUMNS: DataTableColumn<UserRow>[] = [
  {
    id: 'firstName',
    header: 'First Name',
    sortKey: 'firstName',
    // a disabled account says so in its row, in words
    cell: (r) => (
      <>
        {r.firstName}
        {r.disabled ? (
          <>
            {' '}
            <DisabledBadge />
          </>
        ) : null}
      </>
    ),
  },
  { id: 'lastName', header: 'Last Name', sortKey: 'lastName', cell: (r) => r.lastName },
  { id: 'email', header: 'Email', sortKey: 'email', cell: (r) => r.email },
  { id: 'userName', header: 'UserName', sortKey: 'userName', cell: (r) => r.userName },
]

/** Users List, Admin's List and Coach's List: a server-paged table and a "Create New …" popup (?new=1). */
export function PeoplePage<Row extends UserRow = UserRow>({
  title,
  path,
  kind,
  rows,
  total,
  query,
  createLabel,
  lastResult,
  rowHref,
  extraColumns = [],
  filters,
  children,
}: {
  title: string
  path: string
  kind: 'learner' | 'admin' | 'coach'
  rows: Row[]
  total: number
  query: TableQuery
  /** the create button's text; none when the viewer may not create */
  createLabel: string | null
  lastResult?: SubmissionResult<string[]>
  rowHref?: (row: Row) => string
  extraColumns?: DataTableColumn<Row>[]
  /** controls above the table that narrow it (GET forms on the same page) */
  filters?: ReactNode
  children?: ReactNode
}) {
  const [params] = useSearchParams()
  const without = new URLSearchParams(params)
  without.delete('new')
  const closeTo = `${path}${without.size ? `?${without}` : ''}`
  const opened = new URLSearchParams(params)
  opened.set('new', '1')
  return (
    <>
      <h1 className="text-2xl font-bold">{title}</h1>
      {filters}
      <div className="mt-6">
        <DataTable
          label={title}
          columns={[...(COLUMNS as DataTableColumn<Row>[]), ...extraColumns]}
          rows={rows}
          getRowKey={(r) => r._id}
          rowHref={rowHref}
          total={total}
          {...pagingProps(query)}
          emptyText={query.q ? `Nobody matches “${query.q}”.` : 'No Data Found'}
          search={{ value: query.q, placeholder: 'Search by name, username or email', label: `Search ${title}` }}
          actions={
            createLabel ? (
              <Link to={`?${opened}`} className="btn-primary" preventScrollReset>
                {createLabel}
              </Link>
            ) : null
          }
        />
      </div>
      {createLabel && params.get('new') ? (
        <Overlay title={createLabel} closeTo={closeTo}>
          <PersonForm kind={kind} action={`${path}?${params}`} lastResult={lastResult} cancelTo={closeTo} />
        </Overlay>
      ) : null}
      {children}
    </>
  )
}

import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { DataTable } from '#app/components/ui/data-table.tsx'
import { pagingProps, parseTableQuery } from '#app/components/ui/table-query.ts'
import { listAllAssessments } from '#app/modules/assessments/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'

const TITLE = 'User Assignment Documents'

export const meta: MetaFunction = () => [{ title: `${TITLE} · ${PRODUCT_NAME}` }]

const SORT_KEYS = ['createdAt', 'firstName', 'lastName', 'email', 'course'] as const

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const query = parseTableQuery(new URL(request.url), {
    sortKeys: SORT_KEYS,
    defaultSort: 'createdAt',
    defaultDir: 'desc',
  })
  const { rows, total } = await listAllAssessments(user, { ...query, limit: query.size })
  return json({
    rows: rows.map((row) => ({
      _id: row._id,
      firstName: row.firstName,
      lastName: row.lastName,
      email: row.email,
      courseTitle: row.courseTitle,
      scenarioName: row.scenarioName,
      fileName: row.document.name,
    })),
    total,
    query,
  })
}

export default function AssignmentDocumentList() {
  const { rows, total, query } = useLoaderData<typeof loader>()
  return (
    <>
      <h1 className="text-2xl font-bold">{TITLE}</h1>
      <div className="mt-6">
        <DataTable
          label={TITLE}
          columns={[
            { id: 'firstName', header: 'First Name', sortKey: 'firstName', cell: (row) => row.firstName },
            { id: 'lastName', header: 'Last Name', sortKey: 'lastName', cell: (row) => row.lastName },
            { id: 'email', header: 'Email', sortKey: 'email', cell: (row) => row.email },
            { id: 'course', header: 'Related Course', sortKey: 'course', cell: (row) => row.courseTitle },
            { id: 'scenario', header: 'Related Scenario', cell: (row) => row.scenarioName },
            { id: 'fileName', header: 'File Name', cell: (row) => row.fileName },
          ]}
          // the file name says what the row opens
          linkColumn="fileName"
          rows={rows}
          getRowKey={(row) => row._id}
          rowHref={(row) => `/admin/assignmentDocumentViewer/${row._id}`}
          total={total}
          {...pagingProps(query)}
          emptyText={query.q ? `No Assignment found for “${query.q}”.` : 'No Assignment found'}
          search={{
            value: query.q,
            placeholder: 'Name, email, course or file',
            label: 'Search assessments',
          }}
        />
      </div>
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { CourseImage } from '#app/components/course/course-image.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { DataTable } from '#app/components/ui/data-table.tsx'
import { pagingProps, parseTableQuery } from '#app/components/ui/table-query.ts'
import { can } from '#app/modules/auth/permissions.ts'
import { listPrograms } from '#app/modules/programs/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'

export const meta: MetaFunction = () => [{ title: `Programs · ${PRODUCT_NAME}` }]

const SORT_KEYS = ['title'] as const

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const query = parseTableQuery(new URL(request.url), { sortKeys: SORT_KEYS, defaultSort: 'title' })
  const { rows, total } = await listPrograms(user, {
    q: query.q,
    dir: query.dir,
    offset: query.offset,
    limit: query.size,
  })
  return json({
    rows: rows.map((program) => ({
      _id: program._id,
      title: program.title,
      description: program.description,
      image: program.programImage?.link ?? null,
      courses: program.courses.map((course) => course.title),
    })),
    total,
    query,
    canEdit: can(user, 'update:content'),
  })
}

export default function ProgramList() {
  const { rows, total, query, canEdit } = useLoaderData<typeof loader>()
  return (
    <>
      <h1 className="text-2xl font-bold">Program List</h1>
      <div className="mt-6">
        <DataTable
          label="Program List"
          columns={[
            {
              id: 'image',
              header: 'Image',
              className: 'w-28',
              cell: (row) => <CourseImage src={row.image} title={row.title} className="w-24 rounded" />,
            },
            {
              id: 'title',
              header: 'Name',
              sortKey: 'title',
              className: 'w-1/4',
              cell: (row) => row.title,
            },
            {
              id: 'courses',
              header: 'Courses',
              className: 'w-1/4',
              cell: (row) => (
                <span className="text-xs text-slate-600">
                  {row.courses.length === 1 ? '1 course' : `${row.courses.length} courses`}
                  {row.courses.length ? `: ${row.courses.join(' · ')}` : ''}
                </span>
              ),
            },
            {
              id: 'description',
              header: 'Description',
              cell: (row) => (
                <p className="line-clamp-3 whitespace-pre-line text-sm text-slate-700">{row.description}</p>
              ),
            },
          ]}
          rows={rows}
          getRowKey={(row) => row._id}
          rowHref={(row) => `/admin/program/${row._id}`}
          linkColumn="title"
          total={total}
          {...pagingProps(query)}
          emptyText={query.q ? `No program matches “${query.q}”.` : 'No Data Found'}
          search={{ value: query.q, placeholder: 'Search programs', label: 'Search programs' }}
          actions={
            canEdit ? (
              <Link to="/admin/newProgram" className="btn-primary">
                Add New Program
              </Link>
            ) : null
          }
        />
      </div>
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

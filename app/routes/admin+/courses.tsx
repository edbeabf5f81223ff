import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { CourseImage } from '#app/components/course/course-image.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { DataTable } from '#app/components/ui/data-table.tsx'
import { parseTableQuery } from '#app/components/ui/table-query.ts'
import { can } from '#app/modules/auth/permissions.ts'
import { listCatalogue } from '#app/modules/courses/catalogue.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatCourseDuration } from '#app/utils/format.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'

export const meta: MetaFunction = () => [{ title: `Courses · ${PRODUCT_NAME}` }]

const SORT_KEYS = ['title', 'createdAt', 'duration'] as const

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const query = parseTableQuery(new URL(request.url), { sortKeys: SORT_KEYS, defaultSort: 'title' })
  const { rows, total } = await listCatalogue(user, { ...query, limit: query.size })
  return json({ rows, total, query, canEdit: can(user, 'update:content') })
}

export default function CourseList() {
  const { rows, total, query, canEdit } = useLoaderData<typeof loader>()
  return (
    <>
      <h1 className="text-2xl font-bold">Course List</h1>
      <div className="mt-6">
        <DataTable
          label="Course List"
          columns={[
            {
              id: 'image',
              header: 'Image',
              className: 'w-28',
              cell: (row) => (
                <CourseImage src={row.courseImage?.link ?? null} title={row.title} className="w-24 rounded" />
              ),
            },
            { id: 'title', header: 'Name', sortKey: 'title', cell: (row) => row.title },
            {
              id: 'duration',
              header: 'Duration',
              sortKey: 'duration',
              className: 'w-56',
              cell: (row) => formatCourseDuration(row.duration),
            },
          ]}
          linkColumn="title"
          rows={rows}
          getRowKey={(row) => row._id}
          rowHref={(row) => `/admin/course/${row._id}`}
          total={total}
          page={query.page}
          pageSize={query.size}
          sort={query.sort}
          dir={query.dir}
          emptyText={query.q ? `No course matches “${query.q}”.` : 'No Data Found'}
          search={{ value: query.q, placeholder: 'Search courses', label: 'Search courses' }}
          actions={
            canEdit ? (
              <Link to="/admin/newCourse" className="btn-primary">
                Add New Course
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

import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { CatalogueList } from '#app/components/admin/catalogue-list.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
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
    <CatalogueList
      heading="Course List"
      noun="course"
      rows={rows}
      total={total}
      query={query}
      image={(row) => row.courseImage?.link ?? null}
      columns={[
        {
          id: 'duration',
          header: 'Duration',
          sortKey: 'duration',
          className: 'w-56',
          cell: (row) => formatCourseDuration(row.duration),
        },
      ]}
      rowHref={(row) => `/admin/course/${row._id}`}
      add={canEdit ? { to: '/admin/newCourse', label: 'Add New Course' } : null}
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

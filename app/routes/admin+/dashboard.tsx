import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { dashboardCounts } from '#app/modules/courses/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'

export const meta: MetaFunction = () => [{ title: `Dashboard · ${PRODUCT_NAME}` }]

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  return json({ counts: await dashboardCounts(user) })
}

export default function Dashboard() {
  const { counts } = useLoaderData<typeof loader>()
  const cards = [
    { label: 'Total Courses', value: counts.courses, to: '/admin/courses' },
    { label: 'Total Users', value: counts.users, to: '/admin/users' },
    { label: 'Total Admins', value: counts.admins, to: '/admin/adminUsers' },
  ]
  return (
    <>
      <h1 className="text-2xl font-bold">Dashboard</h1>
      <ul className="mt-6 grid gap-6 sm:grid-cols-3">
        {cards.map((card) => (
          <li key={card.label}>
            <Link
              to={card.to}
              className="card block p-6 transition hover:border-brand-500 hover:shadow-md"
              data-testid="count-card"
            >
              <p className="text-sm font-medium text-slate-500">{card.label}</p>
              <p className="mt-2 text-4xl font-bold tabular-nums text-brand-900">{card.value}</p>
            </Link>
          </li>
        ))}
      </ul>
    </>
  )
}

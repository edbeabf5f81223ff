import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useActionData, useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PeoplePage } from '#app/components/people/people-page.tsx'
import { can } from '#app/modules/auth/permissions.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { type FormReply, pageAction } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide, requirePeopleManager } from '#app/utils/session.server.ts'
import { createPerson, loadPeople } from './__people.server.ts'

export const meta: MetaFunction = () => [{ title: `Users · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  return json({ ...(await loadPeople(user, request, 'learner')), canCreate: can(user, 'manage:people') })
}

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requirePeopleManager(request, '/admin/users')
  return createPerson(user, request, 'learner', '/admin/users')
}

export default function UsersList() {
  const { rows, total, query, canCreate } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  return (
    <PeoplePage
      title="Users List"
      path="/admin/users"
      kind="learner"
      rows={rows}
      total={total}
      query={query}
      createLabel={canCreate ? 'Create New User' : null}
      lastResult={actionData?.result}
      rowHref={(r) => `/admin/user/${r._id}`}
    >
      {canCreate ? (
        <p className="mt-4 text-sm">
          Many people at once?{' '}
          <Link to="/admin/users/import" className="font-medium text-brand-700 underline">
            Import users
          </Link>{' '}
          from a CSV file.
        </p>
      ) : null}
    </PeoplePage>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

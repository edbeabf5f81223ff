import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PeoplePage } from '#app/components/people/people-page.tsx'
import { can } from '#app/modules/auth/permissions.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { type FormReply, pageAction } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide, requirePeopleManager } from '#app/utils/session.server.ts'
import { createPerson, loadPeople } from './__people.server.ts'

export const meta: MetaFunction = () => [{ title: `Coaches · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  return json({ ...(await loadPeople(user, request, 'coach')), canCreate: can(user, 'manage:people') })
}

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requirePeopleManager(request, '/admin/coach')
  return createPerson(user, request, 'coach', '/admin/coach')
}

export default function CoachList() {
  const { rows, total, query, canCreate } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  return (
    <PeoplePage
      title="Coach's List"
      path="/admin/coach"
      kind="coach"
      rows={rows}
      total={total}
      query={query}
      createLabel={canCreate ? 'Create New Coach' : null}
      lastResult={actionData?.result}
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

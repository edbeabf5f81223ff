import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PeoplePage } from '#app/components/people/people-page.tsx'
import { Overlay } from '#app/components/ui/overlay.tsx'
import { can } from '#app/modules/auth/permissions.ts'
import { ROLE, ROLE_NAMES, type RoleId } from '#app/modules/auth/roles.ts'
import { removeAdmin } from '#app/modules/users/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageAction, readForm, type FormReply } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'
import { createPerson, loadPeople } from './__people.server.ts'

export const meta: MetaFunction = () => [{ title: `Admins · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  return json({ ...(await loadPeople(user, request, 'admin')), superAdmin: can(user, 'manage:admins'), me: user.id })
}

/** Create New Admin and Remove; the services let only the super admin do either. */
// a refusal goes back to the list with a toast
export const action = (args: ActionFunctionArgs) =>
  pageAction(args, runAction, { redirects: [{ to: () => '/admin/adminUsers' }] })

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requireAdminSide(request)
  if (new URL(request.url).searchParams.get('remove')) {
    const userId = String((await readForm(request)).get('userId') ?? '')
    const { userName } = await removeAdmin(user, userId)
    return redirectWithSuccess('/admin/adminUsers', `Admin ${userName} removed.`)
  }
  return createPerson(user, request, 'admin', '/admin/adminUsers')
}

export default function AdminList() {
  const { rows, total, query, superAdmin, me } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  const [params] = useSearchParams()
  const navigation = useNavigation()
  const removing = rows.find((r) => r._id === params.get('remove'))
  return (
    <PeoplePage
      title="Admin's List"
      path="/admin/adminUsers"
      kind="admin"
      rows={rows}
      total={total}
      query={query}
      createLabel={superAdmin ? 'Create New Admin' : null}
      lastResult={actionData?.result}
      extraColumns={[
        { id: 'role', header: 'Role', cell: (r) => ROLE_NAMES[r.role.r_id as RoleId] },
        ...(superAdmin
          ? [
              {
                id: 'remove',
                header: 'Actions',
                cell: (r: (typeof rows)[number]) =>
                  r.role.r_id === ROLE.admin && r._id !== me ? (
                    <Link
                      to={`?remove=${r._id}`}
                      preventScrollReset
                      className="text-sm font-medium text-red-700 hover:underline"
                      aria-label={`Remove ${r.userName}`}
                    >
                      Remove
                    </Link>
                  ) : null,
              },
            ]
          : []),
      ]}
    >
      {superAdmin && removing ? (
        <Overlay
          title="Remove admin"
          role="alertdialog"
          closeTo="/admin/adminUsers"
          description={`Remove ${removing.firstName} ${removing.lastName} (${removing.userName})? Their account is deleted and they can no longer sign in.`}
        >
          <Form method="post" action={`?remove=${removing._id}`} className="flex justify-end gap-3">
            <input type="hidden" name="userId" value={removing._id} />
            <a href="/admin/adminUsers" className="btn-secondary">
              Cancel
            </a>
            <button
              type="submit"
              className="btn bg-red-600 text-white hover:bg-red-700"
              disabled={navigation.state !== 'idle'}
            >
              Remove
            </button>
          </Form>
        </Overlay>
      ) : null}
    </PeoplePage>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

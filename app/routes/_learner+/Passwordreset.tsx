import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json } from '@remix-run/node'
import { useActionData } from '@remix-run/react'
import { PasswordForm } from '#app/components/account/password-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { type FormReply, pageAction } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireUser } from '#app/utils/session.server.ts'
import { passwordAction } from './__account.server.ts'

export const meta: MetaFunction = () => [{ title: `Reset Password · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  await requireUser(request)
  return json(null)
}
export const action = (args: ActionFunctionArgs) => pageAction(args, ({ request }) => passwordAction(request))

export default function ChangePassword() {
  const actionData = useActionData<FormReply>()
  return <PasswordForm lastResult={actionData?.result} />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

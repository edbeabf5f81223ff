import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useActionData } from '@remix-run/react'
import { ResetPasswordForm } from '#app/components/account/reset-password-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { type FormReply, pageAction } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { resetPageAction, resetPageLoader, UNUSABLE_LINK } from './__reset-password.server.ts'

export const meta: MetaFunction = () => [{ title: `Reset Password · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) =>
  pageLoader(args, ({ params }) => resetPageLoader(params.token ?? ''), { redirects: UNUSABLE_LINK })
export const action = (args: ActionFunctionArgs) =>
  pageAction(args, ({ request, params }) => resetPageAction(request, params.token ?? ''), { redirects: UNUSABLE_LINK })

export default function ResetPassword() {
  const actionData = useActionData<FormReply>()
  return <ResetPasswordForm action="" lastResult={actionData?.result} />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

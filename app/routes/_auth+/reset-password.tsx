import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useActionData, useSearchParams } from '@remix-run/react'
import { ResetPasswordForm } from '#app/components/account/reset-password-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { type FormReply, pageAction } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { resetPageAction, resetPageLoader, UNUSABLE_LINK } from './__reset-password.server.ts'

export const meta: MetaFunction = () => [{ title: `Reset Password · ${PRODUCT_NAME}` }]

const tokenOf = (request: Request) => new URL(request.url).searchParams.get('token') ?? ''

export const loader = (args: LoaderFunctionArgs) =>
  pageLoader(args, ({ request }) => resetPageLoader(tokenOf(request)), { redirects: UNUSABLE_LINK })
export const action = (args: ActionFunctionArgs) =>
  pageAction(args, ({ request }) => resetPageAction(request, tokenOf(request)), { redirects: UNUSABLE_LINK })

export default function ResetPasswordByQuery() {
  const actionData = useActionData<FormReply>()
  const [params] = useSearchParams()
  return (
    <ResetPasswordForm
      action={`?${new URLSearchParams({ token: params.get('token') ?? '' })}`}
      lastResult={actionData?.result}
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

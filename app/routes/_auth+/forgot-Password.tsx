import { parseWithZod } from '@conform-to/zod'
import type { ActionFunctionArgs, MetaFunction } from '@remix-run/node'
import { useActionData, useSearchParams } from '@remix-run/react'
import { AuthForm } from '#app/components/account/auth-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormField } from '#app/components/forms/fields.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { requestPasswordReset } from '#app/modules/auth/password-links.server.ts'
import { FORGOT_PASSWORD_ANSWER, ForgotPasswordFormSchema } from '#app/modules/auth/schema.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageAction, invalidForm, readForm, type FormReply } from '#app/utils/forms.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

export const meta: MetaFunction = () => [{ title: `Forgot Password · ${PRODUCT_NAME}` }]

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request }: ActionFunctionArgs) {
  const submission = parseWithZod(await readForm(request), { schema: ForgotPasswordFormSchema })
  if (submission.status !== 'success') return invalidForm(submission)
  await requestPasswordReset(submission.value.email)
  return redirectWithSuccess('/forgot-Password?sent=1', 'Check your mail for the reset link.')
}

export default function ForgotPassword() {
  const actionData = useActionData<FormReply>()
  const [params] = useSearchParams()
  const [form, fields] = useZodForm(ForgotPasswordFormSchema, {
    id: 'forgot',
    lastResult: actionData?.result,
  })
  return (
    <AuthForm
      form={form}
      title="Forgot Password"
      intro="Enter your email and we send you a link to choose a new password."
      notice={params.get('sent') ? FORGOT_PASSWORD_ANSWER : undefined}
      submit="Send reset link"
      link={{ to: '/sign-in', label: 'Back to Sign in' }}
    >
      <FormField meta={fields.email} label="Email" type="email" autoComplete="email" />
    </AuthForm>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

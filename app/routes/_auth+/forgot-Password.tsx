import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import type { ActionFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useNavigation, useSearchParams } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormField } from '#app/components/forms/fields.tsx'
import { FormSubmit } from '#app/components/forms/form-submit.tsx'
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
  const navigation = useNavigation()
  const [params] = useSearchParams()
  const [form, fields] = useZodForm(ForgotPasswordFormSchema, {
    id: 'forgot',
    lastResult: actionData?.result,
  })
  return (
    <div className="card w-full max-w-md p-8">
      <h1 className="text-2xl font-bold">Forgot Password</h1>
      {params.get('sent') ? (
        <p role="status" className="mt-4 rounded-md bg-emerald-50 p-4 text-sm text-emerald-900">
          {FORGOT_PASSWORD_ANSWER}
        </p>
      ) : (
        <p className="mt-1 text-sm text-slate-600">Enter your email and we send you a link to choose a new password.</p>
      )}
      <Form method="post" className="mt-6 space-y-2" {...getFormProps(form)}>
        <FormField meta={fields.email} label="Email" type="email" autoComplete="email" />
        <FormSubmit
          form={form}
          label="Send reset link"
          busy={navigation.state === 'submitting'}
          className="btn-primary w-full"
        />
      </Form>
      <p className="mt-4 text-center text-sm">
        <Link to="/sign-in" className="font-medium text-brand-600 hover:underline">
          Back to Sign in
        </Link>
      </p>
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

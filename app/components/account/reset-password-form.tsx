import { getFormProps, type SubmissionResult } from '@conform-to/react'
import { Form, useNavigation } from '@remix-run/react'
import { FormPasswordField } from '#app/components/forms/fields.tsx'
import { FormSubmit } from '#app/components/forms/form-submit.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { NewPasswordSchema, PASSWORD_HINT } from '#app/modules/users/schema.ts'

/** The page a reset or invitation link opens: the new password twice. */
export function ResetPasswordForm({ action, lastResult }: { action: string; lastResult?: SubmissionResult<string[]> }) {
  const navigation = useNavigation()
  const [form, fields] = useZodForm(NewPasswordSchema, {
    id: 'reset',
    lastResult,
  })
  return (
    <div className="card w-full max-w-md p-8">
      <h1 className="text-2xl font-bold">Choose a new password</h1>
      <p className="mt-1 text-sm text-slate-600">{PASSWORD_HINT}</p>
      <Form method="post" action={action} className="mt-6 space-y-2" {...getFormProps(form)}>
        <FormPasswordField meta={fields.password} label="New Password" autoComplete="new-password" />
        <FormPasswordField meta={fields.confirmPassword} label="Confirm Password" autoComplete="new-password" />
        <FormSubmit
          form={form}
          label="Set password"
          busy={navigation.state === 'submitting'}
          className="btn-primary w-full"
        />
      </Form>
    </div>
  )
}

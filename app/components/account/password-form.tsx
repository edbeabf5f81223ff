import { getFormProps, type SubmissionResult } from '@conform-to/react'
import { Form, useNavigation } from '@remix-run/react'
import { FormPasswordField } from '#app/components/forms/fields.tsx'
import { FormSubmit } from '#app/components/forms/form-submit.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { PASSWORD_HINT, PasswordChangeSchema } from '#app/modules/users/schema.ts'

/** Reset Password from the user menu: the current password, then the new one twice; then sign in again. */
export function PasswordForm({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const navigation = useNavigation()
  const [form, fields] = useZodForm(PasswordChangeSchema, {
    id: 'password',
    lastResult,
  })
  const saving = navigation.state === 'submitting'
  return (
    <div className="max-w-xl">
      <h1 id="password-heading" className="text-2xl font-bold">
        Reset Password
      </h1>
      <p className="mt-1 text-sm text-slate-600">{PASSWORD_HINT} You will sign in again afterwards, on every device.</p>
      <Form
        method="post"
        className="card mt-6 space-y-1 p-6"
        aria-labelledby="password-heading"
        {...getFormProps(form)}
      >
        <FormPasswordField meta={fields.currentPassword} label="Current Password" autoComplete="current-password" />
        <FormPasswordField meta={fields.password} label="Password" autoComplete="new-password" />
        <FormPasswordField meta={fields.confirmPassword} label="Confirm Password" autoComplete="new-password" />
        <FormSubmit form={form} label="Change Password" busy={saving} busyLabel="Saving…" />
      </Form>
    </div>
  )
}

import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { Form, useNavigation } from '@remix-run/react'
import { PasswordField } from '#app/components/ui/field.tsx'
import { FormError } from '#app/components/ui/form-footer.tsx'
import { PASSWORD_HINT, PasswordChangeSchema } from '#app/modules/users/schema.ts'

/** Reset Password from the user menu: the current password, then the new one twice; then sign in again. */
export function PasswordForm({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const navigation = useNavigation()
  const [form, fields] = useForm({
    id: 'password',
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: PasswordChangeSchema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  const saving = navigation.state === 'submitting'
  return (
    <div className="max-w-xl">
      <h1 className="text-2xl font-bold">Reset Password</h1>
      <p className="mt-1 text-sm text-slate-600">{PASSWORD_HINT} You will sign in again afterwards, on every device.</p>
      <Form method="post" className="card mt-6 space-y-1 p-6" {...getFormProps(form)}>
        <PasswordField
          label="Current Password"
          errors={fields.currentPassword.errors}
          inputProps={{
            ...getInputProps(fields.currentPassword, { type: 'password' }),
            autoComplete: 'current-password',
          }}
        />
        <PasswordField
          label="Password"
          errors={fields.password.errors}
          inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'new-password' }}
        />
        <PasswordField
          label="Confirm Password"
          errors={fields.confirmPassword.errors}
          inputProps={{ ...getInputProps(fields.confirmPassword, { type: 'password' }), autoComplete: 'new-password' }}
        />
        <FormError id={form.errorId} errors={form.errors} />
        <button type="submit" className="btn-primary" disabled={saving}>
          {saving ? 'Saving…' : 'Change Password'}
        </button>
      </Form>
    </div>
  )
}

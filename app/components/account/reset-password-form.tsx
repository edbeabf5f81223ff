import { type SubmissionResult } from '@conform-to/react'
import { FormPasswordField } from '#app/components/forms/fields.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { NewPasswordSchema, PASSWORD_HINT } from '#app/modules/users/schema.ts'
import { AuthForm } from './auth-form.tsx'

/** The page a reset or invitation link opens: the new password twice. */
export function ResetPasswordForm({ action, lastResult }: { action: string; lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useZodForm(NewPasswordSchema, {
    id: 'reset',
    lastResult,
  })
  return (
    <AuthForm form={form} title="Choose a new password" intro={PASSWORD_HINT} action={action} submit="Set password">
      <FormPasswordField meta={fields.password} label="New Password" autoComplete="new-password" />
      <FormPasswordField meta={fields.confirmPassword} label="Confirm Password" autoComplete="new-password" />
    </AuthForm>
  )
}

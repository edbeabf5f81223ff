import { getFormProps, type SubmissionResult } from '@conform-to/react'
import { Form, useNavigation } from '@remix-run/react'
import { FormField, FormPasswordField } from '#app/components/forms/fields.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { FormError } from '#app/components/ui/form-footer.tsx'
import { NewCoachSchema, RegisterSchema } from '#app/modules/users/schema.ts'

/**
 * The registration popup (Create New User, Create New Admin: the registration rules) and the Create New
 * Coach popup (no password: the coach chooses one from the invitation mail).
 */
export function PersonForm({
  kind,
  action,
  lastResult,
  cancelTo,
}: {
  kind: 'learner' | 'admin' | 'coach'
  action: string
  lastResult?: SubmissionResult<string[]>
  cancelTo: string
}) {
  const navigation = useNavigation()
  const withPassword = kind !== 'coach'
  const [form, fields] = useZodForm(withPassword ? RegisterSchema : NewCoachSchema, {
    id: `new-${kind}`,
    lastResult,
  })
  const saving = navigation.state === 'submitting'
  return (
    <Form method="post" action={action} className="space-y-1" {...getFormProps(form)}>
      <div className="grid gap-x-4 sm:grid-cols-2">
        <FormField meta={fields.firstName} label="First Name" />
        <FormField meta={fields.lastName} label="Last Name" />
      </div>
      <FormField meta={fields.userName} label="UserName" />
      <FormField meta={fields.email} label="Email" type="email" />
      {withPassword ? (
        <>
          <FormPasswordField meta={fields.password} label="Password" autoComplete="new-password" />
          <FormPasswordField meta={fields.confirmPassword} label="Confirm Password" autoComplete="new-password" />
        </>
      ) : null}
      <p className="text-sm text-slate-600">
        {withPassword
          ? 'They also get a mail with a link to choose their own password.'
          : 'The coach gets a mail with a link to set a password (valid 7 days).'}
      </p>
      <FormError id={form.errorId} errors={form.errors} />
      <div className="flex justify-end gap-3">
        <a href={cancelTo} className="btn-secondary">
          Cancel
        </a>
        <button type="submit" className="btn-primary" disabled={saving}>
          {saving ? 'Creating…' : 'Create'}
        </button>
      </div>
    </Form>
  )
}

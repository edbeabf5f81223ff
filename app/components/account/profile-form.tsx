import { getFormProps, type SubmissionResult } from '@conform-to/react'
import { Form, useNavigation } from '@remix-run/react'
import { FormField } from '#app/components/forms/fields.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { FormFooter } from '#app/components/ui/form-footer.tsx'
import { ProfileSchema } from '#app/modules/users/schema.ts'

type Profile = { firstName: string; lastName: string; userName: string; email: string }

/** Edit Profile: names and username; the email is shown but cannot change. */
export function ProfileForm({ profile, lastResult }: { profile: Profile; lastResult?: SubmissionResult<string[]> }) {
  const navigation = useNavigation()
  const [form, fields] = useZodForm(ProfileSchema, {
    id: 'profile',
    lastResult,
    defaultValue: profile,
  })
  // the page's other form (Log out everywhere) is not a save
  const saving = navigation.state === 'submitting' && !navigation.formData?.has('intent')
  return (
    <div className="max-w-xl">
      <h1 className="text-2xl font-bold">Edit Profile</h1>
      <Form method="post" className="card mt-6 space-y-1 p-6" {...getFormProps(form)}>
        <FormField meta={fields.firstName} label="First Name" autoComplete="given-name" />
        <FormField meta={fields.lastName} label="Last Name" autoComplete="family-name" />
        <FormField meta={fields.userName} label="UserName" autoComplete="username" />
        {/* shown, never posted: the address the form was opened with, whatever a refused save sent back */}
        <FormField meta={fields.email} label="Email" type="email" defaultValue={profile.email} disabled readOnly />
        <FormFooter errorId={form.errorId} error={form.errors?.[0]} saving={saving} />
      </Form>
    </div>
  )
}

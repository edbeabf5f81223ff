import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { Form, useNavigation } from '@remix-run/react'
import { Field } from '#app/components/ui/field.tsx'
import { FormFooter } from '#app/components/ui/form-footer.tsx'
import { ProfileSchema } from '#app/modules/users/schema.ts'

type Profile = { firstName: string; lastName: string; userName: string; email: string }

/** Edit Profile: names and username; the email is shown but cannot change. */
export function ProfileForm({ profile, lastResult }: { profile: Profile; lastResult?: SubmissionResult<string[]> }) {
  const navigation = useNavigation()
  const [form, fields] = useForm({
    id: 'profile',
    lastResult,
    defaultValue: profile,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ProfileSchema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  // the page's other form (Log out everywhere) is not a save
  const saving = navigation.state === 'submitting' && !navigation.formData?.has('intent')
  return (
    <div className="max-w-xl">
      <h1 className="text-2xl font-bold">Edit Profile</h1>
      <Form method="post" className="card mt-6 space-y-1 p-6" {...getFormProps(form)}>
        <Field
          label="First Name"
          errors={fields.firstName.errors}
          inputProps={{ ...getInputProps(fields.firstName, { type: 'text' }), autoComplete: 'given-name' }}
        />
        <Field
          label="Last Name"
          errors={fields.lastName.errors}
          inputProps={{ ...getInputProps(fields.lastName, { type: 'text' }), autoComplete: 'family-name' }}
        />
        <Field
          label="UserName"
          errors={fields.userName.errors}
          inputProps={{ ...getInputProps(fields.userName, { type: 'text' }), autoComplete: 'username' }}
        />
        <Field
          label="Email"
          errors={fields.email.errors}
          inputProps={{ id: 'profile-email', type: 'email', value: profile.email, disabled: true, readOnly: true }}
        />
        <FormFooter errorId={form.errorId} error={form.errors?.[0]} saving={saving} />
      </Form>
    </div>
  )
}

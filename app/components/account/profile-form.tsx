import { getFormProps, type SubmissionResult } from '@conform-to/react'
import { Form, useNavigation } from '@remix-run/react'
import { FormField, FormSelectField } from '#app/components/forms/fields.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { FormFooter } from '#app/components/ui/form-footer.tsx'
import { Toggle } from '#app/components/ui/toggle.tsx'
import { ProfileSchema } from '#app/modules/users/schema.ts'

type Profile = {
  firstName: string
  lastName: string
  userName: string
  email: string
  timeZone: string
  reminderMails: boolean
}

/**
 * Edit Profile: names and username; the email is shown but cannot change. The time zone due dates are shown
 * in, and, where the admins let learners turn them off, the switch for reminder mails.
 */
export function ProfileForm({
  profile,
  timeZones,
  remindersSwitch,
  lastResult,
}: {
  profile: Profile
  /** the zones to choose from, the portal's default named as such */
  timeZones: { value: string; label: string }[]
  /** whether the reminder mails switch is shown (the admins let learners turn them off) */
  remindersSwitch: boolean
  lastResult?: SubmissionResult<string[]>
}) {
  const navigation = useNavigation()
  const [form, fields] = useZodForm(ProfileSchema, {
    id: 'profile',
    lastResult,
    // the switch keeps its own value: conform's defaults are a checkbox's, not true/false
    defaultValue: { ...profile, reminderMails: undefined },
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
        <FormSelectField meta={fields.timeZone} label="Time zone" options={timeZones} />
        <p className="pb-2 text-xs text-slate-500">Due dates are shown, and reminders sent, in this time zone.</p>
        {remindersSwitch ? (
          <div className="pb-3">
            <Toggle
              name={fields.reminderMails.name}
              label="Email me reminders about due dates"
              defaultChecked={profile.reminderMails}
            />
            <p id={fields.reminderMails.errorId} className="field-error">
              {fields.reminderMails.errors?.[0]}
            </p>
          </div>
        ) : null}
        <FormFooter errorId={form.errorId} error={form.errors?.[0]} saving={saving} />
      </Form>
    </div>
  )
}

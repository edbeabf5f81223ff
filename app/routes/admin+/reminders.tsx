import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormField } from '#app/components/forms/fields.tsx'
import { FormSubmit } from '#app/components/forms/form-submit.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { DetailList } from '#app/components/ui/detail-list.tsx'
import { Toggle } from '#app/components/ui/toggle.tsx'
import { can } from '#app/modules/auth/permissions.ts'
import { describePlan, REMINDER_HOUR, type ReminderPlan } from '#app/modules/deadlines/plan.ts'
import { readReminderSettings, saveReminderSettings } from '#app/modules/deadlines/service.server.ts'
import { daysText, ReminderSettingsFormSchema } from '#app/modules/deadlines/settings-form.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { invalidForm, pageAction, readForm, submitToService, type FormReply } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requirePagePermission } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

// The portal's reminder plan: on which days before and after a due date a learner who has not completed
// a course or program is mailed about it, and whether learners may turn those mails off. Admins change it
// (a plain form: it works without JavaScript, each field's refusal beside it); coaches read it.

export const meta: MetaFunction = () => [{ title: `Reminders · ${PRODUCT_NAME}` }]

const PAGE = '/admin/reminders'
const BACK = '/admin/dashboard'

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requirePagePermission(request, 'read:reminders', BACK)
  const settings = await readReminderSettings(user)
  return json(
    { settings, canManage: can(user, 'manage:reminders') },
    { headers: { 'Cache-Control': 'private, no-store' } },
  )
}

/** The hour reminders go from, as a clock shows it (08:00). */
const HOUR_FORMAT = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' })

/** What the plan says in words, as a sentence. */
const planSentence = (plan: ReminderPlan) =>
  plan.before.length + plan.after.length === 0
    ? 'No reminders are sent: both lists of days are empty.'
    : `Reminders go ${describePlan(plan)}.`

// a coach's save is sent back to the page with the refusal as a toast, as the page's guard words it
export const action = (args: ActionFunctionArgs) => pageAction(args, runAction, { redirects: [{ to: () => PAGE }] })

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requirePagePermission(request, 'manage:reminders', PAGE)
  const submission = parseWithZod(await readForm(request), { schema: ReminderSettingsFormSchema })
  if (submission.status !== 'success') return invalidForm(submission)
  const saved = await submitToService(submission, () => saveReminderSettings(user, submission.value))
  if (!saved.ok) return saved.response
  return redirectWithSuccess(PAGE, `Reminder plan saved. ${planSentence(saved.value.plan)}`)
}

export default function Reminders() {
  const { settings, canManage } = useLoaderData<typeof loader>()
  const hour = HOUR_FORMAT.format(Date.UTC(2000, 0, 1, REMINDER_HOUR))
  return (
    <div className="max-w-3xl">
      <h1 className="text-2xl font-bold">Reminders</h1>
      <p className="mt-2 text-sm text-slate-600">
        A learner with a due date on a course or program is mailed about it on the days of this plan, counted from the
        due day in the learner’s own time zone. Each reminder goes once, from {hour} on its day in that time zone; none
        goes once the learner has completed, nor about a course or program whose reminders are switched off on its page.
        An assignment given its own plan follows that instead.{' '}
        {canManage ? null : 'Only admins change the reminder plan.'}
      </p>

      <section className="card mt-6 p-4" aria-labelledby="plan-heading">
        <h2 id="plan-heading" className="text-lg font-semibold">
          The plan now
        </h2>
        <p className="mt-2 text-sm text-slate-700" data-testid="plan-sentence">
          {planSentence(settings.plan)}
        </p>
        <p className="mt-1 text-sm text-slate-700">
          {settings.learnersMayOptOut
            ? 'Learners may turn reminder mails off on their profile.'
            : 'Learners cannot turn reminder mails off.'}
        </p>
      </section>

      {canManage ? <SettingsForm /> : <SettingsRead />}
    </div>
  )
}

/** What a coach sees: the settings, with nothing to change. */
function SettingsRead() {
  const { settings } = useLoaderData<typeof loader>()
  const none = 'None'
  return (
    <section className="mt-6" aria-labelledby="settings-heading">
      <h2 id="settings-heading" className="text-lg font-semibold">
        Settings
      </h2>
      <DetailList
        className="mt-3 grid-cols-1 sm:grid-cols-3"
        items={[
          ['Days before the due date', daysText(settings.plan.before) || none],
          ['Days overdue', daysText(settings.plan.after) || none],
          ['Learners may turn reminder mails off', settings.learnersMayOptOut ? 'Yes' : 'No'],
        ]}
      />
      <p className="mt-3 text-sm text-slate-600">Only admins change these settings.</p>
    </section>
  )
}

/** The admins' form. */
function SettingsForm() {
  const { settings } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  const busy = useNavigation().state !== 'idle'
  const [form, fields] = useZodForm(ReminderSettingsFormSchema, {
    id: 'reminder-settings',
    lastResult: actionData?.result,
    defaultValue: {
      before: daysText(settings.plan.before),
      after: daysText(settings.plan.after),
      learnersMayOptOut: settings.learnersMayOptOut ? 'true' : 'false',
    },
  })
  const optOut = (fields.learnersMayOptOut.initialValue ?? String(settings.learnersMayOptOut)) === 'true'
  return (
    <Form method="post" className="card mt-6 space-y-2 p-4" aria-labelledby="settings-heading" {...getFormProps(form)}>
      <h2 id="settings-heading" className="text-lg font-semibold">
        Change the plan
      </h2>
      <p className="text-sm text-slate-600">
        Type the days separated by commas, such as 7, 1. Leave a field empty to send no reminders on that side; 0 days
        before is the due day itself.
      </p>
      <FormField meta={fields.before} label="Days before the due date" inputMode="numeric" autoComplete="off" />
      <FormField meta={fields.after} label="Days overdue" inputMode="numeric" autoComplete="off" />
      <div className="pb-2">
        <Toggle
          name="learnersMayOptOut"
          label="Learners may turn reminder mails off"
          onLabel="Yes"
          offLabel="No"
          defaultChecked={optOut}
        />
        <p className="mt-1 text-sm text-slate-600">
          Off by default: much assigned training is compliance training, whose reminders learners should not be able to
          silence.
        </p>
      </div>
      <FormSubmit form={form} label="Save reminders" busy={busy} busyLabel="Saving…" />
    </Form>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

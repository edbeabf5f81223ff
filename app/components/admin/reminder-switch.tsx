import { Form, Link, useNavigation } from '@remix-run/react'
import { Toggle } from '#app/components/ui/toggle.tsx'

// The Reminders panel of a course's or program's admin page: whether its learners are mailed about their due
// dates, in words, and (for admins, where the page has it) the switch, a plain form that works without
// JavaScript.

type Kind = 'course' | 'program'

export function RemindersPanel({
  kind,
  on,
  action,
  note,
}: {
  kind: Kind
  on: boolean
  /** where the switch posts; none for those who may not change it */
  action?: string
  /** a line for those who see no switch: who changes it, or where */
  note?: string
}) {
  const navigation = useNavigation()
  const busy = navigation.state !== 'idle' && navigation.formMethod === 'POST'
  return (
    <section className="card mt-6 p-4" aria-labelledby="reminders-heading" data-testid="reminders-panel">
      <h2 id="reminders-heading" className="text-lg font-semibold">
        Reminders
      </h2>
      <p className="mt-2 break-words text-sm text-slate-700">
        {on ? (
          <>
            <span className="font-medium text-emerald-800">On</span>: learners with a due date on this {kind} are mailed
            reminders as the{' '}
            <Link to="/admin/reminders" className="text-brand-700 underline">
              reminder plan
            </Link>{' '}
            says, until they complete it.
          </>
        ) : (
          <>
            <span className="font-medium text-slate-900">Off</span>: learners get no reminder mails about this {kind},
            whatever its due dates.
          </>
        )}
      </p>
      {action ? (
        <Form method="post" action={action} preventScrollReset className="mt-3 flex flex-wrap items-center gap-3">
          {/* keyed by the saved state, so the switch shows it again once saved */}
          <Toggle
            key={String(on)}
            name="reminders"
            label="Send reminders about due dates"
            onLabel="On"
            offLabel="Off"
            defaultChecked={on}
          />
          <button type="submit" className="btn-secondary py-1" disabled={busy}>
            Save reminders
          </button>
        </Form>
      ) : note ? (
        <p className="mt-1 text-sm text-slate-600">{note}</p>
      ) : null}
    </section>
  )
}

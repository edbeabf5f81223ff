import { getFormProps, type FieldMetadata, type FormMetadata } from '@conform-to/react'
import { Form, Link, useNavigation, useSearchParams } from '@remix-run/react'
import type { ReactNode } from 'react'
import { FormField } from '#app/components/forms/fields.tsx'
import { FormSubmit } from '#app/components/forms/form-submit.tsx'
import { Overlay } from '#app/components/ui/overlay.tsx'
import { TABLE_CELL } from '#app/components/ui/table-section.tsx'
import { UtcTime } from '#app/components/ui/utc-time.tsx'

// The parts the pages of schedules (Backups, Scheduled exports) share: a schedule's row with its name, when it
// runs, its Run now and Remove, the Add form with its name, timing and destination, a run's status, and the confirmation of
// a removal. The page posts `intent` (add, run, remove) and `name` to itself (scheduleFormAction).

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schedule form's field
type Meta = FieldMetadata<any, any, string[]>

/**
 * A schedule's row: its name and When (the cron, its time zone, the next run), the area's own cells
 * (`children`), and, with `actions`, Run now and Remove (which asks first, through `?remove=<name>`).
 */
export function ScheduleRow({
  schedule,
  actions,
  busy,
  children,
}: {
  schedule: { name: string; cron: string; timeZone: string; nextRun: string | null }
  actions: boolean
  busy: boolean
  children: ReactNode
}) {
  const { name } = schedule
  return (
    <tr>
      <th scope="row" className={`${TABLE_CELL} font-medium`}>
        {name}
      </th>
      <td className={TABLE_CELL}>
        <code className="whitespace-nowrap">{schedule.cron}</code> ({schedule.timeZone})
        <span className="mt-1 block text-xs text-slate-500">
          Next: <UtcTime iso={schedule.nextRun} />
        </span>
      </td>
      {children}
      {actions ? (
        <td className={TABLE_CELL}>
          <div className="flex flex-wrap items-center gap-3">
            <Form method="post">
              <input type="hidden" name="intent" value="run" />
              <input type="hidden" name="name" value={name} />
              <button
                type="submit"
                className="btn-secondary whitespace-nowrap"
                disabled={busy}
                aria-label={`Run now: ${name}`}
              >
                Run now
              </button>
            </Form>
            <Link
              to={`?remove=${encodeURIComponent(name)}`}
              preventScrollReset
              className="text-sm font-medium text-red-700 hover:underline"
              aria-label={`Remove ${name}`}
            >
              Remove
            </Link>
          </div>
        </td>
      ) : null}
    </tr>
  )
}

/**
 * The Add a schedule section: a plain form (it works without JavaScript, its refusals beside its fields) of
 * the name, the cron and its time zone, then the area's own fields (`children`), then where it writes
 * (ScheduleDestination, with `destination`'s options), then its button.
 */
export function AddScheduleForm({
  form,
  fields,
  busy,
  destination,
  children,
}: {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schedule form
  form: FormMetadata<any, string[]>
  fields: { name: Meta; cron: Meta; timeZone: Meta; destination: Meta }
  busy: boolean
  destination: Omit<Parameters<typeof ScheduleDestination>[0], 'meta'>
  children: ReactNode
}) {
  return (
    <section aria-labelledby="add-heading" className="mt-8 max-w-3xl">
      <h2 id="add-heading" className="text-lg font-semibold">
        Add a schedule
      </h2>
      <Form method="post" className="card mt-3 grid gap-x-4 gap-y-1 p-6 sm:grid-cols-2" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="add" />
        <FormField meta={fields.name} label="Name" placeholder="nightly" />
        <FormField meta={fields.cron} label="Cron (minute hour day month weekday)" placeholder="0 2 * * *" />
        <FormField meta={fields.timeZone} label="Time zone" />
        {children}
        <ScheduleDestination meta={fields.destination} {...destination} />
        <div className="sm:col-span-2">
          <FormSubmit form={form} label="Add schedule" busy={busy} />
        </div>
      </Form>
    </section>
  )
}

/**
 * Where a schedule writes: the folder and S3 prefixes the admin area may use are named in the label, and the
 * hint says what else a destination may be and who sets it, then the page's own advice (`advice`). `wide`:
 * the field spans the form, and the hint breaks long words.
 */
function ScheduleDestination({
  meta,
  folder,
  s3Targets,
  wide = false,
  advice,
}: {
  meta: Meta
  folder: string
  s3Targets: string[]
  wide?: boolean
  advice?: string
}) {
  const field = (
    <FormField
      meta={meta}
      label={
        s3Targets.length
          ? `Destination (a folder in ${folder}, or an S3 prefix under ${s3Targets.join(' or ')})`
          : `Destination (a folder in ${folder})`
      }
      placeholder={s3Targets[0] ?? `${folder}nightly/`}
    />
  )
  return (
    <>
      {wide ? <div className="sm:col-span-2">{field}</div> : field}
      <p className={`-mt-1 ${wide ? 'break-words ' : ''}text-xs text-slate-500 sm:col-span-2`}>
        {s3Targets.length
          ? 'Only the S3 prefixes the operator allowed are offered here; other buckets and server folders are set with the portal CLI.'
          : 'S3 destinations and other server folders are set with the portal CLI.'}
        {advice ? ` ${advice}` : null}
      </p>
    </>
  )
}

const STATUS_STYLE = {
  succeeded: 'bg-green-100 text-green-800',
  failed: 'bg-red-100 text-red-800',
  running: 'bg-amber-100 text-amber-900',
  queued: 'bg-slate-100 text-slate-800',
}

const STATUS_LABEL = {
  succeeded: 'Succeeded',
  failed: 'Failed',
  running: 'Running',
  queued: 'Queued',
}

/** A run's status, as a coloured label. */
export function RunStatus({ status }: { status: keyof typeof STATUS_LABEL }) {
  return (
    <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${STATUS_STYLE[status]}`}>
      {STATUS_LABEL[status]}
    </span>
  )
}

/**
 * Asks before a schedule goes, when the page is opened with `?remove=<name>` of one of `schedules` (none for
 * those who may not remove); `describe` says what stays of it.
 */
export function RemoveScheduleDialog({
  page,
  schedules,
  describe,
}: {
  page: string
  schedules: { name: string }[]
  describe: (name: string) => string
}) {
  const [params] = useSearchParams()
  const busy = useNavigation().state !== 'idle'
  const removing = schedules.find((s) => s.name === params.get('remove'))
  if (!removing) return null
  return (
    <Overlay title="Remove schedule" role="alertdialog" closeTo={page} description={describe(removing.name)}>
      <Form method="post" action={page} className="flex justify-end gap-3">
        <input type="hidden" name="intent" value="remove" />
        <input type="hidden" name="name" value={removing.name} />
        <a href={page} className="btn-secondary">
          Cancel
        </a>
        <button type="submit" className="btn bg-red-600 text-white hover:bg-red-700" disabled={busy}>
          Remove
        </button>
      </Form>
    </Overlay>
  )
}

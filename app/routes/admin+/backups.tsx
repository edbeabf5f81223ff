import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormField, FormSelectField } from '#app/components/forms/fields.tsx'
import { FormSubmit } from '#app/components/forms/form-submit.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { Overlay } from '#app/components/ui/overlay.tsx'
import { TABLE_CELL, TableSection } from '#app/components/ui/table-section.tsx'
import { UtcTime } from '#app/components/ui/utc-time.tsx'
import { BACKUP_COMPRESSIONS, BackupScheduleSchema } from '#app/modules/backups/schedules-schema.ts'
import {
  addBackupSchedule,
  backupsFolder,
  listBackupRuns,
  listBackupSchedules,
  removeBackupSchedule,
  runBackupSchedule,
  s3BackupTargets,
  type BackupRunView,
} from '#app/modules/backups/schedules.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatDuration, formatSize } from '#app/utils/format.ts'
import { invalidForm, pageAction, readForm, submitToService, type FormReply } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requirePagePermission } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

// Scheduled backups, for the super admin only (an archive holds every password hash): the schedules, with
// Add (a plain form: it works without JavaScript, its refusals beside its fields), Run now and Remove; and
// the latest runs with their size, duration, result, whether the archive was read back whole, and when
// retention removed it. An archive kept on the server's disk downloads from its run; one in S3 shows where.

export const meta: MetaFunction = () => [{ title: `Backups · ${PRODUCT_NAME}` }]

const PAGE = '/admin/backups'
const BACK = '/admin/dashboard'
const RECENT_RUNS = 30

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requirePagePermission(request, 'read:backups', BACK)
  const [schedules, runs] = await Promise.all([listBackupSchedules(user), listBackupRuns(user, { limit: RECENT_RUNS })])
  return json(
    { schedules, runs, folder: backupsFolder(), s3Targets: s3BackupTargets() },
    { headers: { 'Cache-Control': 'private, no-store' } },
  )
}

/** Add (the form), remove (after the confirmation) and run now. */
export const action = (args: ActionFunctionArgs) => pageAction(args, runAction, { redirects: [{ to: () => PAGE }] })

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requirePagePermission(request, 'manage:backups', BACK)
  const formData = await readForm(request)
  const intent = formData.get('intent')
  const name = String(formData.get('name') ?? '')
  if (intent === 'remove') {
    const removed = await removeBackupSchedule(user, name)
    return redirectWithSuccess(PAGE, `Schedule ${removed.name} removed; its runs and archives stay.`)
  }
  if (intent === 'run') {
    const run = await runBackupSchedule(user, name)
    return redirectWithSuccess(PAGE, `${run.scheduleName} is queued to run now; its run is listed below.`)
  }
  const submission = parseWithZod(formData, { schema: BackupScheduleSchema })
  if (submission.status !== 'success') return invalidForm(submission)
  const added = await submitToService(submission, () => addBackupSchedule(user, submission.value))
  if (!added.ok) return added.response
  return redirectWithSuccess(PAGE, `Schedule ${added.value.name} added.`)
}

const STATUS_STYLE: Record<BackupRunView['status'], string> = {
  succeeded: 'bg-green-100 text-green-800',
  failed: 'bg-red-100 text-red-800',
  running: 'bg-amber-100 text-amber-900',
  queued: 'bg-slate-100 text-slate-800',
}

const STATUS_LABEL: Record<BackupRunView['status'], string> = {
  succeeded: 'Succeeded',
  failed: 'Failed',
  running: 'Running',
  queued: 'Queued',
}

/** Where a run's archive is, or why it has none. */
function RunArchive({ run }: { run: BackupRunView }) {
  if (run.status === 'failed') return <span className="text-red-800">{run.error}</span>
  if (run.status === 'queued')
    return <span className="text-slate-600">{run.error ?? 'Waiting for a worker to run it…'}</span>
  if (run.status === 'running') return <span className="text-slate-500">Running…</span>
  const note = run.error ? <span className="mt-1 block text-xs text-amber-900">{run.error}</span> : null
  if (run.removedAt || !run.location)
    return (
      <>
        <span className="text-slate-500">{run.location}</span>
        {note}
      </>
    )
  if (run.location.startsWith('s3://'))
    return (
      <>
        <code>{run.location}</code>
        {note}
      </>
    )
  return (
    <>
      <a
        href={`${PAGE}/${run.id}/download`}
        className="font-medium text-brand-700 hover:underline"
        aria-label={`Download the archive of ${run.scheduleName} started ${run.startedAt}`}
      >
        {run.location}
      </a>
      {note}
    </>
  )
}

export default function Backups() {
  const { schedules, runs, folder, s3Targets } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  const [params] = useSearchParams()
  const busy = useNavigation().state !== 'idle'
  const removing = schedules.find((s) => s.name === params.get('remove'))
  const [form, fields] = useZodForm(BackupScheduleSchema, {
    id: 'new-backup-schedule',
    lastResult: actionData?.result,
    defaultValue: { timeZone: 'UTC', keepDaily: '7', keepWeekly: '4', compression: 'zstd' },
  })

  return (
    <>
      <h1 className="text-2xl font-bold">Backups</h1>
      <p className="mt-2 max-w-3xl text-sm text-slate-600">
        Archives of the whole portal, its database and every stored file, taken on a schedule by the background jobs and
        read back whole before anything older is removed. Each schedule keeps the newest archive of each of its last
        days and weeks. A failed backup is mailed to the super admins and shown on the dashboard. Archives never hold
        the portal’s secrets.
      </p>

      <TableSection
        id="schedules-heading"
        title="Schedules"
        caption="Backup schedules"
        columns={['Name', 'When', 'Destination', 'Keeps', 'Actions']}
        empty={schedules.length === 0 ? 'No backup schedules yet. Add one below.' : undefined}
      >
        {schedules.map((s) => (
          <tr key={s.id}>
            <th scope="row" className={`${TABLE_CELL} font-medium`}>
              {s.name}
            </th>
            <td className={TABLE_CELL}>
              <code className="whitespace-nowrap">{s.cron}</code> ({s.timeZone})
              <span className="mt-1 block text-xs text-slate-500">
                Next: <UtcTime iso={s.nextRun} />
              </span>
            </td>
            <td className={`${TABLE_CELL} min-w-56 break-all`}>
              <code>{s.destination}</code>
              <span className="block text-xs text-slate-500">{s.compression}</span>
            </td>
            <td className={`${TABLE_CELL} whitespace-nowrap`}>
              {s.keepDaily} daily, {s.keepWeekly} weekly
            </td>
            <td className={TABLE_CELL}>
              <div className="flex flex-wrap items-center gap-3">
                <Form method="post">
                  <input type="hidden" name="intent" value="run" />
                  <input type="hidden" name="name" value={s.name} />
                  <button
                    type="submit"
                    className="btn-secondary whitespace-nowrap"
                    disabled={busy}
                    aria-label={`Run now: ${s.name}`}
                  >
                    Run now
                  </button>
                </Form>
                <Link
                  to={`?remove=${encodeURIComponent(s.name)}`}
                  preventScrollReset
                  className="text-sm font-medium text-red-700 hover:underline"
                  aria-label={`Remove ${s.name}`}
                >
                  Remove
                </Link>
              </div>
            </td>
          </tr>
        ))}
      </TableSection>

      <section aria-labelledby="add-heading" className="mt-8 max-w-3xl">
        <h2 id="add-heading" className="text-lg font-semibold">
          Add a schedule
        </h2>
        <Form method="post" className="card mt-3 grid gap-x-4 gap-y-1 p-6 sm:grid-cols-2" {...getFormProps(form)}>
          <input type="hidden" name="intent" value="add" />
          <FormField meta={fields.name} label="Name" placeholder="nightly" />
          <FormField meta={fields.cron} label="Cron (minute hour day month weekday)" placeholder="0 2 * * *" />
          <FormField meta={fields.timeZone} label="Time zone" />
          <FormSelectField
            meta={fields.compression}
            label="Compression"
            options={BACKUP_COMPRESSIONS.map((c) => ({ value: c, label: c === 'zstd' ? 'zstd (smaller)' : 'gzip' }))}
          />
          <FormField meta={fields.keepDaily} label="Daily archives kept" type="number" min={0} inputMode="numeric" />
          <FormField meta={fields.keepWeekly} label="Weekly archives kept" type="number" min={0} inputMode="numeric" />
          <div className="sm:col-span-2">
            <FormField
              meta={fields.destination}
              label={
                s3Targets.length
                  ? `Destination (a folder in ${folder}, or an S3 prefix under ${s3Targets.join(' or ')})`
                  : `Destination (a folder in ${folder})`
              }
              placeholder={s3Targets[0] ?? `${folder}nightly/`}
            />
          </div>
          <p className="-mt-1 break-words text-xs text-slate-500 sm:col-span-2">
            {s3Targets.length
              ? 'Only the S3 prefixes the operator allowed are offered here; other buckets and server folders are set with the portal CLI.'
              : 'S3 destinations and other server folders are set with the portal CLI.'}{' '}
            Keep archives away from this machine too: a copy of a folder elsewhere, or an S3 bucket.
          </p>
          <div className="sm:col-span-2">
            <FormSubmit form={form} label="Add schedule" busy={busy} />
          </div>
        </Form>
      </section>

      <TableSection
        id="runs-heading"
        title="Recent runs"
        caption="Recent backup runs, newest first"
        columns={['Schedule', 'Started', 'Duration', 'Size', 'Result', 'Verified', 'Removed', 'Archive or error']}
        className="mt-8"
        empty={runs.length === 0 ? 'No backup has run yet.' : undefined}
      >
        {runs.map((run) => (
          <tr key={run.id}>
            <th scope="row" className={`${TABLE_CELL} font-medium`}>
              {run.scheduleName}
              <span className="block text-xs font-normal text-slate-500">
                {run.trigger === 'schedule' ? 'Scheduled' : 'Run by hand'}
              </span>
            </th>
            <td className={`${TABLE_CELL} whitespace-nowrap`}>
              <UtcTime iso={run.startedAt} />
            </td>
            <td className={`${TABLE_CELL} whitespace-nowrap tabular-nums`}>
              {run.durationMs === null ? '—' : formatDuration(run.durationMs / 1000)}
            </td>
            <td className={`${TABLE_CELL} whitespace-nowrap`}>{formatSize(run.bytes)}</td>
            <td className={TABLE_CELL}>
              <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${STATUS_STYLE[run.status]}`}>
                {STATUS_LABEL[run.status]}
              </span>
            </td>
            <td className={`${TABLE_CELL} whitespace-nowrap`}>
              <UtcTime iso={run.verifiedAt} />
            </td>
            <td className={`${TABLE_CELL} whitespace-nowrap`}>
              <UtcTime iso={run.removedAt} />
            </td>
            <td className={`${TABLE_CELL} min-w-64 break-all`}>
              <RunArchive run={run} />
            </td>
          </tr>
        ))}
      </TableSection>

      {removing ? (
        <Overlay
          title="Remove schedule"
          role="alertdialog"
          closeTo={PAGE}
          description={`Remove the backup schedule ${removing.name}? It will not run again; its archives and past runs stay.`}
        >
          <Form method="post" action={PAGE} className="flex justify-end gap-3">
            <input type="hidden" name="intent" value="remove" />
            <input type="hidden" name="name" value={removing.name} />
            <a href={PAGE} className="btn-secondary">
              Cancel
            </a>
            <button type="submit" className="btn bg-red-600 text-white hover:bg-red-700" disabled={busy}>
              Remove
            </button>
          </Form>
        </Overlay>
      ) : null}
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

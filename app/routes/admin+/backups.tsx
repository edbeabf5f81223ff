import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { AddScheduleForm, RemoveScheduleDialog, RunStatus, ScheduleRow } from '#app/components/admin/schedules.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormField, FormSelectField } from '#app/components/forms/fields.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { TABLE_CELL, TableSection } from '#app/components/ui/table-section.tsx'
import { UtcTime } from '#app/components/ui/utc-time.tsx'
import { BACKUP_COMPRESSIONS, BackupScheduleSchema } from '#app/modules/backups/schedules-schema.ts'
import { backupSchedules, type BackupRunView } from '#app/modules/backups/schedules.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatDuration, formatSize } from '#app/utils/format.ts'
import { pageAction, readForm, type FormReply } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { scheduleFormAction } from '#app/utils/schedule-forms.server.ts'
import { requirePagePermission } from '#app/utils/session.server.ts'

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
  const [schedules, runs] = await Promise.all([
    backupSchedules.list(user),
    backupSchedules.listRuns(user, { limit: RECENT_RUNS }),
  ])
  return json(
    { schedules, runs, folder: backupSchedules.folder(), s3Targets: backupSchedules.s3Targets() },
    { headers: { 'Cache-Control': 'private, no-store' } },
  )
}

/** Add (the form), remove (after the confirmation) and run now. */
export const action = (args: ActionFunctionArgs) => pageAction(args, runAction, { redirects: [{ to: () => PAGE }] })

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requirePagePermission(request, 'manage:backups', BACK)
  return scheduleFormAction(await readForm(request), user, backupSchedules, {
    page: PAGE,
    kept: 'its runs and archives stay',
  })
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
  const busy = useNavigation().state !== 'idle'
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
          <ScheduleRow key={s.id} schedule={s} actions busy={busy}>
            <td className={`${TABLE_CELL} min-w-56 break-all`}>
              <code>{s.destination}</code>
              <span className="block text-xs text-slate-500">{s.compression}</span>
            </td>
            <td className={`${TABLE_CELL} whitespace-nowrap`}>
              {s.keepDaily} daily, {s.keepWeekly} weekly
            </td>
          </ScheduleRow>
        ))}
      </TableSection>

      <AddScheduleForm
        form={form}
        fields={fields}
        busy={busy}
        destination={{
          folder,
          s3Targets,
          wide: true,
          advice: 'Keep archives away from this machine too: a copy of a folder elsewhere, or an S3 bucket.',
        }}
      >
        <FormSelectField
          meta={fields.compression}
          label="Compression"
          options={BACKUP_COMPRESSIONS.map((c) => ({ value: c, label: c === 'zstd' ? 'zstd (smaller)' : 'gzip' }))}
        />
        <FormField meta={fields.keepDaily} label="Daily archives kept" type="number" min={0} inputMode="numeric" />
        <FormField meta={fields.keepWeekly} label="Weekly archives kept" type="number" min={0} inputMode="numeric" />
      </AddScheduleForm>

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
              <RunStatus status={run.status} />
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

      <RemoveScheduleDialog
        page={PAGE}
        schedules={schedules}
        describe={(name) =>
          `Remove the backup schedule ${name}? It will not run again; its archives and past runs stay.`
        }
      />
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

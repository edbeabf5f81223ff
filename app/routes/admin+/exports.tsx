import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { CourseFilter } from '#app/components/admin/course-filter.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormField, FormSelectField } from '#app/components/forms/fields.tsx'
import { FormSubmit } from '#app/components/forms/form-submit.tsx'
import { initialValues, useZodForm } from '#app/components/forms/use-zod-form.ts'
import { Overlay } from '#app/components/ui/overlay.tsx'
import { TABLE_CELL, TableSection } from '#app/components/ui/table-section.tsx'
import { UtcTime } from '#app/components/ui/utc-time.tsx'
import { can, PERMISSIONS } from '#app/modules/auth/permissions.ts'
import { listCourseTitles } from '#app/modules/courses/catalogue.server.ts'
import { EXPORT_RANGES, SCHEDULE_FORMATS, ScheduleSchema } from '#app/modules/exports/schema.ts'
import {
  addSchedule,
  listRuns,
  exportsFolder,
  listSchedules,
  mayDownloadRunFiles,
  removeSchedule,
  runSchedule,
  s3ExportTargets,
  type ExportRunView,
} from '#app/modules/exports/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatSize } from '#app/utils/format.ts'
import { pageAction, invalidForm, readForm, submitToService, type FormReply } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'
import { redirectWithError, redirectWithSuccess } from '#app/utils/toast.server.ts'

export const meta: MetaFunction = () => [{ title: `Scheduled exports · ${PRODUCT_NAME}` }]

const PAGE = '/admin/exports'
const RECENT_RUNS = 20

const RANGE_LABELS: Record<(typeof EXPORT_RANGES)[number], string> = {
  yesterday: 'Yesterday',
  'last-7-days': 'Last 7 days',
  'last-month': 'Last month',
  'month-to-date': 'Month to date',
}

/** Admins, the super admin and coaches see the schedules and their runs; coaches change nothing. */
export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const [schedules, runs, { rows: courses }] = await Promise.all([
    listSchedules(user),
    listRuns(user, { limit: RECENT_RUNS }),
    listCourseTitles(user),
  ])
  return json({
    schedules,
    runs,
    courses,
    canManage: can(user, 'manage:exports'),
    canDownload: mayDownloadRunFiles(user),
    folder: exportsFolder(),
    s3Targets: s3ExportTargets(),
  })
}

/** Add (the form), remove (after the confirmation) and run now; admins only. */
// a refused removal or run goes back to the page with a toast; the form shows its own refusals
export const action = (args: ActionFunctionArgs) => pageAction(args, runAction, { redirects: [{ to: () => PAGE }] })

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requireAdminSide(request)
  if (!can(user, 'manage:exports')) return redirectWithError(PAGE, PERMISSIONS['manage:exports'].denied)
  const formData = await readForm(request)
  const intent = formData.get('intent')
  const name = String(formData.get('name') ?? '')
  if (intent === 'remove') {
    const removed = await removeSchedule(user, name)
    return redirectWithSuccess(PAGE, `Schedule ${removed.name} removed; its runs stay in the list.`)
  }
  if (intent === 'run') {
    const run = await runSchedule(user, name)
    return redirectWithSuccess(PAGE, `${run.scheduleName} is queued to run now; its run is listed below.`)
  }
  const submission = parseWithZod(formData, { schema: ScheduleSchema })
  if (submission.status !== 'success') return invalidForm(submission)
  const added = await submitToService(submission, () => addSchedule(user, submission.value))
  if (!added.ok) return added.response
  return redirectWithSuccess(PAGE, `Schedule ${added.value.name} added.`)
}

const STATUS_STYLE: Record<ExportRunView['status'], string> = {
  succeeded: 'bg-green-100 text-green-800',
  failed: 'bg-red-100 text-red-800',
  running: 'bg-amber-100 text-amber-900',
  queued: 'bg-slate-100 text-slate-800',
}

const STATUS_LABEL: Record<ExportRunView['status'], string> = {
  succeeded: 'Succeeded',
  failed: 'Failed',
  running: 'Running',
  queued: 'Queued',
}

export default function ScheduledExports() {
  const { schedules, runs, courses, canManage, canDownload, folder, s3Targets } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  const [params] = useSearchParams()
  const navigation = useNavigation()
  const busy = navigation.state !== 'idle'
  const removing = canManage ? schedules.find((s) => s.name === params.get('remove')) : undefined
  const titles = new Map(courses.map((c) => [c._id, c.title]))
  const [form, fields] = useZodForm(ScheduleSchema, {
    id: 'new-schedule',
    lastResult: actionData?.result,
    defaultValue: { timeZone: 'UTC', range: 'yesterday', format: 'csv' },
  })

  return (
    <>
      <h1 className="text-2xl font-bold">Scheduled exports</h1>
      <p className="mt-2 max-w-3xl text-sm text-slate-600">
        The access log, exported on a schedule to an S3 prefix or a folder on the server. Each time a schedule comes
        round it runs once, even with several servers; a time missed while the portal was down runs once when it is
        back. {canManage ? null : 'Only admins can add, run or remove schedules.'}
      </p>

      <TableSection
        id="schedules-heading"
        title="Schedules"
        caption="Schedules"
        columns={['Name', 'When', 'Days', 'Courses', 'Destination', canManage && 'Actions']}
      >
        {schedules.length === 0 ? (
          <tr>
            <td colSpan={canManage ? 6 : 5} className={`${TABLE_CELL} text-center text-slate-500`}>
              No schedules yet.
            </td>
          </tr>
        ) : null}
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
            <td className={TABLE_CELL}>{RANGE_LABELS[s.range]}</td>
            <td className={TABLE_CELL}>
              {s.courses.length ? s.courses.map((id) => titles.get(id) ?? 'a removed course').join(', ') : 'All'}
            </td>
            <td className={`${TABLE_CELL} min-w-64 break-all`}>
              <code>{s.destination}</code>
              <span className="block text-xs text-slate-500">{s.format.toUpperCase()}</span>
            </td>
            {canManage ? (
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
            ) : null}
          </tr>
        ))}
      </TableSection>

      {canManage ? (
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
              meta={fields.range}
              label="Days"
              options={EXPORT_RANGES.map((r) => ({ value: r, label: RANGE_LABELS[r] }))}
            />
            <div className="sm:col-span-2">
              <CourseFilter
                name={fields.courses.name}
                label="Courses"
                courses={courses}
                defaultValue={initialValues(fields.courses.initialValue)}
                errors={fields.courses.errors}
              />
            </div>
            <FormSelectField
              meta={fields.format}
              label="Format"
              options={SCHEDULE_FORMATS.map((f) => ({ value: f, label: f === 'csv' ? 'CSV' : 'JSON Lines' }))}
            />
            <FormField
              meta={fields.destination}
              label={
                s3Targets.length
                  ? `Destination (a folder in ${folder}, or an S3 prefix under ${s3Targets.join(' or ')})`
                  : `Destination (a folder in ${folder})`
              }
              placeholder={s3Targets[0] ?? `${folder}nightly/`}
            />
            <p className="-mt-1 text-xs text-slate-500 sm:col-span-2">
              {s3Targets.length
                ? 'Only the S3 prefixes the operator allowed are offered here; other buckets and server folders are set with the portal CLI.'
                : 'S3 destinations and other server folders are set with the portal CLI.'}
            </p>
            <div className="sm:col-span-2">
              <FormSubmit form={form} label="Add schedule" busy={busy} />
            </div>
          </Form>
        </section>
      ) : null}

      <TableSection
        id="runs-heading"
        title="Recent runs"
        caption="Recent runs, newest first"
        columns={['Schedule', 'Started', 'Status', 'Rows', 'Size', 'File or error']}
        className="mt-8"
      >
        {runs.length === 0 ? (
          <tr>
            <td colSpan={6} className={`${TABLE_CELL} text-center text-slate-500`}>
              Nothing has run yet.
            </td>
          </tr>
        ) : null}
        {runs.map((run) => (
          <tr key={run.id}>
            <th scope="row" className={`${TABLE_CELL} font-medium`}>
              {run.scheduleName}
              <span className="block text-xs font-normal text-slate-500">
                {run.slot ? (
                  <>
                    For <UtcTime iso={run.slot} />
                  </>
                ) : (
                  'Run by hand'
                )}
              </span>
            </th>
            <td className={TABLE_CELL}>
              <UtcTime iso={run.startedAt} />
            </td>
            <td className={TABLE_CELL}>
              <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${STATUS_STYLE[run.status]}`}>
                {STATUS_LABEL[run.status]}
              </span>
            </td>
            <td className={TABLE_CELL}>{run.rows ?? '—'}</td>
            <td className={`${TABLE_CELL} whitespace-nowrap`}>{formatSize(run.bytes)}</td>
            <td className={`${TABLE_CELL} min-w-64 break-all`}>
              {run.status === 'succeeded' && canDownload ? (
                <a href={`${PAGE}/${run.id}/download`} className="font-medium text-brand-700 hover:underline">
                  {run.location}
                </a>
              ) : run.status === 'succeeded' ? (
                <span>{run.location}</span>
              ) : run.status === 'failed' ? (
                <span className="text-red-800">{run.error}</span>
              ) : run.status === 'queued' ? (
                <span className="text-slate-600">{run.error ?? 'Waiting for a worker to run it…'}</span>
              ) : (
                <span className="text-slate-500">{run.location ?? 'Running…'}</span>
              )}
            </td>
          </tr>
        ))}
      </TableSection>

      {removing ? (
        <Overlay
          title="Remove schedule"
          role="alertdialog"
          closeTo={PAGE}
          description={`Remove the schedule ${removing.name}? It will not run again; the files it wrote and its past runs stay.`}
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

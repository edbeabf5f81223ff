import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { CourseFilter } from '#app/components/admin/course-filter.tsx'
import { AddScheduleForm, RemoveScheduleDialog, RunStatus, ScheduleRow } from '#app/components/admin/schedules.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormSelectField } from '#app/components/forms/fields.tsx'
import { initialValues, useZodForm } from '#app/components/forms/use-zod-form.ts'
import { TABLE_CELL, TableSection } from '#app/components/ui/table-section.tsx'
import { UtcTime } from '#app/components/ui/utc-time.tsx'
import { can, PERMISSIONS } from '#app/modules/auth/permissions.ts'
import { listCourseTitles } from '#app/modules/courses/catalogue.server.ts'
import { ASSIGNMENT_STATUSES, STATUS_LABELS } from '#app/modules/deadlines/due.ts'
import { EXPORT_KINDS, EXPORT_RANGES, SCHEDULE_FORMATS, ScheduleSchema } from '#app/modules/exports/schema.ts'
import { exportSchedules, mayDownloadRunFiles } from '#app/modules/exports/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatSize } from '#app/utils/format.ts'
import { pageAction, readForm, type FormReply } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { scheduleFormAction } from '#app/utils/schedule-forms.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'
import { redirectWithError } from '#app/utils/toast.server.ts'

export const meta: MetaFunction = () => [{ title: `Scheduled exports · ${PRODUCT_NAME}` }]

const PAGE = '/admin/exports'
const RECENT_RUNS = 20

const RANGE_LABELS: Record<(typeof EXPORT_RANGES)[number], string> = {
  yesterday: 'Yesterday',
  'last-7-days': 'Last 7 days',
  'last-month': 'Last month',
  'month-to-date': 'Month to date',
}

const KIND_LABELS: Record<(typeof EXPORT_KINDS)[number], string> = {
  'access-log': 'Access log',
  assignments: 'Assignments',
}

const STATUS_OPTIONS = ASSIGNMENT_STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s] }))

/** What a schedule writes, in the Days column: the access log's days, or the assignments (of a status). */
function describeWhat(schedule: {
  kind: (typeof EXPORT_KINDS)[number]
  range: (typeof EXPORT_RANGES)[number] | null
  status: (typeof ASSIGNMENT_STATUSES)[number] | null
}) {
  if (schedule.kind === 'assignments' || !schedule.range)
    return schedule.status ? `Assignments: ${STATUS_LABELS[schedule.status].toLowerCase()}` : 'Assignments: all'
  return RANGE_LABELS[schedule.range]
}

/** Admins, the super admin and coaches see the schedules and their runs; coaches change nothing. */
export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const [schedules, runs, { rows: courses }] = await Promise.all([
    exportSchedules.list(user),
    exportSchedules.listRuns(user, { limit: RECENT_RUNS }),
    listCourseTitles(user),
  ])
  return json({
    schedules,
    runs,
    courses,
    canManage: can(user, 'manage:exports'),
    canExportAssignments: can(user, 'read:people'),
    canDownload: mayDownloadRunFiles(user),
    folder: exportSchedules.folder(),
    s3Targets: exportSchedules.s3Targets(),
  })
}

/** Add (the form), remove (after the confirmation) and run now; admins only. */
// a refused removal or run goes back to the page with a toast; the form shows its own refusals
export const action = (args: ActionFunctionArgs) => pageAction(args, runAction, { redirects: [{ to: () => PAGE }] })

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requireAdminSide(request)
  if (!can(user, 'manage:exports')) return redirectWithError(PAGE, PERMISSIONS['manage:exports'].denied)
  return scheduleFormAction(await readForm(request), user, exportSchedules, {
    page: PAGE,
    kept: 'its runs stay in the list',
  })
}

export default function ScheduledExports() {
  const { schedules, runs, courses, canManage, canDownload, canExportAssignments, folder, s3Targets } =
    useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  const navigation = useNavigation()
  const busy = navigation.state !== 'idle'
  const titles = new Map(courses.map((c) => [c._id, c.title]))
  const [form, fields] = useZodForm(ScheduleSchema, {
    id: 'new-schedule',
    lastResult: actionData?.result,
    defaultValue: { timeZone: 'UTC', kind: 'access-log', range: 'yesterday', format: 'csv' },
  })

  return (
    <>
      <h1 className="text-2xl font-bold">Scheduled exports</h1>
      <p className="mt-2 max-w-3xl text-sm text-slate-600">
        The access log, or the assignments with their due dates and status, exported on a schedule to an S3 prefix or a
        folder on the server. Each time a schedule comes round it runs once, even with several servers; a time missed
        while the portal was down runs once when it is back.{' '}
        {canManage ? null : 'Only admins can add, run or remove schedules.'}
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
          <ScheduleRow key={s.id} schedule={s} actions={canManage} busy={busy}>
            <td className={TABLE_CELL}>{describeWhat(s)}</td>
            <td className={TABLE_CELL}>
              {s.courses.length ? s.courses.map((id) => titles.get(id) ?? 'a removed course').join(', ') : 'All'}
            </td>
            <td className={`${TABLE_CELL} min-w-64 break-all`}>
              <code>{s.destination}</code>
              <span className="block text-xs text-slate-500">{s.format.toUpperCase()}</span>
            </td>
          </ScheduleRow>
        ))}
      </TableSection>

      {canManage ? (
        <AddScheduleForm form={form} fields={fields} busy={busy} destination={{ folder, s3Targets }}>
          <FormSelectField
            meta={fields.kind}
            label="Export"
            options={EXPORT_KINDS.map((k) => ({ value: k, label: KIND_LABELS[k] }))}
          />
          <FormSelectField
            meta={fields.range}
            label="Days"
            options={EXPORT_RANGES.map((r) => ({ value: r, label: RANGE_LABELS[r] }))}
          />
          <FormSelectField
            meta={fields.status}
            label="Status (assignments only)"
            placeholder="Every status"
            options={STATUS_OPTIONS}
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
        </AddScheduleForm>
      ) : null}

      {canExportAssignments ? <AssignmentsDownload courses={courses} /> : null}

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
              <RunStatus status={run.status} />
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

      <RemoveScheduleDialog
        page={PAGE}
        schedules={canManage ? schedules : []}
        describe={(name) =>
          `Remove the schedule ${name}? It will not run again; the files it wrote and its past runs stay.`
        }
      />
    </>
  )
}

/**
 * Download the assignments now: a plain GET form to the download route, so it works without JavaScript and the
 * file arrives as a download. Every field may be left as it is: every assignment of every learner.
 */
function AssignmentsDownload({ courses }: { courses: { _id: string; title: string }[] }) {
  return (
    <section aria-labelledby="assignments-heading" className="mt-8 max-w-3xl">
      <h2 id="assignments-heading" className="text-lg font-semibold">
        Assignments
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Every course and program assigned to a learner, with its due date in the learner&apos;s time zone, whether it is
        completed, overdue, in progress or not started, the learner&apos;s percent and the last reminder sent.
      </p>
      <form method="get" action={`${PAGE}/assignments`} className="mt-4 grid gap-4 sm:grid-cols-2">
        <div>
          <label htmlFor="assignments-status" className="field-label">
            Status
          </label>
          <select id="assignments-status" name="status" className="field-input" defaultValue="">
            <option value="">Every status</option>
            {STATUS_OPTIONS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="assignments-format" className="field-label">
            Format
          </label>
          <select id="assignments-format" name="format" className="field-input" defaultValue="csv">
            <option value="csv">CSV</option>
            <option value="jsonl">JSON Lines</option>
          </select>
        </div>
        <div>
          <label htmlFor="assignments-due-after" className="field-label">
            Due after
          </label>
          <input id="assignments-due-after" name="dueAfter" type="date" className="field-input" />
        </div>
        <div>
          <label htmlFor="assignments-due-before" className="field-label">
            Due before
          </label>
          <input id="assignments-due-before" name="dueBefore" type="date" className="field-input" />
        </div>
        <div className="sm:col-span-2">
          <CourseFilter name="course" label="Courses of the assignments" courses={courses} defaultValue={[]} />
        </div>
        <div className="sm:col-span-2">
          <button type="submit" className="btn-secondary">
            Download assignments
          </button>
        </div>
      </form>
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData, useLocation } from '@remix-run/react'
import { CourseFilter } from '#app/components/admin/course-filter.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { DataTable } from '#app/components/ui/data-table.tsx'
import { parseTableQuery } from '#app/components/ui/table-query.ts'
import { AccessLogFilterSchema } from '#app/modules/access-log/schema.ts'
import { accessLogReport, type AccessLogEntry } from '#app/modules/access-log/service.server.ts'
import { listCourseTitles } from '#app/modules/courses/catalogue.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatDuration, formatDate } from '#app/utils/format.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { fieldErrors } from '#app/utils/refusals.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'

export const meta: MetaFunction = () => [{ title: `Access Log · ${PRODUCT_NAME}` }]

/** The filter is a GET form, so a filtered report can be bookmarked and works without JavaScript. */
export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const url = new URL(request.url)
  // the report has one order, newest view first; only the paging of the query is used
  const query = parseTableQuery(url, {
    sortKeys: ['lastViewed'] as const,
    defaultSort: 'lastViewed',
    defaultDir: 'desc',
  })
  const input = {
    startDate: url.searchParams.get('startDate') ?? '',
    endDate: url.searchParams.get('endDate') ?? '',
    courses: url.searchParams.getAll('course'),
  }
  // the page shows lab attempts beside the viewings, one row per learner and exercise
  const filter = { ...input, includeLabs: true }
  const { rows: courses } = await listCourseTitles(user)
  // a wrong filter is shown beside its fields, with an empty report; the service checks it again
  const checked = AccessLogFilterSchema.safeParse(filter)
  if (!checked.success) {
    const rows: AccessLogEntry[] = []
    return json({ rows, total: 0, courses, input, query, errors: fieldErrors(checked.error) })
  }
  const report = await accessLogReport(user, filter, { offset: query.offset, limit: query.size })
  return json({ ...report, courses, input, query, errors: null })
}

export default function AccessLog() {
  const { rows, total, courses, input, query, errors } = useLoaderData<typeof loader>()
  // React leaves a field the admin typed in (or a course picked) as it is when only its default changes, so
  // the form is made afresh on each navigation: after Clear Filter (or Back) it shows the URL's filter, as
  // the table does.
  const { key: visit } = useLocation()
  return (
    <>
      <h1 className="text-2xl font-bold">Access Log</h1>
      <Form
        key={visit}
        method="get"
        className="card mt-6 grid gap-4 p-6 md:grid-cols-[2fr_1fr_1fr_auto] md:items-end"
        role="search"
      >
        {/* a new filter starts again at page 1, with the rows per page kept */}
        <input type="hidden" name="size" value={query.size} />
        <CourseFilter name="course" label="Courses" courses={courses} defaultValue={input.courses} />
        <div>
          <label htmlFor="access-start" className="field-label">
            Start date
          </label>
          <input
            id="access-start"
            type="date"
            name="startDate"
            defaultValue={input.startDate}
            className="field-input"
          />
          <p className="field-error">{errors?.startDate}</p>
        </div>
        <div>
          <label htmlFor="access-end" className="field-label">
            End date
          </label>
          <input
            id="access-end"
            type="date"
            name="endDate"
            defaultValue={input.endDate}
            className="field-input"
            aria-invalid={errors?.endDate ? true : undefined}
            aria-describedby={errors?.endDate ? 'access-end-error' : undefined}
          />
          <p id="access-end-error" className="field-error">
            {errors?.endDate}
          </p>
        </div>
        <div className="flex gap-2 pb-6">
          <button type="submit" className="btn-primary">
            Filter
          </button>
          <Link to="/admin/accesslog" className="btn-secondary">
            Clear Filter
          </Link>
        </div>
      </Form>
      {errors ? null : (
        <p className="mt-6 flex flex-wrap items-center gap-x-3 gap-y-2">
          {/* a plain link: the download is a whole file, not a page Remix could load */}
          <a href={exportHref(input)} className="btn-secondary">
            Export CSV<span className="sr-only"> of all {total} rows of this filter</span>
          </a>
          <a href={exportHref(input, 'jsonl')} className="text-sm underline">
            or JSON Lines
          </a>
        </p>
      )}
      <div className="mt-6">
        <DataTable
          label="Access Log"
          columns={[
            { id: 'firstName', header: 'First Name', cell: (r) => r.firstName },
            { id: 'email', header: 'Email ID', cell: (r) => r.email },
            { id: 'course', header: 'Course Name', cell: (r) => r.courseName },
            // a lab row says so in its title, and its attempts and result stand where a video's figures do
            { id: 'chapter', header: 'Video title', cell: (r) => ('lab' in r ? <LabTitle row={r} /> : r.chapter) },
            {
              id: 'duration',
              header: 'Video Duration',
              cell: (r) =>
                'lab' in r
                  ? `${r.attempts} ${r.attempts === 1 ? 'attempt' : 'attempts'}`
                  : formatDuration(r.videoDuration) || '—',
            },
            {
              id: 'progress',
              header: 'Video Progress',
              cell: (r) => ('lab' in r ? <LabResult passed={r.passed} /> : formatDuration(r.videoProgress)),
            },
            {
              id: 'lastViewed',
              header: 'Last Viewed',
              cell: (r) => <time dateTime={r.lastViewed}>{formatDate(r.lastViewed)}</time>,
            },
          ]}
          rows={rows}
          getRowKey={(r) => `${'lab' in r ? 'lab' : 'video'}|${r.email}|${r.courseName}|${r.chapter}|${r.lastViewed}`}
          total={total}
          page={query.page}
          pageSize={query.size}
          emptyText="No Data Found"
        />
      </div>
    </>
  )
}

/** "Lab" then the lab and the exercise; read out as "Lab: Joins, exercise: Inner join". */
function LabTitle({ row }: { row: { lab: string; exercise: string } }) {
  return (
    <>
      <span className="inline-block rounded bg-indigo-100 px-1.5 py-0.5 text-xs font-semibold text-indigo-800">
        Lab<span className="sr-only">:</span>
      </span>{' '}
      {row.lab}
      <span aria-hidden="true"> › </span>
      <span className="sr-only">, exercise: </span>
      {row.exercise}
    </>
  )
}

/** Passed once any attempt passed; the words carry it, the colour only repeats them. */
function LabResult({ passed }: { passed: boolean }) {
  return (
    <span
      className={`inline-block whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ${
        passed ? 'bg-emerald-100 text-emerald-800' : 'bg-amber-100 text-amber-900'
      }`}
    >
      {passed ? 'Passed' : 'Not passed'}
    </span>
  )
}

/** The export of the filter the page shows: every row, not only this page's. */
function exportHref(input: { startDate: string; endDate: string; courses: string[] }, format?: 'jsonl') {
  const params = new URLSearchParams()
  for (const course of input.courses) params.append('course', course)
  if (input.startDate) params.set('startDate', input.startDate)
  if (input.endDate) params.set('endDate', input.endDate)
  if (format) params.set('format', format)
  const query = params.toString()
  return `/admin/accesslog/export${query ? `?${query}` : ''}`
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

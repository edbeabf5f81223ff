import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useLoaderData, useNavigation } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { TABLE_CELL, TableSection } from '#app/components/ui/table-section.tsx'
import { UtcTime } from '#app/components/ui/utc-time.tsx'
import { can } from '#app/modules/auth/permissions.ts'
import { jobsOverview, retryJob } from '#app/modules/jobs/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageAction, readForm } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requirePagePermission } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

// The background jobs: each queue with its jobs counted by state, and the failed jobs with the error
// their last try left and, for admins, a Retry button (a plain form: it works without JavaScript).
// Coaches read the page and retry nothing.

export const meta: MetaFunction = () => [{ title: `Background jobs · ${PRODUCT_NAME}` }]

const PAGE = '/admin/jobs'

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requirePagePermission(request, 'read:jobs', '/admin/dashboard')
  const overview = await jobsOverview(user)
  return json(
    { ...overview, canManage: can(user, 'manage:jobs') },
    { headers: { 'Cache-Control': 'private, no-store' } },
  )
}

// a refused retry (a coach, a job that is not failed any more, one that is gone) comes back with a toast
export const action = (args: ActionFunctionArgs) => pageAction(args, runAction, { redirects: [{ to: () => PAGE }] })

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requirePagePermission(request, 'read:jobs', '/admin/dashboard')
  const form = await readForm(request)
  const job = await retryJob(user, String(form.get('id') ?? ''))
  return redirectWithSuccess(PAGE, `The ${job.queueTitle.toLowerCase()} job is queued to run again.`)
}

export default function Jobs() {
  const { queues, failed, canManage } = useLoaderData<typeof loader>()
  const busy = useNavigation().state !== 'idle'
  return (
    <>
      <h1 className="text-2xl font-bold">Background jobs</h1>
      <p className="mt-2 max-w-3xl text-sm text-slate-600">
        The work the portal does in the background: queued mail, user imports, scheduled exports and backups, and its
        own housekeeping. A job that fails is tried again a few times, with growing waits; one that has used up its
        tries is listed below with the error of its last try.{' '}
        {canManage ? 'Retry gives it one more try.' : 'Only admins can retry a job.'}
      </p>

      <TableSection
        id="queues-heading"
        title="Queues"
        caption="Jobs of each queue, by state"
        columns={['Queue', 'Waiting', 'Running', 'Done', 'Failed', 'Cancelled']}
      >
        {queues.map((queue) => (
          <tr key={queue.name}>
            <th scope="row" className={`${TABLE_CELL} font-medium`}>
              {queue.title}
              <span className="block text-xs font-normal text-slate-500">
                <code>{queue.name}</code>
              </span>
            </th>
            <td className={TABLE_CELL}>{queue.counts.created + queue.counts.retry}</td>
            <td className={TABLE_CELL}>{queue.counts.active}</td>
            <td className={TABLE_CELL}>{queue.counts.completed}</td>
            <td className={`${TABLE_CELL} ${queue.counts.failed ? 'font-semibold text-red-800' : ''}`}>
              {queue.counts.failed}
            </td>
            <td className={TABLE_CELL}>{queue.counts.cancelled}</td>
          </tr>
        ))}
      </TableSection>

      <TableSection
        id="failed-heading"
        title="Failed jobs"
        caption="Failed jobs, newest first"
        columns={['Job', 'Failed', 'Tries', 'Error', canManage && 'Action']}
        empty={failed.length ? undefined : 'No failed jobs. Every job has done its work or is on its way.'}
        className="mt-8"
      >
        {failed.map((job) => (
          <tr key={job.id}>
            <th scope="row" className={`${TABLE_CELL} font-medium`}>
              {job.queueTitle}
              <span className="block break-all text-xs font-normal text-slate-500">
                <code>{job.id}</code>
              </span>
            </th>
            <td className={`${TABLE_CELL} whitespace-nowrap`}>
              <UtcTime iso={job.endedAt} />
            </td>
            <td className={TABLE_CELL}>
              {job.tries} of {job.triesAllowed}
            </td>
            <td className={`${TABLE_CELL} min-w-64 break-words text-red-800`}>{job.error ?? 'No error was kept.'}</td>
            {canManage ? (
              <td className={TABLE_CELL}>
                <Form method="post">
                  <input type="hidden" name="id" value={job.id} />
                  <button
                    type="submit"
                    className="btn-secondary whitespace-nowrap"
                    disabled={busy}
                    aria-label={`Retry ${job.queueTitle.toLowerCase()} job ${job.id}`}
                  >
                    Retry
                  </button>
                </Form>
              </td>
            ) : null}
          </tr>
        ))}
      </TableSection>
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

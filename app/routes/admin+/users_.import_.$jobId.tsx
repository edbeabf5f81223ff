import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useFetcher, useLoaderData } from '@remix-run/react'
import { useEffect } from 'react'
import { ProgressBar } from '#app/components/course/progress-bar.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { importJobStatus, type ImportJobView } from '#app/modules/users/import-jobs.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requirePeopleManager } from '#app/utils/session.server.ts'
import { CountList, IMPORT_PATH, ImportHeading, plural } from './__import-parts.tsx'

// One confirmed import, as it waits for a worker, as it runs and once it has ended: how far into the
// file it is, the counts so far, and at the end the error CSV to download. With JavaScript the page asks
// for the job again every second until it ends; without, it reloads itself every two seconds (a meta
// refresh, only then).

export const meta: MetaFunction = () => [{ title: `Import users · ${PRODUCT_NAME}` }]

const POLL_MS = 1000

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const user = await requirePeopleManager(request, '/admin/users')
  const job = await importJobStatus(user, params.jobId ?? '')
  const errorsHref = job.errorsKey ? `${IMPORT_PATH}/errors/${job.errorsKey}` : null
  return json({ job, errorsHref }, { headers: { 'Cache-Control': 'private, no-store' } })
}

export default function ImportJob() {
  const loaded = useLoaderData<typeof loader>()
  const fetcher = useFetcher<typeof loader>()
  // the latest answer about this job, from the page's load or the last poll
  const { job, errorsHref } = fetcher.data?.job.id === loaded.job.id ? fetcher.data : loaded
  const queued = job.status === 'queued'
  const running = job.status === 'running' || queued
  const { load, state } = fetcher
  useEffect(() => {
    if (!running || state !== 'idle') return
    const timer = setTimeout(() => load(`${IMPORT_PATH}/${job.id}`), POLL_MS)
    return () => clearTimeout(timer)
  }, [running, state, load, job.id])

  return (
    <div className="max-w-3xl">
      {running ? (
        // only a browser without JavaScript reads a meta refresh inside noscript
        <noscript>
          <meta httpEquiv="refresh" content="2" />
        </noscript>
      ) : null}
      <ImportHeading />
      <section aria-labelledby="import-job" className="card mt-6 p-4 sm:p-6">
        <h2 id="import-job" className="text-lg font-semibold">
          {queued
            ? `Waiting to import ${job.fileName}`
            : running
              ? `Importing ${job.fileName}`
              : job.status === 'succeeded'
                ? 'Import finished'
                : 'The import stopped'}
        </h2>
        {running ? (
          <div className="mt-4">
            <ProgressBar
              percent={job.bytesTotal ? (job.bytesRead / job.bytesTotal) * 100 : 0}
              label="Import progress"
            />
          </div>
        ) : null}
        <p role="status" className="mt-3 text-sm text-slate-600">
          <Summary job={job} />
        </p>
        {job.message ? (
          <p role={job.status === 'failed' ? 'alert' : undefined} className="mt-3 text-sm text-red-700">
            {job.message}
          </p>
        ) : null}
        <CountList
          items={[
            ['Created', job.counts.created],
            ['Updated', job.counts.updated],
            ['Skipped', job.counts.skipped],
            ['Assigned', job.counts.assigned],
            ['Failed', job.counts.failed],
          ]}
        />
        {running ? (
          <p className="mt-4 text-sm text-slate-600">
            You can leave this page: the import goes on, and this page’s address shows how it went.
          </p>
        ) : (
          <div className="mt-6 flex flex-wrap items-center gap-3">
            {errorsHref ? (
              // a plain link: the download is a file, not a page
              <a href={errorsHref} className="btn-secondary" download>
                Download the error CSV<span className="sr-only"> ({plural(job.counts.failed, 'failed row')})</span>
              </a>
            ) : job.counts.failed > 0 && job.status === 'succeeded' ? (
              <p className="text-sm">The error file is no longer kept (errors are kept for a day).</p>
            ) : null}
            <Link to="/admin/users" className="btn-primary">
              Users List
            </Link>
            <Link to={IMPORT_PATH} className="text-sm underline">
              {job.status === 'failed' ? 'Upload the file again' : 'Import another file'}
            </Link>
          </div>
        )}
      </section>
    </div>
  )
}

function Summary({ job }: { job: ImportJobView }) {
  const { counts } = job
  const outcome = `${counts.created} created, ${counts.updated} updated, ${counts.skipped} skipped, ${counts.failed} failed; ${plural(counts.assigned, 'assignment')} added`
  if (job.status === 'queued')
    return (
      <>The import starts as soon as a worker is free{counts.rows ? ' (it is starting again after a stop)' : ''}.</>
    )
  if (job.status === 'running')
    return (
      <>
        {plural(counts.rows, 'row')} so far: {outcome}.
      </>
    )
  if (job.status === 'succeeded')
    return (
      <>
        {plural(counts.rows, 'row')} read: {outcome}.
      </>
    )
  return (
    <>
      Before it stopped, {plural(counts.rows, 'row')} read: {outcome}.
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { useEffect, useRef, useState } from 'react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { DetailList } from '#app/components/ui/detail-list.tsx'
import { Spinner } from '#app/components/ui/spinner.tsx'
import { formatUtc } from '#app/components/ui/utc-time.tsx'
import { getAssessment } from '#app/modules/assessments/service.server.ts'
import { isInlineType } from '#app/modules/files/links.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'
import { useHydrated } from '#app/utils/use-hydrated.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  {
    title: data
      ? `${data.assessment.document.name} · ${data.assessment.firstName} ${data.assessment.lastName} · ${PRODUCT_NAME}`
      : `Assessment · ${PRODUCT_NAME}`,
  },
]

// Assessments are csv, pdf, docx or ppt/pptx: what /files serves inline (a PDF) is
// shown here, the others download.

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const assessment = await getAssessment(user, params.assignmentDocumentId ?? '')
  return json({ assessment, shown: isInlineType(assessment.contentType) })
}

export default function AssignmentDocumentViewer() {
  const { assessment, shown } = useLoaderData<typeof loader>()
  const { document } = assessment
  const learner = `${assessment.firstName} ${assessment.lastName}`.trim()
  const details: [string, string][] = [
    ['Email', assessment.email],
    ['Related Course', assessment.courseTitle],
    ['Related Scenario', assessment.scenarioName],
    // in UTC, so the server and the browser write the same text
    ['Submitted', formatUtc(assessment.createdAt)],
  ]
  return (
    <>
      <Breadcrumb
        items={[{ label: 'User Assignment Documents', to: '/admin/assignmentDocumentList' }, { label: document.name }]}
      />
      <h1 className="mt-2 text-2xl font-bold">{learner}</h1>
      <section aria-labelledby="assessment-heading" className="card mt-6 max-w-[1000px] p-6">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="assessment-heading" className="break-all text-lg font-semibold">
            {document.name}
          </h2>
          <a href={document.link} download={document.name} className="btn-primary">
            Download
          </a>
        </div>
        <DetailList items={details} className="mt-4 sm:grid-cols-2" />
      </section>
      <div className="mt-6 max-w-[1000px]">
        {shown ? (
          <FileViewer key={document.key} src={document.link} name={document.name} />
        ) : (
          <p className="rounded-md bg-slate-50 p-6 text-sm text-slate-600">
            This file cannot be shown in the browser. Download it to open it.
          </p>
        )}
      </div>
    </>
  )
}

/**
 * The file inline, about 1000 px wide, with "Loading…" over it until it has loaded.
 * Without JavaScript the frame simply shows: the overlay needs the `load` event to go away again,
 * so it only appears once React runs.
 */
function FileViewer({ src, name }: { src: string; name: string }) {
  const hydrated = useHydrated()
  const [loaded, setLoaded] = useState(false)
  const frame = useRef<HTMLIFrameElement>(null)

  // The file may have loaded before React hydrated the page, and that `load` event is gone.
  useEffect(() => {
    if (frame.current && frameLoaded(frame.current)) setLoaded(true)
  }, [])

  const showLoading = hydrated && !loaded
  return (
    <div
      className={`relative overflow-hidden rounded-md border border-slate-200 bg-white ${showLoading ? 'min-h-32' : ''}`}
    >
      <iframe
        ref={frame}
        src={src}
        title={`${name} (PDF)`}
        className="block h-[75vh] w-full"
        onLoad={() => setLoaded(true)}
      />
      {showLoading ? (
        <div
          role="status"
          className="absolute inset-0 flex items-center justify-center gap-3 bg-white/90 text-slate-700"
        >
          <Spinner label={null} size="md" className="text-brand-600" />
          <span>Loading…</span>
        </div>
      ) : null}
    </div>
  )
}

/**
 * Whether a frame has already finished loading its file. Its document is ours (same origin) while it
 * loads, first as the initial about:blank; a frame we cannot read has gone to another origin (a
 * presigned storage link), which only happens once its content arrives.
 */
function frameLoaded(frame: HTMLIFrameElement): boolean {
  try {
    const inner = frame.contentDocument
    if (!inner) return true
    return inner.readyState === 'complete' && inner.URL !== 'about:blank'
  } catch {
    return true
  }
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

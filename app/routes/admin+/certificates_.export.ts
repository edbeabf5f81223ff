import { PassThrough, Readable } from 'node:stream'
import type { LoaderFunctionArgs } from '@remix-run/node'
import contentDisposition from 'content-disposition'
import { certificatesCsv } from '#app/modules/certificates/export.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'

// GET /admin/certificates/export?q=…&course=…&program=…&state=…: every certificate of the Certificates page's
// filter as CSV, streamed from the database as it is read. The page links here with its current filter, so it
// works without JavaScript; the same people may use it as the page (the service asks). A refusal (a wrong
// filter, before the download starts) is its message as plain text.
export const loader = (args: LoaderFunctionArgs) => pageLoader(args, download, { plainText: true })

async function download({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const params = new URL(request.url).searchParams
  const text = (name: string) => params.get(name)?.trim() || undefined
  const write = certificatesCsv(user, {
    q: text('q'),
    courseId: text('course'),
    programId: text('program'),
    state: text('state'),
  })
  const body = new PassThrough()
  // a failure part-way destroys `body`, so the download fails rather than looking complete, and a browser that
  // goes away stops the query
  write(body, request.signal).catch((error: unknown) => {
    if (!request.signal.aborted) console.error('certificates export failed:', error)
    body.destroy(error instanceof Error ? error : new Error(String(error)))
  })
  const day = new Date().toISOString().slice(0, 10)
  return new Response(Readable.toWeb(body) as ReadableStream, {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': contentDisposition(`certificates-${day}.csv`),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}

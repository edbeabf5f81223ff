import { PassThrough, Readable } from 'node:stream'
import type { LoaderFunctionArgs } from '@remix-run/node'
import contentDisposition from 'content-disposition'
import { CONTENT_TYPES, EXPORT_FORMATS, isExportFormat, writeAccessLog } from '#app/modules/access-log/export.server.ts'
import { accessLogFilter } from '#app/modules/access-log/service.server.ts'
import { invalid } from '#app/modules/errors.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'

// GET /admin/accesslog/export?course=…&startDate=…&endDate=…[&format=jsonl]: every row of the Access
// Log page's filter as a download, streamed from the database as it is read. The page links here with
// its current filter, so it works without JavaScript; the same people may use it as the page.
// A refusal (a wrong filter, before the download starts) is its message as plain text.
export const loader = (args: LoaderFunctionArgs) => pageLoader(args, download, { plainText: true })

async function download({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const url = new URL(request.url)
  const input = {
    startDate: url.searchParams.get('startDate') ?? '',
    endDate: url.searchParams.get('endDate') ?? '',
    courses: url.searchParams.getAll('course'),
  }
  const format = url.searchParams.get('format') || 'csv'
  if (!isExportFormat(format)) throw invalid(`Format must be one of ${EXPORT_FORMATS.join(', ')}.`)
  // a wrong filter is answered before the download starts, with what is wrong
  const filter = accessLogFilter(user, input)
  const body = new PassThrough()
  // the engine ends `body` when done; a failure part-way destroys it, so the download fails rather
  // than looking complete, and a browser that goes away stops the query
  writeAccessLog(user, input, body, { format, signal: request.signal }).catch((error: unknown) => {
    if (!request.signal.aborted) console.error('access-log export failed:', error)
    body.destroy(error instanceof Error ? error : new Error(String(error)))
  })
  const days = filter.startDate || filter.endDate ? `${filter.startDate ?? 'start'}-${filter.endDate ?? 'now'}` : 'all'
  return new Response(Readable.toWeb(body) as ReadableStream, {
    headers: {
      'Content-Type': CONTENT_TYPES[format],
      'Content-Disposition': contentDisposition(`access-log-${days}.${format}`),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}

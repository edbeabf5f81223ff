import { PassThrough, Readable } from 'node:stream'
import type { LoaderFunctionArgs } from '@remix-run/node'
import contentDisposition from 'content-disposition'
import { ZodError } from 'zod'
import { CONTENT_TYPES, EXPORT_FORMATS, isExportFormat, writeAccessLog } from '#app/modules/access-log/export.server.ts'
import { accessLogFilter } from '#app/modules/access-log/service.server.ts'
import { isServiceError } from '#app/modules/errors.ts'
import { fieldErrors } from '#app/utils/api.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'

// GET /admin/accesslog/export?course=…&startDate=…&endDate=…[&format=jsonl]: every row of the Access
// Log page's filter as a download, streamed from the database as it is read. The page links here with
// its current filter, so it works without JavaScript; the same people may use it as the page.
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const url = new URL(request.url)
  const input = {
    startDate: url.searchParams.get('startDate') ?? '',
    endDate: url.searchParams.get('endDate') ?? '',
    courses: url.searchParams.getAll('course'),
  }
  const format = url.searchParams.get('format') || 'csv'
  if (!isExportFormat(format)) return refused(`Format must be one of ${EXPORT_FORMATS.join(', ')}.`)
  let filter
  try {
    // a wrong filter is answered before the download starts, with what is wrong
    filter = accessLogFilter(user, input)
  } catch (error) {
    if (error instanceof ZodError) return refused(Object.values(fieldErrors(error)).join(' '))
    if (isServiceError(error)) return refused(error.message, error.status)
    throw error
  }
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

function refused(message: string, status = 400) {
  return new Response(`${message}\n`, {
    status,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
  })
}

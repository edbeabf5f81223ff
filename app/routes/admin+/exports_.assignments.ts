import { PassThrough, Readable } from 'node:stream'
import type { LoaderFunctionArgs } from '@remix-run/node'
import contentDisposition from 'content-disposition'
import { CONTENT_TYPES, EXPORT_FORMATS, isExportFormat } from '#app/modules/access-log/export.server.ts'
import { assignmentExportFilter, writeAssignments } from '#app/modules/assignments/export.server.ts'
import { invalid } from '#app/modules/errors.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'

// GET /admin/exports/assignments?status=…&course=…&program=…&dueAfter=…&dueBefore=…[&format=jsonl]: every
// assignment of the filter with its due date, status and percent, streamed from the database as it is read.
// The Scheduled exports page's form sends its choices here, so it works without JavaScript; those who may read
// the people lists may download it (the service asks). A refusal (a wrong filter, before the download starts)
// is its message as plain text.
export const loader = (args: LoaderFunctionArgs) => pageLoader(args, download, { plainText: true })

async function download({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const params = new URL(request.url).searchParams
  const text = (name: string) => params.get(name)?.trim() || undefined
  const input = {
    status: text('status'),
    courses: params.getAll('course').filter(Boolean),
    programs: params.getAll('program').filter(Boolean),
    dueAfter: text('dueAfter'),
    dueBefore: text('dueBefore'),
  }
  const format = text('format') ?? 'csv'
  if (!isExportFormat(format)) throw invalid(`Format must be one of ${EXPORT_FORMATS.join(', ')}.`)
  // a wrong filter is answered before the download starts, with what is wrong
  const filter = assignmentExportFilter(user, input)
  const body = new PassThrough()
  // the export ends `body` when done; a failure part-way destroys it, so the download fails rather than
  // looking complete, and a browser that goes away stops the query
  writeAssignments(user, filter, body, { format, signal: request.signal }).catch((error: unknown) => {
    if (!request.signal.aborted) console.error('assignments export failed:', error)
    body.destroy(error instanceof Error ? error : new Error(String(error)))
  })
  const day = new Date().toISOString().slice(0, 10)
  const which = filter.status ? `${filter.status}-` : ''
  return new Response(Readable.toWeb(body) as ReadableStream, {
    headers: {
      'Content-Type': CONTENT_TYPES[format],
      'Content-Disposition': contentDisposition(`assignments-${which}${day}.${format}`),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}

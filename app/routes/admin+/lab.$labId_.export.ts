import { Readable } from 'node:stream'
import type { LoaderFunctionArgs } from '@remix-run/node'
import contentDisposition from 'content-disposition'
import { csvRecords } from '#app/modules/csv/writer.server.ts'
import { labExportCells, labExportRows, LAB_EXPORT_HEADER } from '#app/modules/labs/admin.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'

// GET /admin/lab/:labId/export: every attempt at a lab as CSV (the CSV toolkit's writer, formulas
// neutralised), a row per attempt, learner by learner; for the same people as the results page.
// A refusal is its message as plain text.
export const loader = (args: LoaderFunctionArgs) => pageLoader(args, download, { plainText: true })

async function download({ request, params }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const { lab, rows } = await labExportRows(user, params.labId ?? '')
  const [records, csv] = csvRecords(LAB_EXPORT_HEADER, labExportCells)
  const body = Readable.from(rows).pipe(records).pipe(csv)
  const name = lab.title.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'lab'
  return new Response(Readable.toWeb(body) as ReadableStream, {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': contentDisposition(`${name}-results.csv`),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}

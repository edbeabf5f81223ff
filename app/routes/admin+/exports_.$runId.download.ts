import { Readable } from 'node:stream'
import type { LoaderFunctionArgs } from '@remix-run/node'
import contentDisposition from 'content-disposition'
import { openRunFile } from '#app/modules/exports/service.server.ts'
import { errorResponse } from '#app/utils/api.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'

// GET /admin/exports/{runId}/download: the file a succeeded scheduled export wrote, from the server's
// disk or from S3, for whoever may see the Scheduled exports page. Only the location recorded for that
// run is read; nothing in the request names a path.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  try {
    const file = await openRunFile(user, params.runId ?? '')
    const headers = new Headers({
      'Content-Type': file.contentType,
      'Content-Disposition': contentDisposition(file.fileName),
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'private, no-store',
    })
    if (file.size !== undefined) headers.set('Content-Length', String(file.size))
    return new Response(Readable.toWeb(file.body) as ReadableStream, { headers })
  } catch (error) {
    return errorResponse(error)
  }
}

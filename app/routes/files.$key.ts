import { Readable } from 'node:stream'
import type { LoaderFunctionArgs } from '@remix-run/node'
import contentDisposition from 'content-disposition'
import { openFile } from '#app/modules/files/service.server.ts'
import { apiRoute, requireApiUser } from '#app/utils/api.server.ts'
import { FRAMED_BY_THIS_SITE } from '#app/utils/security-headers.server.ts'

// GET /files/{key}: permission first (cookie session or Bearer token), then the bytes.
export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  const actor = await requireApiUser(request).catch(() => undefined)
  const file = await openFile(actor, params.key ?? '')
  return new Response(Readable.toWeb(file.body) as ReadableStream, {
    headers: {
      'Content-Type': file.contentType,
      'Content-Length': String(file.size),
      'Content-Disposition': contentDisposition(file.name, { type: file.inline ? 'inline' : 'attachment' }),
      'X-Content-Type-Options': 'nosniff',
      // the document and assessment viewers show PDFs and pictures in a frame of the app's
      ...FRAMED_BY_THIS_SITE,
      // images may be kept a little; documents are checked again every time (a hidden one must go)
      'Cache-Control': file.contentType.startsWith('image/') ? 'private, max-age=300' : 'private, no-cache',
    },
  })
})

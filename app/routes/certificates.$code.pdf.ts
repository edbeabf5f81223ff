import type { LoaderFunctionArgs } from '@remix-run/node'
import contentDisposition from 'content-disposition'
import { certificatePdf } from '#app/modules/certificates/service.server.ts'
import { apiRoute, requireApiUser } from '#app/utils/api.server.ts'

// GET /certificates/{code}/pdf: the certificate drawn as a PDF, for its holder and the admin side (cookie
// session or Bearer token); anyone else finds nothing here.
export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  const actor = await requireApiUser(request)
  const { bytes, fileName } = await certificatePdf(actor, params.code ?? '')
  return new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]), {
    headers: {
      'Content-Type': 'application/pdf',
      'Content-Length': String(bytes.byteLength),
      'Content-Disposition': contentDisposition(fileName, { type: 'attachment' }),
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'private, no-cache',
    },
  })
})

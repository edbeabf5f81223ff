import type { LoaderFunctionArgs } from '@remix-run/node'
import contentDisposition from 'content-disposition'
import { certificateCredential } from '#app/modules/certificates/service.server.ts'
import { apiRoute, requireApiUser } from '#app/utils/api.server.ts'

// GET /certificates/{code}/credential: the certificate's signed Open Badges 3.0 credential as a VC-JWT file,
// to keep in a wallet, for its holder and the admin side.
export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  const actor = await requireApiUser(request)
  const { jwt } = await certificateCredential(actor, params.code ?? '')
  return new Response(jwt, {
    headers: {
      'Content-Type': 'application/vc+jwt',
      'Content-Disposition': contentDisposition(`Certificate ${params.code ?? ''}.jwt`, { type: 'attachment' }),
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'private, no-cache',
    },
  })
})

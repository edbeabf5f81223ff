import { revocationList } from '#app/modules/certificates/signing.server.ts'
import { notFound } from '#app/modules/errors.ts'
import { apiRoute } from '#app/utils/api.server.ts'

// GET /issuer/status/1: the revocation list every credential points at, a signed BitstringStatusListCredential
// (VC-JWT), made anew on each request so a revoke counts at once. Public.
export const loader = apiRoute(async ({ params }) => {
  if (params.list !== '1') throw notFound('There is no such status list.')
  return new Response(await revocationList(), {
    headers: { 'Content-Type': 'application/vc+jwt', 'Cache-Control': 'public, max-age=60' },
  })
})

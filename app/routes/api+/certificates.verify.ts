import { verifyCredential } from '#app/modules/certificates/service.server.ts'
import { apiRoute, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// POST /api/certificates/verify { credential } → { data: { result, … } }: whether a credential (a VC-JWT)
// is one the portal signed and still holds valid: valid, revoked, tampered or unknown. Anyone may ask,
// signed in or not: an employer checks what a job seeker sent.
export const action = apiRoute(async ({ request }) => {
  if (request.method !== 'POST') return methodNotAllowed(['POST'])
  const input = await readInput<{ credential: unknown }>(request)
  return { data: await verifyCredential(input.credential) }
})
export const loader = () => methodNotAllowed(['POST'])

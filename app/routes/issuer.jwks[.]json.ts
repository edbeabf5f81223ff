import { json } from '@remix-run/node'
import { forVerifiers, publishedKeySet } from '#app/modules/certificates/signing.server.ts'
import { apiRoute } from '#app/utils/api.server.ts'

// GET /issuer/jwks.json: every public key the portal has signed credentials with, as a JWK Set, so a credential
// signed before a key change still verifies. Public.
export const loader = apiRoute(async () => {
  const { keys } = await publishedKeySet()
  return json({ keys: keys.map(forVerifiers) }, { headers: { 'Cache-Control': 'public, max-age=300' } })
})

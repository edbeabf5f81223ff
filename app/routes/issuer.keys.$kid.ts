import { json } from '@remix-run/node'
import { forVerifiers, publishedKey } from '#app/modules/certificates/signing.server.ts'
import { notFound } from '#app/modules/errors.ts'
import { apiRoute } from '#app/utils/api.server.ts'

// GET /issuer/keys/{kid}: one public key, as the `kid` of a credential's header names it. Public.
export const loader = apiRoute(async ({ params }) => {
  const key = await publishedKey(params.kid ?? '')
  if (!key) throw notFound('No key of the portal’s has this id.')
  return json(forVerifiers(key), { headers: { 'Cache-Control': 'public, max-age=3600' } })
})

import { json } from '@remix-run/node'
import { issuerProfile } from '#app/modules/certificates/credential.server.ts'
import { apiRoute } from '#app/utils/api.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { getEnv } from '#app/utils/env.server.ts'

// GET /issuer: the issuer of the portal's credentials, as an Open Badges Profile (the `issuer.id` every
// credential names). Public.
export const loader = apiRoute(async () => {
  const { PUBLIC_URL } = getEnv()
  return json(issuerProfile(PUBLIC_URL, PRODUCT_NAME), { headers: { 'Cache-Control': 'public, max-age=3600' } })
})

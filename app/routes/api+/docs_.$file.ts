import type { LoaderFunctionArgs } from '@remix-run/node'
import { referenceAsset } from '#app/modules/api-docs/reference-page.server.ts'
import { notFound } from '#app/modules/errors.ts'
import { apiRoute, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/docs/{file} → the reference page's script and styles, from this server only.
export const loader = apiRoute(async ({ params }: LoaderFunctionArgs) => {
  const asset = await referenceAsset(params.file ?? '')
  if (!asset) throw notFound('No such API call.')
  return new Response(asset.body, {
    headers: {
      'Content-Type': asset.contentType,
      'Content-Length': String(asset.size),
      'Cache-Control': 'public, max-age=3600',
      'X-Content-Type-Options': 'nosniff',
    },
  })
})
export const action = () => methodNotAllowed(['GET'])

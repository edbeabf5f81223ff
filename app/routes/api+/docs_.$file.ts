import { json, type LoaderFunctionArgs } from '@remix-run/node'
import { referenceAsset } from '#app/modules/api-docs/reference-page.server.ts'
import { methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/docs/{file} → the reference page's script and styles, from this server only.
export async function loader({ params }: LoaderFunctionArgs) {
  const asset = await referenceAsset(params.file ?? '')
  if (!asset) return json({ message: 'No such API call.' }, { status: 404 })
  return new Response(asset.body, {
    headers: {
      'Content-Type': asset.contentType,
      'Content-Length': String(asset.size),
      'Cache-Control': 'public, max-age=3600',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}
export const action = () => methodNotAllowed(['GET'])

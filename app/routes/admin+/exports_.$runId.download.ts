import type { LoaderFunctionArgs } from '@remix-run/node'
import { openRunFile } from '#app/modules/exports/service.server.ts'
import { apiRoute, privateDownload, requireApiUser } from '#app/utils/api.server.ts'

// GET /admin/exports/{runId}/download: the file a succeeded scheduled export wrote, from the server's
// disk or from S3. The caller comes with the session cookie or a Bearer token, as for /files; who may
// download is the exports service's rule, and every refusal is JSON { message }. Only the location
// recorded for that run is read; nothing in the request names a path.
export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  const user = await requireApiUser(request)
  return privateDownload(await openRunFile(user, params.runId ?? ''))
})

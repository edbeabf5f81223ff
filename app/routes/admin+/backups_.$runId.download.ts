import type { LoaderFunctionArgs } from '@remix-run/node'
import { openBackupArchive } from '#app/modules/backups/schedules.server.ts'
import { apiRoute, privateDownload, requireApiUser } from '#app/utils/api.server.ts'

// GET /admin/backups/{runId}/download: the archive a succeeded scheduled backup kept on the server's disk,
// streamed. The caller comes with the session cookie or a Bearer token, as for the exports' downloads; only
// those who read the backups (the super admin) may, and every refusal is JSON { message }. Only the location
// recorded for that run is read; nothing in the request names a path.
export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  const user = await requireApiUser(request)
  return privateDownload(await openBackupArchive(user, params.runId ?? ''))
})

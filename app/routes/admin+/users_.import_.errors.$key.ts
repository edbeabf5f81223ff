import type { LoaderFunctionArgs } from '@remix-run/node'
import { openImportErrors } from '#app/modules/users/import-files.server.ts'
import { apiRoute, privateDownload } from '#app/utils/api.server.ts'
import { requirePeopleManager } from '#app/utils/session.server.ts'

// GET /admin/users/import/errors/{key}: the error CSV of an import, for the admin who ran it, as a
// download (row, field, message, then the row's own columns without the password).
export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  const user = await requirePeopleManager(request, '/admin/users')
  const file = await openImportErrors(user, params.key ?? '')
  return privateDownload({ ...file, fileName: file.name })
})

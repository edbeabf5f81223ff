import { Readable } from 'node:stream'
import type { LoaderFunctionArgs } from '@remix-run/node'
import contentDisposition from 'content-disposition'
import { openImportErrors } from '#app/modules/users/import-files.server.ts'
import { apiRoute } from '#app/utils/api.server.ts'
import { requirePeopleManager } from '#app/utils/session.server.ts'

// GET /admin/users/import/errors/{key}: the error CSV of an import, for the admin who ran it, as a
// download (row, field, message, then the row's own columns without the password).
export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  const user = await requirePeopleManager(request, '/admin/users')
  const file = await openImportErrors(user, params.key ?? '')
  return new Response(Readable.toWeb(file.body) as ReadableStream, {
    headers: {
      'Content-Type': file.contentType,
      'Content-Disposition': contentDisposition(file.name),
      'Content-Length': String(file.size),
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'private, no-store',
    },
  })
})

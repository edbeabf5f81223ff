import type { LoaderFunctionArgs } from '@remix-run/node'
import { getProfile } from '#app/modules/users/service.server.ts'
import { apiRoute, requireApiUser } from '#app/utils/api.server.ts'

// GET /api/user/profile → { user } for the caller's token.
export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  const actor = await requireApiUser(request)
  return { user: await getProfile(actor, actor.id) }
})

import { getProfile } from '#app/modules/users/service.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/user/profile → { user } for the caller's token.
export const loader = apiLoader(async ({ actor }) => ({ user: await getProfile(actor, actor.id) }))
export const action = () => methodNotAllowed(['GET'])

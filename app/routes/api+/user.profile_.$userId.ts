import { getProfile } from '#app/modules/users/service.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/user/profile/{userId} → { message: profile }: one's own, or anyone's for the admin side.
export const loader = apiLoader(async ({ params, actor }) => ({
  message: await getProfile(actor, params.userId ?? ''),
}))
export const action = () => methodNotAllowed(['GET'])

import { getProfile } from '#app/modules/users/service.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'
import { isUuid } from '#app/modules/ids.ts'
import { notFound } from '#app/modules/errors.ts'

// GET /api/user/profile/{userId} → { message: profile }: one's own, or anyone's for the admin side.
export const loader = apiLoader(async ({ params, actor }) => {
  const userId = params.userId ?? ''
  if (!isUuid(userId)) throw notFound('User not found.')
  return { message: await getProfile(actor, userId) }
})
export const action = () => methodNotAllowed(['GET'])

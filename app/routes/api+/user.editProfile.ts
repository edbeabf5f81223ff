import { AccountIdSchema, type ProfileInput } from '#app/modules/users/schema.ts'
import { editProfile } from '#app/modules/users/service.server.ts'
import { apiAction, methodNotAllowed, readJsonObject } from '#app/utils/api.server.ts'

// PUT /api/user/editProfile { userId, firstName, lastName, userName, email } → { message, user }.
export const action = apiAction('PUT', async ({ request, actor }) => {
  const body = await readJsonObject(request)
  const { userId } = AccountIdSchema.parse(body)
  const user = await editProfile(actor, userId ?? actor.id, body as ProfileInput)
  return { message: 'Profile updated.', user }
})
export const loader = () => methodNotAllowed(['PUT'])

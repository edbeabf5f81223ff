import { AccountIdSchema, type PasswordChangeInput } from '#app/modules/users/schema.ts'
import { changePassword } from '#app/modules/users/service.server.ts'
import { apiAction, methodNotAllowed, readJsonObject } from '#app/utils/api.server.ts'

// PUT /api/user/profilePassword { currentPassword, newPassword, confirmPassword, userId } → { message }.
// Every token and session of the account stops working: the caller signs in again.
export const action = apiAction('PUT', async ({ request, actor }) => {
  const body = await readJsonObject(request)
  const { userId } = AccountIdSchema.parse(body)
  await changePassword(actor, userId ?? actor.id, body as PasswordChangeInput)
  return { message: 'Password changed. Please sign in again.' }
})
export const loader = () => methodNotAllowed(['PUT'])

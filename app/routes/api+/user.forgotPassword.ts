import { requestPasswordReset } from '#app/modules/auth/password-links.server.ts'
import { ForgotPasswordSchema } from '#app/modules/auth/schema.ts'
import { apiRoute, methodNotAllowed, readJson } from '#app/utils/api.server.ts'

// POST /api/user/forgotPassword { userNameOrEmail } → { message }: the same answer for every account.
export const action = apiRoute(async ({ request }) => {
  if (request.method !== 'POST') return methodNotAllowed(['POST'])
  const { userNameOrEmail } = await readJson(request, ForgotPasswordSchema)
  return requestPasswordReset(userNameOrEmail)
})
export const loader = () => methodNotAllowed(['POST'])

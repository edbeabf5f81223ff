import { resetPassword } from '#app/modules/auth/password-links.server.ts'
import { apiRoute, methodNotAllowed, readJsonObject } from '#app/utils/api.server.ts'

// POST /api/user/resetPassword/{token} { newPassword, confirmPassword } → { message }. An unknown,
// used or expired link answers 400 "Token Expired, Please enter your email id to verify again."
export const action = apiRoute(async ({ request, params }) => {
  if (request.method !== 'POST') return methodNotAllowed(['POST'])
  await resetPassword(params.token ?? '', await readJsonObject(request))
  return { message: 'Your password is set. Sign in with it now.' }
})
export const loader = () => methodNotAllowed(['POST'])

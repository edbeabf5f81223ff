import { z } from 'zod'
import { requestPasswordReset } from '#app/modules/auth/password-links.server.ts'
import { apiRoute, methodNotAllowed, readJson } from '#app/utils/api.server.ts'

const ForgotSchema = z.object({
  userNameOrEmail: z
    .string({ required_error: 'Email is required field.' })
    .trim()
    .min(1, 'Email is required field.')
    .max(254, 'Email is invalid.'),
})

// POST /api/user/forgotPassword { userNameOrEmail } → { message }: the same answer for every account.
export const action = apiRoute(async ({ request }) => {
  if (request.method !== 'POST') return methodNotAllowed(['POST'])
  const { userNameOrEmail } = await readJson(request, ForgotSchema)
  return requestPasswordReset(userNameOrEmail)
})
export const loader = () => methodNotAllowed(['POST'])

import type { ActionFunctionArgs } from '@remix-run/node'
import { LoginSchema } from '#app/modules/auth/schema.ts'
import { login } from '#app/modules/auth/service.server.ts'
import { apiRoute, methodNotAllowed, readJson } from '#app/utils/api.server.ts'
import { clientAddress } from '#app/utils/client-address.server.ts'

// POST /api/user/login { email, password } → { token }; `email` takes an email or a username.
export const action = apiRoute(async ({ request }: ActionFunctionArgs) => {
  if (request.method !== 'POST') return methodNotAllowed(['POST'])
  const input = await readJson(request, LoginSchema)
  const { token } = await login(input, { address: clientAddress(request) })
  return { token }
})

export const loader = () => methodNotAllowed(['POST'])

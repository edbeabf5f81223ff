import { json } from '@remix-run/node'
import { ZodError } from 'zod'
import { isServiceError } from '#app/modules/errors.ts'
import type { RegisterInput } from '#app/modules/users/schema.ts'
import { registerUser } from '#app/modules/users/service.server.ts'
import { apiAction, invalidInput, methodNotAllowed, PEOPLE_MANAGERS, readJsonObject } from '#app/utils/api.server.ts'

// POST /api/user/register { firstName, lastName, userName, email, password, confirmPassword, role? }
// → { message, user }. No role means a learner; role "admin" needs the super admin. The old client
// reads errors from the response's email, userName and firstName fields, so field errors
// are given there too.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => {
    try {
      const user = await registerUser(actor, (await readJsonObject(request)) as RegisterInput)
      return { message: 'User created; an invitation mail is on its way.', user }
    } catch (error) {
      const refused = error instanceof ZodError ? invalidInput(error) : error
      if (!isServiceError(refused) || !refused.errors) throw error
      const { message, errors, status } = refused
      return json({ message, errors, ...errors }, { status })
    }
  },
  PEOPLE_MANAGERS,
)
export const loader = () => methodNotAllowed(['POST'])

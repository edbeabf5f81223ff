import type { RegisterInput } from '#app/modules/users/schema.ts'
import { registerUser } from '#app/modules/users/service.server.ts'
import { apiAction, methodNotAllowed, PEOPLE_MANAGERS, readJsonObject } from '#app/utils/api.server.ts'

// POST /api/user/register { firstName, lastName, userName, email, password, confirmPassword, role? }
// → { message, user }. No role means a learner; role "admin" needs the super admin. The old client
// reads errors from the response's email, userName and firstName fields, so field errors
// are given there too.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => {
    const user = await registerUser(actor, (await readJsonObject(request)) as RegisterInput)
    return { message: 'User created; an invitation mail is on its way.', user }
  },
  PEOPLE_MANAGERS,
  { errorsAtTopLevel: true },
)
export const loader = () => methodNotAllowed(['POST'])

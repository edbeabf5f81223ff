import type { NewCoachInput } from '#app/modules/users/schema.ts'
import { createCoach } from '#app/modules/users/service.server.ts'
import { apiAction, PEOPLE_MANAGERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// POST /api/user/coach { firstName, lastName, email, userName } → { message, coach }:
// the coach gets a mail with a link to set a password.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => ({
    message: 'Coach created; an invitation mail is on its way.',
    coach: await createCoach(actor, await readInput<NewCoachInput>(request)),
  }),
  PEOPLE_MANAGERS,
)
export const loader = () => methodNotAllowed(['POST'])

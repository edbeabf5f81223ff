import type { AssignProgramInput } from '#app/modules/assignments/schema.ts'
import { assignProgram } from '#app/modules/assignments/service.server.ts'
import { apiAction, PEOPLE_MANAGERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// PUT /api/program/assignProgram { programId, userId } → { message }: every course of the program.
export const action = apiAction(
  'PUT',
  async ({ request, actor }) => {
    const { assigned } = await assignProgram(actor, await readInput<AssignProgramInput>(request))
    return { message: assigned ? 'Program assigned.' : 'This program was already assigned.' }
  },
  PEOPLE_MANAGERS,
)
export const loader = () => methodNotAllowed(['PUT'])

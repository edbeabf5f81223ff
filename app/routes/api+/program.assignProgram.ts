import type { AssignProgramInput } from '#app/modules/assignments/schema.ts'
import { assignProgram } from '#app/modules/assignments/service.server.ts'
import { apiAction, PEOPLE_MANAGERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// PUT /api/program/assignProgram { programId, userId, dueDate?, reminderPlan? } → { message }: every course of the program.
export const action = apiAction(
  'PUT',
  async ({ request, actor }) => {
    const { assigned, changed } = await assignProgram(actor, await readInput<AssignProgramInput>(request))
    return {
      message: assigned
        ? 'Program assigned.'
        : changed
          ? 'This program was already assigned; its due date or reminder plan is changed.'
          : 'This program was already assigned.',
    }
  },
  PEOPLE_MANAGERS,
)
export const loader = () => methodNotAllowed(['PUT'])

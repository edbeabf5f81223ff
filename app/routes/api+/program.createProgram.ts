import type { NewProgramInput } from '#app/modules/programs/schema.ts'
import { createProgram } from '#app/modules/programs/service.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// POST /api/program/createProgram { title, description, path, learningPath, duration, price, courses, programImage? }
// → { message, program }.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => {
    const program = await createProgram(actor, await readInput<NewProgramInput>(request))
    return { message: 'Program created.', program }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['POST'])

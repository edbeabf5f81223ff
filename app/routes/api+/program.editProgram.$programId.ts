import type { EditProgramInput } from '#app/modules/programs/schema.ts'
import { editProgram } from '#app/modules/programs/service.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// PUT /api/program/editProgram/{programId} { title, description, path, learningPath, duration, price, courses,
// programImage? } → { message, program }: without programImage the current image stays.
export const action = apiAction(
  'PUT',
  async ({ request, params, actor }) => {
    const input = await readInput<EditProgramInput>(request, { programId: params.programId })
    return { message: 'Program updated.', program: await editProgram(actor, input) }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['PUT'])

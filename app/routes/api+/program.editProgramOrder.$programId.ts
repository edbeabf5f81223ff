import type { ReorderInput } from '#app/modules/content/schema.ts'
import { reorderProgram } from '#app/modules/programs/service.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed, readJsonValue } from '#app/utils/api.server.ts'

// PUT /api/program/editProgramOrder/{programId} [{ _id, orderId }] → { message, program }: every course of
// the program, each with its new place.
export const action = apiAction(
  'PUT',
  async ({ request, params, actor }) => {
    const courses = (await readJsonValue(request)) as ReorderInput
    const program = await reorderProgram(actor, { programId: params.programId ?? '', courses })
    return { message: 'The new order is saved.', program }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['PUT'])

import { deleteProgram } from '#app/modules/programs/service.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed } from '#app/utils/api.server.ts'

// DELETE /api/program/deleteProgram/{programId}?confirmUnassign=true → { message }: 409 while learners are
// assigned, unless confirmUnassign unassigns them too.
export const action = apiAction(
  'DELETE',
  async ({ request, params, actor }) => {
    const confirmUnassign = new URL(request.url).searchParams.get('confirmUnassign') ?? undefined
    await deleteProgram(actor, { programId: params.programId ?? '', confirmUnassign })
    return { message: 'Program deleted.' }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['DELETE'])

import { getProgram } from '#app/modules/programs/service.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/program/getProgram/{programId} → { data }: the program, its courses in order and its learners.
export const loader = apiLoader(async ({ params, actor }) => ({
  data: await getProgram(actor, params.programId ?? ''),
}))
export const action = () => methodNotAllowed(['GET'])

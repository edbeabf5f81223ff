import { listPrograms } from '#app/modules/programs/service.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/program/getPrograms → { data }.
export const loader = apiLoader(async ({ actor }) => ({ data: await listPrograms(actor) }))
export const action = () => methodNotAllowed(['GET'])

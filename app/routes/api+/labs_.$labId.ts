import { getLab } from '#app/modules/labs/service.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/labs/{labId} → { data }: the lab, its dataset's tables and columns, its exercises with the caller's state.
export const loader = apiLoader(async ({ params, actor }) => ({ data: await getLab(actor, params.labId ?? '') }))
export const action = () => methodNotAllowed(['GET'])

import { listPrograms } from '#app/modules/programs/service.server.ts'
import { apiLoader, methodNotAllowed, pageQuery } from '#app/utils/api.server.ts'

// GET /api/program/getPrograms → { data }: every program by name, or one page with ?page=&size=
// (then with total, page and size).
export const loader = apiLoader(async ({ request, actor }) => {
  const paging = pageQuery(new URL(request.url))
  const { rows, total } = await listPrograms(actor, paging?.range)
  return paging ? { data: rows, total, page: paging.page, size: paging.size } : { data: rows }
})
export const action = () => methodNotAllowed(['GET'])

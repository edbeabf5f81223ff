import { accessLogReport } from '#app/modules/access-log/service.server.ts'
import { apiLoader, pageQuery, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/category/allusers → { data } (spec §7): the access log without a filter.
export const loader = apiLoader(async ({ request, actor }) => {
  const paging = pageQuery(new URL(request.url))
  const { rows, total } = await accessLogReport(actor, {}, paging?.range)
  return paging ? { data: rows, total, page: paging.page, size: paging.size } : { data: rows }
})
export const action = () => methodNotAllowed(['GET'])

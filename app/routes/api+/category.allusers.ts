import { accessLogReport, accessLogStream } from '#app/modules/access-log/service.server.ts'
import { apiLoader, pageQuery, methodNotAllowed } from '#app/utils/api.server.ts'
import { streamedJsonList } from '#app/utils/json-stream.server.ts'

// GET /api/category/allusers → { data }: the access log without a filter; one page with
// ?page=&size=, else every row, streamed as it is read.
export const loader = apiLoader(async ({ request, actor }) => {
  const paging = pageQuery(new URL(request.url))
  if (!paging) return streamedJsonList('data', accessLogStream(actor, {}), request.signal)
  const { rows, total } = await accessLogReport(actor, {}, paging.range)
  return { data: rows, total, page: paging.page, size: paging.size }
})
export const action = () => methodNotAllowed(['GET'])

import { accessLogReport, accessLogStream } from '#app/modules/access-log/service.server.ts'
import { ACCESS_LOG_READERS, apiAction, methodNotAllowed, pageQuery, readJsonObject } from '#app/utils/api.server.ts'
import { streamedJsonList } from '#app/utils/json-stream.server.ts'

// POST /api/category/accessLog { startDate, endDate, courses } → { data }: the admin report,
// one page with ?page=&size=, else whole, streamed as it is read.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => {
    const paging = pageQuery(new URL(request.url))
    const input = await readJsonObject(request)
    if (!paging) return streamedJsonList('data', accessLogStream(actor, input), request.signal)
    const { rows, total } = await accessLogReport(actor, input, paging.range)
    return { data: rows, total, page: paging.page, size: paging.size }
  },
  ACCESS_LOG_READERS,
)
export const loader = () => methodNotAllowed(['POST'])

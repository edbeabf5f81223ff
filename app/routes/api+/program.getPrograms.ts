import { listPrograms, programStream } from '#app/modules/programs/service.server.ts'
import { apiLoader, methodNotAllowed, pageQuery } from '#app/utils/api.server.ts'
import { streamedJsonList } from '#app/utils/json-stream.server.ts'

// GET /api/program/getPrograms → { data }: every program by name, streamed as it is read, or one page
// with ?page=&size= (then with total, page and size).
export const loader = apiLoader(async ({ request, actor }) => {
  const paging = pageQuery(new URL(request.url))
  if (!paging) return streamedJsonList('data', programStream(actor), request.signal)
  const { rows, total } = await listPrograms(actor, paging.range)
  return { data: rows, total, page: paging.page, size: paging.size }
})
export const action = () => methodNotAllowed(['GET'])

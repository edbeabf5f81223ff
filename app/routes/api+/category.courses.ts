import { catalogueStream, listCatalogue } from '#app/modules/courses/catalogue.server.ts'
import { apiLoader, pageQuery, methodNotAllowed } from '#app/utils/api.server.ts'
import { streamedJsonList } from '#app/utils/json-stream.server.ts'

// GET /api/category/courses → { courses }: the whole catalogue, streamed as it is read, or one page
// with ?page=&size=; search with ?q=.
export const loader = apiLoader(async ({ request, actor }) => {
  const url = new URL(request.url)
  const paging = pageQuery(url)
  const q = url.searchParams.get('q') ?? ''
  if (!paging) return streamedJsonList('courses', catalogueStream(actor, { q }), request.signal)
  const { rows, total } = await listCatalogue(actor, { q, ...paging.range })
  return { courses: rows, total, page: paging.page, size: paging.size }
})
export const action = () => methodNotAllowed(['GET'])

import { listCatalogue } from '#app/modules/courses/service.server.ts'
import { apiLoader, pageQuery, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/category/courses → { courses }: the whole catalogue, or one page with ?page=&size=.
export const loader = apiLoader(async ({ request, actor }) => {
  const url = new URL(request.url)
  const paging = pageQuery(url)
  const { rows, total } = await listCatalogue(actor, { q: url.searchParams.get('q') ?? '', ...paging?.range })
  return paging ? { courses: rows, total, page: paging.page, size: paging.size } : { courses: rows }
})
export const action = () => methodNotAllowed(['GET'])

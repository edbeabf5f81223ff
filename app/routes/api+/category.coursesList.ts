import { listCourseTitles } from '#app/modules/courses/service.server.ts'
import { apiLoader, methodNotAllowed, pageQuery } from '#app/utils/api.server.ts'

// GET /api/category/coursesList → { courses: [{ _id, title }] }, for pickers: the whole list, or
// one page with ?page=&size= (then with total, page and size).
export const loader = apiLoader(async ({ request, actor }) => {
  const paging = pageQuery(new URL(request.url))
  const { rows, total } = await listCourseTitles(actor, paging?.range)
  return paging ? { courses: rows, total, page: paging.page, size: paging.size } : { courses: rows }
})
export const action = () => methodNotAllowed(['GET'])

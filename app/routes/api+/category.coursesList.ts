import { courseTitleStream, listCourseTitles } from '#app/modules/courses/catalogue.server.ts'
import { apiLoader, methodNotAllowed, pageQuery } from '#app/utils/api.server.ts'
import { streamedJsonList } from '#app/utils/json-stream.server.ts'

// GET /api/category/coursesList → { courses: [{ _id, title }] }, for pickers: the whole list, streamed
// as it is read, or one page with ?page=&size= (then with total, page and size).
export const loader = apiLoader(async ({ request, actor }) => {
  const paging = pageQuery(new URL(request.url))
  if (!paging) return streamedJsonList('courses', courseTitleStream(actor), request.signal)
  const { rows, total } = await listCourseTitles(actor, paging.range)
  return { courses: rows, total, page: paging.page, size: paging.size }
})
export const action = () => methodNotAllowed(['GET'])

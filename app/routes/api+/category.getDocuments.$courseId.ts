import { getCourseDetail } from '#app/modules/courses/admin.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/category/getDocuments/{courseId} → { data }: documents, then scenarios, each in order.
export const loader = apiLoader(async ({ params, actor }) => {
  const course = await getCourseDetail(actor, params.courseId ?? '')
  return { data: [...course.documents, ...course.scenarios] }
})
export const action = () => methodNotAllowed(['GET'])

import { getCourseDetail } from '#app/modules/courses/admin.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/category/courseMeta/{courseId} → { data }: every content entry, videos first.
export const loader = apiLoader(async ({ params, actor }) => {
  const course = await getCourseDetail(actor, params.courseId ?? '')
  return { data: [...course.videos, ...course.documents, ...course.scenarios] }
})
export const action = () => methodNotAllowed(['GET'])

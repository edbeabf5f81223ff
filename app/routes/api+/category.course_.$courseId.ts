import { getCourseDetail } from '#app/modules/courses/admin.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/category/course/{courseId} → { message: course } with its videos.
export const loader = apiLoader(async ({ params, actor }) => ({
  message: await getCourseDetail(actor, params.courseId ?? ''),
}))
export const action = () => methodNotAllowed(['GET'])

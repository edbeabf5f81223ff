import { assignedCourseDto } from '#app/modules/courses/dto.ts'
import { listAssignedCourses } from '#app/modules/courses/learner.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/category/assignedCourses/{userId} → { message: { assignedCourses } }: the
// learner's own courses with their progress; the admin side may read anyone's.
export const loader = apiLoader(async ({ params, actor }) => {
  const courses = await listAssignedCourses(actor, { userId: params.userId ?? '' })
  return { message: { assignedCourses: courses.map(assignedCourseDto) } }
})
export const action = () => methodNotAllowed(['GET'])

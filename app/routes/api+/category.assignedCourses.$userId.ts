import { listAssignedCourses } from '#app/modules/courses/service.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/category/assignedCourses/{userId} → { message: { assignedCourses } }: the
// learner's own courses with their progress; the admin side may read anyone's.
export const loader = apiLoader(async ({ params, actor }) => {
  const courses = await listAssignedCourses(actor, { userId: params.userId ?? '' })
  return {
    message: {
      assignedCourses: courses.map((c) => ({
        _id: c.id,
        title: c.title,
        description: c.description,
        courseImage: c.image,
        duration: c.duration,
        courseProgress: c.watched,
        percentage: c.percent,
      })),
    },
  }
})
export const action = () => methodNotAllowed(['GET'])

import { createCourse } from '#app/modules/courses/admin.server.ts'
import type { NewCourseInput } from '#app/modules/courses/schema.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// POST /api/category/course { title, courseImage, description } → { message, course }.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => {
    const course = await createCourse(actor, await readInput<NewCourseInput>(request))
    return { message: 'Course created.', course }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['POST'])

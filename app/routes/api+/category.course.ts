import { createCourse } from '#app/modules/courses/service.server.ts'
import { NewCourseSchema } from '#app/modules/content/schema.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed, readJson } from '#app/utils/api.server.ts'

// POST /api/category/course { title, courseImage, description } → { message, course }.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => {
    const course = await createCourse(actor, await readJson(request, NewCourseSchema))
    return { message: 'Course created.', course }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['POST'])

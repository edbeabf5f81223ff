import { editCourseDetails } from '#app/modules/courses/admin.server.ts'
import type { EditCourseInput } from '#app/modules/courses/schema.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// PUT /api/category/editCourseDetails { courseId, title, description, courseImage } → { message, course }.
export const action = apiAction(
  'PUT',
  async ({ request, actor }) => {
    const course = await editCourseDetails(actor, await readInput<EditCourseInput>(request))
    return { message: 'Course details saved.', course }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['PUT'])

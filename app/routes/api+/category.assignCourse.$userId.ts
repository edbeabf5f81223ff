import { AssignCourseSchema } from '#app/modules/assignments/schema.ts'
import { assignCourse } from '#app/modules/assignments/service.server.ts'
import { apiAction, PEOPLE_MANAGERS, methodNotAllowed, readJsonObject } from '#app/utils/api.server.ts'

// POST /api/category/assignCourse/{userId} { courseId } → { message }: assigning twice is harmless.
export const action = apiAction(
  'POST',
  async ({ request, params, actor }) => {
    const body = await readJsonObject(request)
    const { assigned } = await assignCourse(actor, AssignCourseSchema.parse({ ...body, userId: params.userId }))
    return { message: assigned ? 'Course assigned.' : 'This course was already assigned.' }
  },
  PEOPLE_MANAGERS,
)
export const loader = () => methodNotAllowed(['POST'])

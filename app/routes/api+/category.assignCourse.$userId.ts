import type { AssignCourseInput } from '#app/modules/assignments/schema.ts'
import { assignCourse } from '#app/modules/assignments/service.server.ts'
import { apiAction, PEOPLE_MANAGERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// POST /api/category/assignCourse/{userId} { courseId, dueDate?, reminderPlan? } → { message }: assigning twice is harmless.
export const action = apiAction(
  'POST',
  async ({ request, params, actor }) => {
    const { assigned, changed } = await assignCourse(
      actor,
      await readInput<AssignCourseInput>(request, { userId: params.userId }),
    )
    return {
      message: assigned
        ? 'Course assigned.'
        : changed
          ? 'This course was already assigned; its due date or reminder plan is changed.'
          : 'This course was already assigned.',
    }
  },
  PEOPLE_MANAGERS,
)
export const loader = () => methodNotAllowed(['POST'])

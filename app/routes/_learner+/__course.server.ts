import { json } from '@remix-run/node'
import { getCourseContents } from '#app/modules/courses/service.server.ts'
import { isServiceError } from '#app/modules/errors.ts'
import { requireUser } from '#app/utils/session.server.ts'
import { redirectWithError } from '#app/utils/toast.server.ts'

/** The course for a learner page: not assigned → back to /courses with a toast (spec §4). */
export async function loadCourse(request: Request, courseId: string) {
  const user = await requireUser(request)
  try {
    return { user, course: await getCourseContents(user, courseId) }
  } catch (error) {
    if (isServiceError(error) && error.status === 403) throw await redirectWithError('/courses', error.message)
    if (isServiceError(error) && error.status === 404) throw json({ message: error.message }, { status: 404 })
    throw error
  }
}

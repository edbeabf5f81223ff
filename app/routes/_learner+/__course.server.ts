import { parseWithZod } from '@conform-to/zod'
import { UploadAssessmentSchema } from '#app/modules/assessments/schema.ts'
import { getCourseContents, getCourseVideo, VideoLocked } from '#app/modules/courses/learner.server.ts'
import { isServiceError } from '#app/modules/errors.ts'
import { requireUser } from '#app/utils/session.server.ts'
import { redirectWithError } from '#app/utils/toast.server.ts'
import { orPageNotFound } from '#app/utils/pages.server.ts'

/** The course for a learner page: not assigned → back to /courses with a toast (spec §4). */
export async function loadCourse(request: Request, courseId: string) {
  const user = await requireUser(request)
  return { user, course: await asPage(courseId, () => getCourseContents(user, courseId)) }
}

/** A video page: as loadCourse, and a locked video → back to the course page with the spec's toast. */
export async function loadCourseVideo(request: Request, courseId: string, videoId: string) {
  const user = await requireUser(request)
  return { user, ...(await asPage(courseId, () => getCourseVideo(user, courseId, videoId))) }
}

async function asPage<T>(courseId: string, load: () => Promise<T>): Promise<T> {
  try {
    return await orPageNotFound(load)
  } catch (error) {
    if (error instanceof VideoLocked) throw await redirectWithError(`/course/${courseId}`, error.message)
    if (isServiceError(error) && error.status === 403) throw await redirectWithError('/courses', error.message)
    throw error
  }
}

/**
 * The assessment form, as the course page's action reads it. Here rather than in the route so the
 * schema (and zod) stay out of the page's browser bundle: the form is validated by the action only.
 */
export function parseAssessmentForm(formData: FormData) {
  return parseWithZod(formData, { schema: UploadAssessmentSchema })
}

import { parseWithZod } from '@conform-to/zod'
import type { LoaderFunctionArgs } from '@remix-run/node'
import { UploadAssessmentSchema } from '#app/modules/assessments/schema.ts'
import { getCourseContents, getCourseVideo, VideoLocked } from '#app/modules/courses/learner.server.ts'
import type { RefusalRedirect } from '#app/utils/pages.server.ts'
import { requireUser } from '#app/utils/session.server.ts'

/** The course for a learner page. */
export async function loadCourse(request: Request, courseId: string) {
  const user = await requireUser(request)
  return { user, course: await getCourseContents(user, courseId) }
}

/** A video page: as loadCourse, and the video with its place. */
export async function loadCourseVideo(request: Request, courseId: string, videoId: string) {
  const user = await requireUser(request)
  return { user, ...(await getCourseVideo(user, courseId, videoId)) }
}

/**
 * How a learner's course pages answer a refusal: a locked video goes back to the course page,
 * a course not assigned to them back to /courses, each with the refusal as a toast.
 */
export const COURSE_REFUSALS: RefusalRedirect<LoaderFunctionArgs>[] = [
  { when: VideoLocked, to: ({ params }) => `/course/${params.courseId ?? ''}` },
  { when: 403, to: () => '/courses' },
]

/**
 * The assessment form, as the course page's action reads it. Here rather than in the route so the
 * schema (and zod) stay out of the page's browser bundle: the form is validated by the action only.
 */
export function parseAssessmentForm(formData: FormData) {
  return parseWithZod(formData, { schema: UploadAssessmentSchema })
}

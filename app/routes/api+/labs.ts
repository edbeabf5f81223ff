import { listCourseLabs } from '#app/modules/labs/service.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/labs?courseId= → { data }: the course's labs (the visible ones for an assigned learner), each with
// its exercises and the caller's state of each.
export const loader = apiLoader(async ({ request, actor }) => {
  const courseId = new URL(request.url).searchParams.get('courseId') ?? ''
  return { data: await listCourseLabs(actor, courseId) }
})
export const action = () => methodNotAllowed(['GET'])

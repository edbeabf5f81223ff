import { listVideosProgress } from '#app/modules/progress/service.server.ts'
import { apiAction, methodNotAllowed, readJsonObject } from '#app/utils/api.server.ts'

// POST /api/category/getVideosProgress { userId, courseId } → { data: [{ videoId, completed, … }] }.
export const action = apiAction('POST', async ({ request, actor }) => {
  const body = await readJsonObject(request)
  return { data: await listVideosProgress(actor, { userId: body.userId, courseId: body.courseId }) }
})
export const loader = () => methodNotAllowed(['POST'])

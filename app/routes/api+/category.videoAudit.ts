import type { VideoAuditInput } from '#app/modules/progress/schema.ts'
import { recordVideoAudit } from '#app/modules/progress/service.server.ts'
import { apiAction, LEARNERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// POST /api/category/videoAudit { userId, courseId, videoId, videoDuration, videoProgress } → { message }.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => {
    await recordVideoAudit(actor, await readInput<VideoAuditInput>(request))
    return { message: 'Recorded.' }
  },
  LEARNERS,
)
export const loader = () => methodNotAllowed(['POST'])

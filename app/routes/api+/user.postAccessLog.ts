import type { AccessLogPingInput } from '#app/modules/progress/schema.ts'
import { recordAccessLogPing } from '#app/modules/progress/service.server.ts'
import { apiAction, LEARNERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// POST /api/user/postAccessLog { pageName, recordedDate, courseId?, videoId? } → { message, recorded }.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => {
    const { recorded } = await recordAccessLogPing(actor, await readInput<AccessLogPingInput>(request))
    return { message: recorded ? 'Recorded.' : 'Already recorded a moment ago.', recorded }
  },
  LEARNERS,
)
export const loader = () => methodNotAllowed(['POST'])

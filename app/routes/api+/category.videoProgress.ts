import type { VideoProgressInput } from '#app/modules/progress/schema.ts'
import { recordProgress } from '#app/modules/progress/service.server.ts'
import { apiAction, LEARNERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// POST /api/category/videoProgress { courseId, videoId, watched: [[start, end]], position }
// → { watchedSeconds, completed, lastPosition, duration }: the player's heartbeat (docs/product.md#progress).
export const action = apiAction(
  'POST',
  async ({ request, actor }) => recordProgress(actor, await readInput<VideoProgressInput>(request)),
  LEARNERS,
)
export const loader = () => methodNotAllowed(['POST'])

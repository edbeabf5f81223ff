import { videoDeletedMessage } from '#app/modules/content/messages.ts'
import { deleteVideo } from '#app/modules/content/service.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed } from '#app/utils/api.server.ts'

// DELETE /api/category/deleteVideo/{courseId}/{videoId} → { message }.
export const action = apiAction(
  'DELETE',
  async ({ params, actor }) => {
    const deleted = await deleteVideo(actor, params.courseId ?? '', params.videoId ?? '')
    return { message: videoDeletedMessage(deleted) }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['DELETE'])

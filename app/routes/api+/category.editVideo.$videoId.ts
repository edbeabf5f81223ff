import type { EditVideoInput } from '#app/modules/content/schema.ts'
import { editVideo } from '#app/modules/content/service.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// PUT /api/category/editVideo/{videoId} { courseId, title, description, embedUrl, … } → { message, video }.
export const action = apiAction(
  'PUT',
  async ({ request, params, actor }) => {
    const video = await editVideo(actor, await readInput<EditVideoInput>(request, { videoId: params.videoId }))
    return { message: 'Video updated.', video }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['PUT'])

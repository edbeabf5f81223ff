import type { NewVideoInput } from '#app/modules/content/schema.ts'
import { createVideo } from '#app/modules/content/service.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// PUT /api/category/courseVideo/{relatedCourseId} (video data) → { message, video }.
export const action = apiAction(
  'PUT',
  async ({ request, params, actor }) => {
    const video = await createVideo(
      actor,
      await readInput<NewVideoInput>(request, { relatedCourse: params.relatedCourseId }),
    )
    return { message: 'Video added.', video }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['PUT'])

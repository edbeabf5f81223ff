import { NewVideoSchema } from '#app/modules/content/schema.ts'
import { createVideo } from '#app/modules/content/service.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed, readJsonObject } from '#app/utils/api.server.ts'

// PUT /api/category/courseVideo/{relatedCourseId} (video data) → { message, video }.
export const action = apiAction(
  'PUT',
  async ({ request, params, actor }) => {
    const body = await readJsonObject(request)
    const video = await createVideo(actor, NewVideoSchema.parse({ ...body, relatedCourse: params.relatedCourseId }))
    return { message: 'Video added.', video }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['PUT'])

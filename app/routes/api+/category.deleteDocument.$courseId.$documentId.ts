import { documentMessage } from '#app/modules/content/messages.ts'
import { deleteDocument } from '#app/modules/content/service.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed } from '#app/utils/api.server.ts'

// DELETE /api/category/deleteDocument/{courseId}/{documentId} → { message }.
export const action = apiAction(
  'DELETE',
  async ({ params, actor }) => {
    const deleted = await deleteDocument(actor, params.courseId ?? '', params.documentId ?? '')
    return { message: documentMessage(deleted.kind, 'deleted') }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['DELETE'])

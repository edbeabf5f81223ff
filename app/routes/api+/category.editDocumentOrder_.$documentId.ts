import type { EditDocumentInput } from '#app/modules/content/schema.ts'
import { editDocument } from '#app/modules/content/service.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// PUT /api/category/editDocumentOrder/{documentId} { courseId, document, visibility, orderId } → { message, document }.
export const action = apiAction(
  'PUT',
  async ({ request, params, actor }) => {
    const document = await editDocument(
      actor,
      await readInput<EditDocumentInput>(request, { documentId: params.documentId }),
    )
    return { message: 'Document updated.', document }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['PUT'])

import { EditDocumentSchema } from '#app/modules/content/schema.ts'
import { editDocument } from '#app/modules/content/service.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed, readJsonObject } from '#app/utils/api.server.ts'

// PUT /api/category/editDocumentOrder/{documentId} { courseId, document, visibility, orderId } → { message, document }.
export const action = apiAction(
  'PUT',
  async ({ request, params, actor }) => {
    const body = await readJsonObject(request)
    const document = await editDocument(actor, EditDocumentSchema.parse({ ...body, documentId: params.documentId }))
    return { message: 'Document updated.', document }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['PUT'])

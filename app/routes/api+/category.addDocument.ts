import { kindOf } from '#app/modules/content/dto.ts'
import { documentMessage } from '#app/modules/content/messages.ts'
import type { AddDocumentInput } from '#app/modules/content/schema.ts'
import { addDocument } from '#app/modules/content/service.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// POST /api/category/addDocument { documentType, courseId, document } → { message, document }.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => {
    const document = await addDocument(actor, await readInput<AddDocumentInput>(request))
    return { message: documentMessage(kindOf(document.documentType), 'added'), document }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['POST'])

import { addDocument } from '#app/modules/content/service.server.ts'
import { AddDocumentSchema } from '#app/modules/content/schema.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed, readJson } from '#app/utils/api.server.ts'

// POST /api/category/addDocument { documentType, courseId, document } → { message, document }.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => {
    const document = await addDocument(actor, await readJson(request, AddDocumentSchema))
    return { message: `${document.documentType === 'Scenarios' ? 'Scenario' : 'Document'} added.`, document }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['POST'])

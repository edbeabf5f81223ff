import type { ReorderInput } from '#app/modules/content/schema.ts'
import { reorderEntries } from '#app/modules/content/service.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed, readJsonValue } from '#app/utils/api.server.ts'

// PUT /api/category/editDocumentOrder [{ _id, orderId }] → { message }: every document (or every
// scenario) of one course.
export const action = apiAction(
  'PUT',
  async ({ request, actor }) => {
    await reorderEntries(actor, 'files', (await readJsonValue(request)) as ReorderInput)
    return { message: 'The new order is saved.' }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['PUT'])

import { json } from '@remix-run/node'
import { ZodError } from 'zod'
import type { Actor } from '#app/modules/auth/roles.ts'
import type { ContentKind } from '#db/models/index.ts'
import { readForm } from '#app/utils/forms.server.ts'
import { ReorderSchema } from '#app/modules/content/schema.ts'
import { reorderEntries } from '#app/modules/content/service.server.ts'
import { isServiceError } from '#app/modules/errors.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

/**
 * The ids in their new order: the sortable list posts `order` (ids, first to last); the form shown
 * without JavaScript posts `position:{id}` numbers, where ties keep the current order.
 */
export function postedOrder(form: FormData): string[] {
  const order = form.getAll('order').map(String)
  if (order.length) return order
  return [...form.entries()]
    .filter(([name]) => name.startsWith('position:'))
    .map(([name, value], index) => ({ id: name.slice('position:'.length), position: Number(value), index }))
    .sort(
      (a, b) =>
        (Number.isFinite(a.position) ? a.position : Infinity) - (Number.isFinite(b.position) ? b.position : Infinity) ||
        a.index - b.index,
    )
    .map((entry) => entry.id)
}

/** Save a posted order (`order` = ids, first to last) and go back to the course's tab. */
export async function saveOrder(
  actor: Actor,
  request: Request,
  list: { courseId: string; kind: ContentKind },
  backTo: string,
): Promise<Response> {
  const ids = postedOrder(await readForm(request))
  try {
    const items = ReorderSchema.parse(ids.map((_id, orderId) => ({ _id, orderId })))
    await reorderEntries(actor, list.kind === 'video' ? 'videos' : 'files', items, list)
  } catch (error) {
    if (isServiceError(error)) return json({ error: error.message }, { status: error.status })
    if (error instanceof ZodError) return json({ error: 'Nothing to save.' }, { status: 400 })
    throw error
  }
  return redirectWithSuccess(backTo, 'The new order is saved.')
}

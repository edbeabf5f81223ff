import type { z } from 'zod'
import type { Actor } from '#app/modules/auth/roles.ts'
import { ReorderSchema } from '#app/modules/content/schema.ts'
import { reorderEntries } from '#app/modules/content/service.server.ts'
import { invalid } from '#app/modules/errors.ts'
import { readForm, replyOnRefusal } from '#app/utils/forms.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'
import type { ContentKind } from '#db/models/index.ts'

/**
 * The ids in their new order: the sortable list posts `order` (ids, first to last); the form shown
 * without JavaScript posts `position:{id}` numbers, where ties keep the current order.
 */
function postedOrder(form: FormData): string[] {
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

/** A refused order, shown above the list. */
export type OrderReply = { message: string }

/** Save a posted order (`order` = ids, first to last) and go back to the course's tab. */
export async function saveOrder(
  actor: Actor,
  request: Request,
  list: { courseId: string; kind: ContentKind },
  backTo: string,
): Promise<Response> {
  return savePostedOrder(
    request,
    (items) => reorderEntries(actor, list.kind === 'video' ? 'videos' : 'files', items, list),
    backTo,
  )
}

/**
 * Save a posted order with `save` (the items as `{ _id, orderId }`, as the /api's reorder calls take
 * them) and go back to `backTo`; a refusal is shown above the list.
 */
export async function savePostedOrder(
  request: Request,
  save: (items: ReorderItems) => Promise<unknown>,
  backTo: string,
): Promise<Response> {
  const ids = postedOrder(await readForm(request))
  const items = ReorderSchema.safeParse(ids.map((_id, orderId) => ({ _id, orderId })))
  const saved = await replyOnRefusal(
    async () => {
      if (!items.success) throw invalid('Nothing to save.')
      return save(items.data)
    },
    ({ message }): OrderReply => ({ message }),
  )
  if (!saved.ok) return saved.response
  return redirectWithSuccess(backTo, 'The new order is saved.')
}

type ReorderItems = z.output<typeof ReorderSchema>

import { json } from '@remix-run/node'
import { ZodError } from 'zod'
import type { Actor } from '#app/modules/auth/roles.ts'
import { ReorderSchema } from '#app/modules/content/schema.ts'
import { reorderEntries } from '#app/modules/content/service.server.ts'
import { isServiceError } from '#app/modules/errors.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

/** Save a posted order (`order` = ids, first to last) and go back to the course's tab. */
export async function saveOrder(
  actor: Actor,
  request: Request,
  target: 'videos' | 'files',
  backTo: string,
): Promise<Response> {
  const ids = (await request.formData()).getAll('order').map(String)
  try {
    await reorderEntries(actor, target, ReorderSchema.parse(ids.map((_id, orderId) => ({ _id, orderId }))))
  } catch (error) {
    if (isServiceError(error)) return json({ error: error.message }, { status: error.status })
    if (error instanceof ZodError) return json({ error: 'Nothing to save.' }, { status: 400 })
    throw error
  }
  return redirectWithSuccess(backTo, 'The new order is saved.')
}

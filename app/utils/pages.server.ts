import { json } from '@remix-run/node'
import { isServiceError } from '#app/modules/errors.ts'

/** What a page loader loads: a service's "not found" is the page's 404 (its error boundary), not an error. */
export async function orPageNotFound<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (error) {
    if (isServiceError(error) && error.status === 404) throw json({ message: error.message }, { status: 404 })
    throw error
  }
}

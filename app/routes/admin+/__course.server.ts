import { json } from '@remix-run/node'
import { isServiceError } from '#app/modules/errors.ts'

/** A course for an admin page: an unknown id is the page's 404, not an error. */
export async function loadCourseForAdmin<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (error) {
    if (isServiceError(error) && error.status === 404) throw json({ message: error.message }, { status: 404 })
    throw error
  }
}

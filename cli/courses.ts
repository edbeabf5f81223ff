import { findCourseByIdentifier } from '#app/modules/courses/catalogue.server.ts'
import { isServiceError } from '#app/modules/errors.ts'
import { UsageError } from './output.ts'

/**
 * The courses of `--course` options, each an id or an exact title (any case), as course ids. An unknown or
 * ambiguous one is the operator's mistake: a usage error (exit 2) saying which.
 */
export async function courseIdsOf(identifiers: string[]): Promise<string[]> {
  const ids: string[] = []
  for (const identifier of identifiers) {
    try {
      ids.push((await findCourseByIdentifier(identifier)).id)
    } catch (error) {
      if (isServiceError(error)) throw new UsageError(error.message)
      throw error
    }
  }
  return ids
}

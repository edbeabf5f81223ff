import { findAssignable } from '#app/modules/assignments/import.server.ts'
import { findCourseByIdentifier } from '#app/modules/courses/catalogue.server.ts'
import { isServiceError } from '#app/modules/errors.ts'
import { findUserByIdentifier } from '#app/modules/users/service.server.ts'
import { UsageError } from './output.ts'

// What an operator names on the command line: a course or a program by its id or exact title (any case), a
// user by id, email or username. An unknown or ambiguous one is the operator's mistake: a usage error
// (exit 2) saying which.

async function named<T>(lookup: () => Promise<T>): Promise<T> {
  try {
    return await lookup()
  } catch (error) {
    if (isServiceError(error)) throw new UsageError(error.message)
    throw error
  }
}

/** The course of a `--course` option: its id and title. */
export const courseOf = (identifier: string) => named(() => findCourseByIdentifier(identifier))

/** The program of a `--program` option (found as `portal assign program` finds it): its id and title. */
export const programOf = (identifier: string) => named(() => findAssignable('program', identifier))

/** The account of a `--user` option. */
export const userOf = (identifier: string) => named(() => findUserByIdentifier(identifier))

/** The courses of `--course` options, as course ids. */
export async function courseIdsOf(identifiers: string[]): Promise<string[]> {
  const ids: string[] = []
  for (const identifier of identifiers) ids.push((await courseOf(identifier)).id)
  return ids
}

import { ZodError } from 'zod'
import { invalid, isServiceError, type ServiceError } from '#app/modules/errors.ts'

// What every adapter needs to know about a refusal, whatever answer it shapes from it: apiRoute's
// JSON (api.server.ts), a page's error or redirect (pages.server.ts), a form's errors
// (forms.server.ts). Here rather than in one of them, so no adapter borrows another's internals.

/** A refusal as a ServiceError (a schema's refusal is a 400); anything else is not a refusal. */
export function asServiceError(thrown: unknown): ServiceError | undefined {
  if (isServiceError(thrown)) return thrown
  if (thrown instanceof ZodError) return invalidInput(thrown)
  return undefined
}

/** A schema's refusal as a 400 ServiceError: its first field error as the message, all of them as `errors`. */
function invalidInput(error: ZodError): ServiceError {
  const errors = fieldErrors(error)
  return invalid(Object.values(errors)[0] ?? 'Invalid request.', errors)
}

/** A schema's refusal by field (`a.b` for a nested one, `body` for the whole input): the first message of each. */
export function fieldErrors(error: ZodError): Record<string, string> {
  const errors: Record<string, string> = {}
  for (const issue of error.issues) {
    const key = issue.path.join('.') || 'body'
    errors[key] ??= issue.message
  }
  return errors
}

/** Headers an answer to this refusal carries besides its status: when to try again, if the refusal says. */
export function refusalHeaders(error: ServiceError): Record<string, string> {
  return error.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(error.retryAfterSeconds) }
}

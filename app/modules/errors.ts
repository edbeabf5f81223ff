/**
 * The one error type services throw. Adapters turn it into an HTTP status with `{ message, errors }`
 * (/api), a toast or field errors (pages), or an exit code (CLI).
 */
export class ServiceError extends Error {
  override name = 'ServiceError'
  /** how long to wait before trying again (a 429 that knows), sent as Retry-After */
  readonly retryAfterSeconds?: number
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429,
    message: string,
    readonly errors?: Record<string, string>,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options)
    this.retryAfterSeconds = options?.retryAfterSeconds
  }
}

export const invalid = (message: string, errors?: Record<string, string>) => new ServiceError(400, message, errors)
export const unauthorized = (message = 'Please sign in to continue.') => new ServiceError(401, message)
export const forbidden = (message = 'You do not have permission to do that.') => new ServiceError(403, message)
export const notFound = (message = 'Not found.') => new ServiceError(404, message)
export const conflict = (message: string, errors?: Record<string, string>) => new ServiceError(409, message, errors)

export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof ServiceError
}

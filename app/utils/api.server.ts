import { Readable } from 'node:stream'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import contentDisposition from 'content-disposition'
import type { ZodType, ZodTypeDef } from 'zod'
import { can, PERMISSIONS, type Permission } from '#app/modules/auth/permissions.ts'
import { userFromToken, type SessionUser } from '#app/modules/auth/service.server.ts'
import { forbidden, invalid, ServiceError, unauthorized } from '#app/modules/errors.ts'
import { asServiceError, refusalHeaders } from './refusals.server.ts'
import { noteActingUser } from './request-record.server.ts'
import { getSessionUser, isSameSiteRequest } from './session.server.ts'
import { NUL_MESSAGE, nulFieldErrors, urlHasNul } from './text-input.server.ts'

// The /api contract (docs/product.md#the-api): JSON `{ message }` with the right status, plus `errors`
// (field → text) for validation. Errors become responses here (apiRoute) and nowhere else.

type ApiArgs = LoaderFunctionArgs | ActionFunctionArgs

/** How a call answers a refusal, beside `{ message, errors }`. */
type ApiOptions = {
  /** the field errors at the top level of the body too, as an older client reads them */
  errorsAtTopLevel?: boolean
}

export function apiRoute<A extends ApiArgs>(
  handler: (args: A) => Promise<Response | object>,
  options: ApiOptions = {},
) {
  return async (args: A): Promise<Response> => {
    try {
      if (urlHasNul(args.request.url, args.params)) throw invalid(NUL_MESSAGE)
      const result = await handler(args)
      return result instanceof Response ? result : json(result)
    } catch (error) {
      return errorResponse(error, options)
    }
  }
}

function errorResponse(thrown: unknown, options: ApiOptions): Response {
  if (thrown instanceof Response) return thrown
  const error = asServiceError(thrown)
  if (error) {
    const { message, errors } = error
    const body = !errors ? { message } : options.errorsAtTopLevel ? { message, errors, ...errors } : { message, errors }
    return json(body, { status: error.status, headers: refusalHeaders(error) })
  }
  console.error(thrown)
  return json({ message: 'Something went wrong on our side; please try again.' }, { status: 500 })
}

/** The JSON body validated by a schema; malformed JSON or a wrong content type is a 400. */
export async function readJson<T>(request: Request, schema: ZodType<T, ZodTypeDef, unknown>): Promise<T> {
  return schema.parse(await readJsonObject(request))
}

/** No JSON call needs more; bigger bodies are refused before they are read. */
export const MAX_JSON_BYTES = 1024 * 1024

/** Any JSON body (a list, for the reorder calls); malformed JSON or a wrong content type is a 400. */
export async function readJsonValue(request: Request): Promise<unknown> {
  // the media type before any parameters (`; charset=utf-8`), in any case
  const type = (request.headers.get('Content-Type') ?? '').split(';')[0].trim().toLowerCase()
  if (type !== 'application/json') throw invalid('Send the request body as JSON (Content-Type: application/json).')
  const declared = Number(request.headers.get('Content-Length') ?? NaN)
  if (declared > MAX_JSON_BYTES) throw tooLarge()
  let text = ''
  if (request.body) {
    // counted as it arrives: a missing or lying Content-Length is caught too
    const reader = request.body.getReader()
    const decoder = new TextDecoder()
    let size = 0
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      size += chunk.value.byteLength
      if (size > MAX_JSON_BYTES) {
        await reader.cancel().catch(() => undefined)
        throw tooLarge()
      }
      text += decoder.decode(chunk.value, { stream: true })
    }
    text += decoder.decode()
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw invalid('The request body is not valid JSON.')
  }
  // JSON carries a NUL only as \u0000, so most bodies are never walked
  const nul = text.includes('\\u0000') ? nulFieldErrors(body) : {}
  if (Object.keys(nul).length > 0) throw invalid(NUL_MESSAGE, nul)
  return body
}

const tooLarge = () => new ServiceError(413, 'The request body is too large.')

/** A JSON object body; anything else is a 400. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const body = await readJsonValue(request)
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw invalid('The request body must be a JSON object.')
  return body as Record<string, unknown>
}

/**
 * A JSON object body, with any values from the path over it, handed to a service as its input.
 * Not validated here on purpose: the service parses it with its schema, the one place its rules
 * live (ADR 011), so each call is checked once and the CLI gets the same checks.
 */
export async function readInput<T>(request: Request, fromPath: Record<string, unknown> = {}): Promise<T> {
  return { ...(await readJsonObject(request)), ...fromPath } as T
}

/** ?page=&size= on a list call: that page only; without them, the whole list. */
export function pageQuery(url: URL) {
  if (!url.searchParams.has('page') && !url.searchParams.has('size')) return undefined
  const [rawPage, rawSize] = [url.searchParams.get('page') ?? '', url.searchParams.get('size') ?? '']
  const page = /^\d{1,7}$/.test(rawPage) ? Number(rawPage) : 0
  const size = /^\d{1,3}$/.test(rawSize) ? Number(rawSize) : 0
  if (page < 1 || size < 1 || size > 500)
    throw invalid('page must be a whole number from 1 to 9999999, and size from 1 to 500.')
  return { page, size, range: { offset: (page - 1) * size, limit: size } }
}

type Params = LoaderFunctionArgs['params']
type Handler = (call: { request: Request; params: Params; actor: SessionUser }) => Promise<Response | object>

/** A GET /api call for a signed-in caller. */
export function apiLoader(handler: Handler) {
  return apiRoute(async ({ request, params }: LoaderFunctionArgs) =>
    handler({ request, params, actor: await requireApiUser(request) }),
  )
}

/**
 * Who may make a call, checked before its body is read (deny by default; the service checks again):
 * a caller with any of these permissions of the table, else a 403 with `denied`.
 */
type ApiGate = { anyOf: readonly Permission[]; denied: string }

/** A POST, PUT or DELETE /api call for a signed-in caller; another method is a 405. */
export function apiAction(method: 'POST' | 'PUT' | 'DELETE', handler: Handler, gate?: ApiGate, options?: ApiOptions) {
  return apiRoute(async ({ request, params }: ActionFunctionArgs) => {
    if (request.method !== method) return methodNotAllowed([method])
    const actor = await requireApiUser(request)
    if (gate && !gate.anyOf.some((permission) => can(actor, permission))) throw forbidden(gate.denied)
    return handler({ request, params, actor })
  }, options)
}

/** The gate of one permission, refused in the table's words. */
const permissionGate = (permission: Permission, denied: string = PERMISSIONS[permission].denied): ApiGate => ({
  anyOf: [permission],
  denied,
})

/** The calls that change courses and their contents. */
export const CONTENT_MANAGERS = permissionGate('update:content')
/** The calls that create people and assign their courses. */
export const PEOPLE_MANAGERS = permissionGate('manage:people')
/** Progress, audits and pings are a learner's own. */
export const LEARNERS = permissionGate('record:progress:own', 'This is for learners only.')
/** An assessment is a learner's own upload. */
export const ASSESSMENT_UPLOADERS = permissionGate('upload:assessment:own', 'This is for learners only.')
/** The access log's report. */
export const ACCESS_LOG_READERS = permissionGate('read:access-log')
/** A file for a course (a document, a scenario) or a learner's assessment, as the caller's role makes it. */
export const COURSE_DOCUMENT_UPLOADERS: ApiGate = {
  anyOf: ['update:content', 'upload:assessment:own'],
  denied: 'You do not have permission to upload this file.',
}

/**
 * The caller of an /api route: `Authorization: Bearer <token>` (or a bare token), else the page
 * session; a cookie-authenticated write must come from this site's own pages.
 */
export async function requireApiUser(request: Request): Promise<SessionUser> {
  const header = request.headers.get('Authorization')?.trim()
  if (!header && !isSameSiteRequest(request)) throw forbidden('Requests from other sites are refused.')
  const user = header ? await userFromToken(header.replace(/^Bearer\s+/i, '')) : await getSessionUser(request)
  if (!user) throw unauthorized('Your session has expired or the token is invalid; please sign in again.')
  noteActingUser(user.id)
  return user
}

export function methodNotAllowed(allowed: string[]) {
  return json(
    { message: `Method not allowed; use ${allowed.join(' or ')}.` },
    { status: 405, headers: { Allow: allowed.join(', ') } },
  )
}

/**
 * A file for its caller alone, as a download: streamed, saved under `fileName`, never sniffed as another type
 * nor kept by a cache; its Content-Length when its `size` is known.
 */
export function privateDownload(file: { body: Readable; fileName: string; contentType: string; size?: number }) {
  const headers = new Headers({
    'Content-Type': file.contentType,
    'Content-Disposition': contentDisposition(file.fileName),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'private, no-store',
  })
  if (file.size !== undefined) headers.set('Content-Length', String(file.size))
  return new Response(Readable.toWeb(file.body) as ReadableStream, { headers })
}

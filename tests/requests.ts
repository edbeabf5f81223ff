import { randomUUID } from 'node:crypto'
import type { ActionFunctionArgs, AppLoadContext, LoaderFunctionArgs } from '@remix-run/node'
import { pino } from 'pino'

// Calls a route's loader or action with a real Request, the way Remix does, without a server.

/** The load context the web server gives a request (app/load-context.ts): its own record, a silent logger. */
export function testLoadContext(): AppLoadContext {
  return { record: { requestId: randomUUID() }, logger: pino({ level: 'silent' }) }
}

type RouteFunction = (args: LoaderFunctionArgs & ActionFunctionArgs) => unknown

export const BASE = 'http://portal.test'

export async function call(
  fn: RouteFunction | ((args: never) => unknown),
  path: string,
  init: RequestInit & { params?: Record<string, string>; json?: unknown; token?: string } = {},
): Promise<Response> {
  const { params = {}, json, token, ...rest } = init
  const headers = new Headers(rest.headers)
  if (json !== undefined) headers.set('Content-Type', 'application/json')
  if (token) headers.set('Authorization', `Bearer ${token}`)
  const request = new Request(`${BASE}${path}`, {
    ...rest,
    headers,
    body: json !== undefined ? JSON.stringify(json) : rest.body,
  })
  try {
    const result = await (fn as RouteFunction)({ request, params, context: testLoadContext() })
    if (result instanceof Response) return result
    return Response.json(result)
  } catch (thrown) {
    // loaders throw redirects and error responses
    if (thrown instanceof Response) return thrown
    throw thrown
  }
}

export async function body<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T
}

/**
 * A POST of `form` as a browser encodes it (multipart). The body is read through a stream of our own:
 * when the server stops reading a refused body, cancelling undici's FormData stream itself makes it
 * enqueue into a closed stream (Node 24), an unhandled error that is no fault of the code under test.
 * Ours just stops pulling.
 */
export function multipartRequest(url: string, form: FormData, headers: Record<string, string> = {}) {
  const encoded = new Response(form)
  const reader = encoded.body!.getReader()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read()
      if (done) controller.close()
      else controller.enqueue(value)
    },
  })
  return new Request(url, {
    method: 'POST',
    body,
    headers: { 'Content-Type': encoded.headers.get('Content-Type') ?? '', ...headers },
    duplex: 'half',
  } as RequestInit)
}

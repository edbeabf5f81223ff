import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'

// Calls a route's loader or action with a real Request, the way Remix does, without a server.

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
    const result = await (fn as RouteFunction)({ request, params, context: {} })
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

import '@testing-library/jest-dom/vitest'
import { within } from '@testing-library/dom'
import { JSDOM } from 'jsdom'
import { type ComponentType, type ReactNode } from 'react'
import { renderToString } from 'react-dom/server'
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router-dom/server'
import { BASE, testLoadContext } from '#tests/requests.ts'

// Pages as a person meets them: found by role and name with Testing Library's queries, never by
// matching HTML. One harness for the page tests: a route's page as the server renders it, a component
// as a page shows it, and a whole page a running server answered, all parsed into a browser document
// (jsdom) that runs no script and loads nothing. Only the document: the tests keep Node's Request,
// Headers and FormData, which the app's code uses, so no browser environment (`@vitest-environment`)
// replaces Node's globals.

/** A page's HTML parsed into a document, as a browser without JavaScript shows it: queries over its body. */
export function parsePage(html: string) {
  const { document } = new JSDOM(html, { url: BASE }).window
  return within(document.body)
}

/**
 * What a browser posts from `form`: its fields' [name, value] pairs in order, hidden inputs and checked
 * boxes included, as the person sends them without seeing them. A file field gives its file's name
 * (empty when none is chosen).
 */
export function postedBy(form: Element | null): [string, string][] {
  const window = form?.ownerDocument.defaultView
  if (!window || !(form instanceof window.HTMLFormElement)) throw new Error(`expected a form, got ${form?.tagName}`)
  return [...new window.FormData(form).entries()].map(([name, value]) => [
    name,
    typeof value === 'string' ? value : value.name,
  ])
}

export type RouteModule = { default: ComponentType; loader: unknown; action?: unknown }

type Part = readonly [string, string | File]

/**
 * A route's page as the server renders it before any JavaScript runs, for the person signed in with
 * `cookie`: the route's loader runs with that session (and, given `form`, its action first, on that
 * form posted as multipart, as a browser posts it), then the component renders with that data. `pattern` names the route's parameters (`/admin/course/:courseId`); by default the path is
 * the pattern. A loader or action that redirects or fails fails the render, saying what it answered.
 */
export async function renderRoute(
  route: RouteModule,
  path: string,
  options: { cookie?: string; pattern?: string; form?: readonly Part[] } = {},
) {
  const { cookie, form } = options
  const url = new URL(path, BASE)
  // a Remix loader or action answers a Response (or throws one): what the router expects too
  const run = (fn: unknown) => (args: { request: Request; params: Record<string, string | undefined> }) =>
    (fn as (args: unknown) => Promise<Response>)({ ...args, context: testLoadContext() })
  const routes = [
    {
      id: 'page',
      path: options.pattern ?? url.pathname,
      loader: run(route.loader),
      action: route.action ? run(route.action) : undefined,
      Component: route.default,
    },
  ]
  const init: RequestInit = { headers: cookie ? { Cookie: cookie } : {} }
  if (form) {
    const data = new FormData()
    for (const [name, value] of form) data.append(name, value)
    Object.assign(init, { method: 'POST', body: data })
  }
  return serverRender(routes, new Request(url, init), { errors: false })
}

/**
 * A component as a page at `path` shows it, before any JavaScript runs: inside the router (for its links
 * and forms), queried like a page. Given `thrown`, the page's loader throws it and the component is the
 * page's error boundary, drawn as Remix draws it for a loader that failed.
 */
export async function renderComponent(element: ReactNode, path = '/', options: { thrown?: unknown } = {}) {
  const route =
    'thrown' in options
      ? {
          path: '*',
          loader: () => {
            throw options.thrown
          },
          element: null,
          errorElement: element,
        }
      : { path: '*', element }
  return serverRender([route], new Request(new URL(path, BASE)), { errors: 'thrown' in options })
}

/** `routes` answering `request` as the server renders them; a redirect, or an error not `errors`, fails. */
async function serverRender(
  routes: Parameters<typeof createStaticHandler>[0],
  request: Request,
  expected: { errors: boolean },
) {
  const handler = createStaticHandler(routes)
  const context = await handler.query(request)
  if (context instanceof Response)
    throw new Error(`expected a page, got ${context.status} to ${context.headers.get('Location')}`)
  if (context.errors && !expected.errors) throw new Error(`expected a page, got ${JSON.stringify(context.errors)}`)
  if (!context.errors && expected.errors) throw new Error('expected the loader to fail, but it answered')
  // rendered as the server renders it (a static router: no effect runs, as none runs without JavaScript)
  const router = createStaticRouter(handler.dataRoutes, context)
  return parsePage(renderToString(<StaticRouterProvider router={router} context={context} hydrate={false} />))
}

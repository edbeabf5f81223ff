/// <reference types="vite/client" />
import { readConfig } from '@remix-run/dev/dist/config.js'

// The /api route files as remix-flat-routes makes them, for tests that walk every /api route
// (the OpenAPI document against the code, the fuzz).

/** Every /api route exports both: a call answers the other methods with 405. */
export type ApiRouteModule = { loader: (args: never) => unknown; action: (args: never) => unknown }

const modules = import.meta.glob<ApiRouteModule>('../app/routes/api+/*.ts', { eager: true })

/** The module of a route file, e.g. `routes/api+/user.login.ts`. */
export function routeModule(file: string): ApiRouteModule {
  const module = modules[`../app/${file}`]
  if (!module) throw new Error(`No module for ${file}`)
  return module
}

let routeList: Promise<{ file: string; path: string }[]> | undefined
/** Every /api route file with its URL path as remix-flat-routes makes it, `{name}` for a path value. */
export const apiRoutes = () => (routeList ??= readApiRoutes())

async function readApiRoutes() {
  const { routes } = await readConfig(process.cwd())
  const fullPath = (id: string): string => {
    const route = routes[id]
    const own = route.path ?? ''
    return route.parentId && route.parentId !== 'root' ? `${fullPath(route.parentId)}/${own}` : own
  }
  return Object.values(routes)
    .filter((route) => route.file.startsWith('routes/api+/'))
    .map((route) => ({ file: route.file, path: `/${fullPath(route.id).replace(/:(\w+)/g, '{$1}')}` }))
}

import type http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { readConfig } from '@remix-run/dev/dist/config.js'
import { installGlobals, type ServerBuild } from '@remix-run/node'
import { pino, type Logger } from 'pino'
import * as entryServer from '#app/entry.server.tsx'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { createApp, type Lifecycle, type PortalBuild } from '../server/web-server.js'

// A Remix server build made of the app's real entry and the route modules a test names, so a test can
// put the web server (server/web-server.js) in front of real pages without a `remix build`. The browser
// assets are named but never served. An app route sits where the app's route table (remix-flat-routes,
// as `remix build` reads it) puts it; a test's own route says where it sits.

type Module = Record<string, unknown>

/** A test's own route: its module and its place in the table. */
export type OwnRoute = { module: Module; parentId: string; path?: string; index?: boolean }

type Route = ServerBuild['routes'][string]

/**
 * A route module as a build holds it. Remix's type names a `default` (the page) for every route, but a
 * resource route has none, and Remix asks for it as `default == null`.
 */
const asRouteModule = (module: Module): Route['module'] => ({ ...module, default: module.default })

let config: ReturnType<typeof readConfig> | undefined
/** The app's Remix config, as `remix build` reads it. */
const remixConfig = () => (config ??= readConfig(process.cwd()))

/** The app's route entry of `id`, as `remix build` reads it. */
async function appRoute(id: string) {
  const route = (await remixConfig()).routes[id]
  if (!route) throw new Error(`the app has no route ${id}`)
  return route
}

/** The URL path of an app route, its parents' paths included. */
async function fullPath(id: string): Promise<string> {
  const route = await appRoute(id)
  const own = route.path ?? ''
  return route.parentId && route.parentId !== 'root' ? `${await fullPath(route.parentId)}/${own}` : own
}

/** The build's future flags, as `remix build` writes them; Remix's globals installed as the server does. */
const future = async () => {
  const flags = (await remixConfig()).future
  installGlobals({ nativeFetch: flags.v3_singleFetch })
  return flags
}

/**
 * The build of the app's route modules, by id (`root` among them), and the test's own routes.
 * Installs Remix's globals as the server does.
 */
export async function standInBuild(
  app: Record<string, Module>,
  own: Record<string, OwnRoute> = {},
): Promise<PortalBuild> {
  const routes: Record<string, Route> = {}
  for (const [id, module] of Object.entries(app)) {
    const { parentId, path, index } = await appRoute(id)
    routes[id] = { id, parentId, path, index, module: asRouteModule(module) }
  }
  for (const [id, route] of Object.entries(own)) routes[id] = { id, ...route, module: asRouteModule(route.module) }
  const manifestRoutes = Object.fromEntries(
    Object.values(routes).map((route) => [
      route.id,
      {
        id: route.id,
        parentId: route.parentId,
        path: route.path,
        index: route.index,
        module: `/build/${route.id}.js`,
        imports: [],
        hasAction: 'action' in route.module,
        hasLoader: 'loader' in route.module,
        hasClientAction: false,
        hasClientLoader: false,
        hasErrorBoundary: 'ErrorBoundary' in route.module,
      },
    ]),
  )
  return {
    mode: 'production',
    routes,
    entry: { module: entryServer },
    future: await future(),
    publicPath: '/build/',
    assetsBuildDirectory: 'public/build',
    assets: {
      entry: { module: '/build/entry.client.js', imports: [] },
      routes: manifestRoutes,
      url: '/build/manifest.js',
      version: 'test',
    },
    isSpaMode: false,
  }
}

/**
 * A build of routes that render no page (/api calls, a test's own loaders) under an empty root: the app's
 * entry (with its hooks for the server: the database, the load context), no assets. The app's routes by
 * id, at their full URL paths; the test's own at the path their id names (`routes/held` at /held).
 * Installs Remix's globals as the server does.
 */
export async function bareBuild(app: Record<string, Module>, own: Record<string, Module> = {}): Promise<PortalBuild> {
  const routes: Record<string, Route> = { root: { id: 'root', path: '', module: asRouteModule({}) } }
  for (const [id, module] of Object.entries(app))
    routes[id] = { id, parentId: 'root', path: await fullPath(id), module: asRouteModule(module) }
  for (const [id, module] of Object.entries(own))
    routes[id] = { id, parentId: 'root', path: id.replace(/^routes\//, ''), module: asRouteModule(module) }
  return {
    mode: 'production',
    routes,
    entry: { module: entryServer },
    future: await future(),
    publicPath: '/build/',
    assetsBuildDirectory: 'public/build',
    assets: { entry: { module: '', imports: [] }, routes: {}, url: '', version: 'test' },
    isSpaMode: false,
  }
}

/** A request log that writes nowhere. */
export const silentLogger = () => pino({ level: 'silent' }, new Writable({ write: (_line, _encoding, done) => done() }))

/** A request log kept in memory: every line, parsed, in `lines`. */
export function recordingLogger() {
  const lines: Record<string, unknown>[] = []
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(line: Buffer, _encoding, done) {
        lines.push(JSON.parse(line.toString()) as Record<string, unknown>)
        done()
      },
    }),
  )
  return { logger, lines }
}

/**
 * The web server as `portal serve` runs it (server/web-server.js), on a free port of this process, made
 * with the environment as it is now. `close` ends its open connections and stops it.
 */
export async function serve(build: PortalBuild, options: { logger?: Logger; lifecycle?: Lifecycle } = {}) {
  resetEnvCache()
  const { logger = silentLogger(), lifecycle } = options
  const app = createApp({ build, logger, metrics: undefined, lifecycle })
  const server: http.Server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    server,
    port,
    base: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

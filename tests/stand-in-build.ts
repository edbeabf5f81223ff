import type http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { readConfig } from '@remix-run/dev/dist/config.js'
import { installGlobals } from '@remix-run/node'
import { pino, type Logger } from 'pino'
import * as entryServer from '#app/entry.server.tsx'
import { resetEnvCache } from '#app/utils/env.server.ts'
import remixConfig from '../remix.config.js'
import { createApp, type createLifecycle } from '../server/web-server.js'

// A Remix server build made of the app's real entry and the route modules a test names, so a test can
// put the web server (server/web-server.js) in front of real pages without a `remix build`. The browser
// assets are named but never served. An app route sits where the app's route table (remix-flat-routes,
// as `remix build` reads it) puts it; a test's own route says where it sits.

type Module = Record<string, unknown>

/** A test's own route: its module and its place in the table. */
export type OwnRoute = { module: Module; parentId: string; path?: string; index?: boolean }

type Route = { id: string; parentId?: string; path?: string; index?: boolean; module: Module }

let routeTable: Promise<Awaited<ReturnType<typeof readConfig>>['routes']> | undefined
/** The app's route entry of `id`, as `remix build` reads it. */
async function appRoute(id: string) {
  routeTable ??= readConfig(process.cwd()).then((config) => config.routes)
  const route = (await routeTable)[id]
  if (!route) throw new Error(`the app has no route ${id}`)
  return route
}

/** The URL path of an app route, its parents' paths included. */
async function fullPath(id: string): Promise<string> {
  const route = await appRoute(id)
  const own = route.path ?? ''
  return route.parentId && route.parentId !== 'root' ? `${await fullPath(route.parentId)}/${own}` : own
}

const future = () => {
  const flags = remixConfig.future ?? {}
  installGlobals({ nativeFetch: flags.v3_singleFetch })
  return flags
}

/**
 * The build of the app's route modules, by id (`root` among them), and the test's own routes.
 * Installs Remix's globals as the server does.
 */
export async function standInBuild(app: Record<string, Module>, own: Record<string, OwnRoute> = {}) {
  const routes: Record<string, Route> = {}
  for (const [id, module] of Object.entries(app)) {
    const { parentId, path, index } = await appRoute(id)
    routes[id] = { id, parentId, path, index, module }
  }
  for (const [id, route] of Object.entries(own)) routes[id] = { id, ...route }
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
    routes,
    entry: { module: entryServer },
    future: future(),
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
 * A build of routes that render no page (/api calls, a test's own loaders) under an empty root: an entry
 * with the app's hooks for the server (its database, the load context) but nothing to render, no assets. The app's routes by id, at their full URL paths; the test's own at the path their
 * id names (`routes/held` at /held). Installs Remix's globals as the server does.
 */
export async function bareBuild(app: Record<string, Module>, own: Record<string, Module> = {}) {
  const routes: Record<string, Route> = { root: { id: 'root', path: '', module: {} } }
  for (const [id, module] of Object.entries(app))
    routes[id] = { id, parentId: 'root', path: await fullPath(id), module }
  for (const [id, module] of Object.entries(own))
    routes[id] = { id, parentId: 'root', path: id.replace(/^routes\//, ''), module }
  return {
    routes,
    entry: { module: { serverHooks: entryServer.serverHooks } },
    future: future(),
    publicPath: '/build/',
    assetsBuildDirectory: 'public/build',
    assets: { entry: { module: '', imports: [] }, routes: {}, url: '', version: 'test' },
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
export async function serve(
  build: Awaited<ReturnType<typeof standInBuild>> | Awaited<ReturnType<typeof bareBuild>>,
  options: { logger?: Logger; lifecycle?: ReturnType<typeof createLifecycle> } = {},
) {
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

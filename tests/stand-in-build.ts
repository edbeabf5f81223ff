import type http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { installGlobals } from '@remix-run/node'
import { pino, type Logger } from 'pino'
import * as entryServer from '#app/entry.server.tsx'
import { resetEnvCache } from '#app/utils/env.server.ts'
import remixConfig from '../remix.config.js'
import { createApp, type createLifecycle } from '../server/web-server.js'

// A Remix server build made of the app's real entry and the route modules a test names, so a test can
// put the web server (server/web-server.js) in front of real pages without a `remix build`. The browser
// assets are named but never served.

export type StandInRoute = {
  id: string
  parentId?: string
  path?: string
  index?: boolean
  module: Record<string, unknown>
}

/** The build for `routes` (keyed by id; `root` among them). Installs Remix's globals as the server does. */
export function standInBuild(routes: Record<string, StandInRoute>) {
  const future = remixConfig.future ?? {}
  installGlobals({ nativeFetch: future.v3_singleFetch })
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
    future,
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

/** The URL path of a plain route id as remix-flat-routes makes it: `routes/api+/user.profile_.$userId`. */
const pathOf = (id: string) =>
  id
    .replace(/^routes\//, '')
    .replace(/\+\//g, '/')
    .replace(/_?\./g, '/')
    .replace(/\$(\w+)/g, ':$1')

/**
 * A build of routes that render no page (/api calls, a test's own loaders) under an empty root, keyed
 * by their ids as `remix build` names them: no entry, no assets. Installs Remix's globals as the server does.
 */
export function bareBuild(routes: Record<string, Record<string, unknown>>) {
  const future = remixConfig.future ?? {}
  installGlobals({ nativeFetch: future.v3_singleFetch })
  return {
    routes: {
      root: { id: 'root', path: '', module: {} },
      ...Object.fromEntries(
        Object.entries(routes).map(([id, module]) => [id, { id, parentId: 'root', path: pathOf(id), module }]),
      ),
    },
    entry: { module: {} },
    future,
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
  build: ReturnType<typeof standInBuild> | ReturnType<typeof bareBuild>,
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

import { installGlobals } from '@remix-run/node'
import * as entryServer from '#app/entry.server.tsx'
import remixConfig from '../remix.config.js'

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

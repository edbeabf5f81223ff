import { flatRoutes } from 'remix-flat-routes'

/** @type {import('@remix-run/dev').AppConfig} */
export default {
  // Routes come from remix-flat-routes' folders (`_auth+/`, `admin+/`, `api+/` …), see ADR 001.
  ignoredRouteFiles: ['**/*'],
  routes: async (defineRoutes) =>
    flatRoutes('routes', defineRoutes, {
      ignoredRouteFiles: ['**/.*', '**/*.test.{ts,tsx}', '**/__*.*'],
    }),
  // the package.json "imports" aliases are our own code: bundle them, do not leave them to Node
  serverDependenciesToBundle: [/^#(app|db)\//],
  serverModuleFormat: 'esm',
  serverPlatform: 'node',
  tailwind: true,
  postcss: false,
  watchPaths: ['./db/**/*.ts'],
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    v3_singleFetch: false,
  },
}

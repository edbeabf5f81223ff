// The page floor of `npm run bench`: the least a Remix 2 page costs when served by the portal's web server — one
// route, a root layout, no database. The bench builds it into build/ here (ignored by git), cache and
// browser assets included, and serves it from this folder.

/** @type {import('@remix-run/dev').AppConfig} */
export default {
  serverBuildPath: 'build/index.js',
  assetsBuildDirectory: 'build/public/build',
  cacheDirectory: 'build/.cache',
  serverModuleFormat: 'esm',
  serverPlatform: 'node',
  // the portal's future flags, so both builds render the same way
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    v3_singleFetch: false,
  },
}

import { registerHooks } from 'node:module'
import path from 'node:path'
import url from 'node:url'
import { patchedPackages, root } from '#tests/patched-packages.ts'

// `node --import` this file, with BENCH_PUBLISHED_DIR set to a folder holding the published copies of the
// patched packages in its node_modules (tests/patched-packages.ts, unpackPublished): every module of those
// packages is then loaded from there instead of from node_modules, whoever imports or requires it. The folder
// must be inside the project's node_modules, so that what the copies require themselves (react, react-router)
// is found by Node's usual lookup. The bench runs a second app server so (BENCH_COMPARE_PATCHES=1), to
// measure what the patches save on the same machine in the same run.

const folder = process.env.BENCH_PUBLISHED_DIR
if (!folder) throw new Error('published-packages: BENCH_PUBLISHED_DIR is not set')
const installed = url.pathToFileURL(path.join(root, 'node_modules') + path.sep).href
const published = url.pathToFileURL(path.join(folder, 'node_modules') + path.sep).href
const packages = patchedPackages().map((item) => `${installed}${item.name}/`)

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context)
    return packages.some((prefix) => resolved.url.startsWith(prefix))
      ? { ...resolved, url: published + resolved.url.slice(installed.length) }
      : resolved
  },
})

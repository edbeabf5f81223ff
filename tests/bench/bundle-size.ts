import { spawnSync } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { matchRoutes, type RouteObject } from 'react-router-dom'

// npm run bench:bundle: builds the app, then for a few pages sums what a first load downloads: the
// JS modules (the entry, root, the matched routes' modules and every chunk they import statically,
// followed through esbuild's metafile) and the stylesheets those modules link. Sizes are gzip level 9
// and brotli, per file, as a server compressing each response would send them. Figures only.
// `-- --no-build` measures the existing build; `-- --packages` adds where each page's JS comes from.

const root = path.resolve(import.meta.dirname, '..', '..')
const publicDir = path.join(root, 'public')

/** The pages measured: a URL each (any id will do, only the route it matches counts). */
const PAGES = [
  { label: 'landing', url: '/' },
  { label: 'sign-in', url: '/sign-in' },
  { label: 'My Courses', url: '/courses' },
  { label: 'course page', url: '/course/1' },
  { label: 'video page', url: '/course/1/1' },
  { label: 'admin Users List', url: '/admin/users' },
]

type ManifestRoute = {
  id: string
  parentId?: string
  path?: string
  index?: boolean
  module: string
  imports?: string[]
}
type Manifest = { entry: { module: string; imports: string[] }; routes: Record<string, ManifestRoute> }
type Metafile = {
  outputs: Record<
    string,
    { imports: { path: string; kind: string }[]; inputs: Record<string, { bytesInOutput: number }> }
  >
}

async function main() {
  if (!process.argv.includes('--no-build')) {
    const build = spawnSync('npx', ['remix', 'build'], { cwd: root, encoding: 'utf8' })
    if (build.status !== 0) throw new Error(`remix build failed:\n${build.stdout}${build.stderr}`)
  }
  const manifest = await readManifest()
  const metafile = JSON.parse(await readFile(path.join(root, 'build', 'metafile.js.json'), 'utf8')) as Metafile
  const routes = routeTree(manifest)
  const sizes = new Map<string, { gzip: number; brotli: number }>()

  const rows = []
  for (const page of PAGES) {
    const matches = matchRoutes(routes, page.url)
    if (!matches) throw new Error(`no route matches ${page.url}`)
    const start = [manifest.entry.module, ...manifest.entry.imports]
    for (const { route } of matches) {
      const r = manifest.routes[route.id!]!
      start.push(r.module, ...(r.imports ?? []))
    }
    const js = staticClosure(start, metafile)
    const css = new Set<string>()
    for (const file of js) {
      const text = await readFile(path.join(publicDir, file), 'utf8')
      for (const href of text.match(/\/build\/_assets\/[\w.-]+\.css/g) ?? []) css.add(href)
    }
    rows.push({
      page,
      route: matches.at(-1)!.route.id!,
      js: await total(js, sizes),
      css: await total(css, sizes),
      modules: js.size,
      files: js,
    })
  }

  console.log('first load of each page: JS and CSS it downloads, KB (1,000 bytes) after compression\n')
  const head = ['page', 'route', 'JS gzip', 'JS brotli', 'CSS gzip', 'CSS brotli', 'JS modules']
  const table = rows.map((r) => [
    `${r.page.label} ${r.page.url}`,
    r.route,
    kb(r.js.gzip),
    kb(r.js.brotli),
    kb(r.css.gzip),
    kb(r.css.brotli),
    String(r.modules),
  ])
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i]!.length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  console.log(line(head))
  for (const t of table) console.log(line(t))

  if (process.argv.includes('--packages')) {
    for (const r of rows) {
      // bytes before compression, by package (or by our own top folder), from the metafile's inputs
      const byPackage = new Map<string, number>()
      for (const file of r.files) {
        for (const [input, { bytesInOutput }] of Object.entries(metafile.outputs[`public${file}`]?.inputs ?? {})) {
          const name = packageOf(input)
          byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput)
        }
      }
      const top = [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 12)
      console.log(`\n${r.page.label} ${r.page.url}: minified KB by source`)
      for (const [name, bytes] of top) console.log(`  ${kb(bytes).padStart(7)}  ${name}`)
    }
  }
}

async function readManifest(): Promise<Manifest> {
  const dir = path.join(publicDir, 'build')
  const file = (await readdir(dir)).find((f) => /^manifest-\w+\.js$/.test(f))
  if (!file) throw new Error('no public/build/manifest-*.js: run remix build')
  const text = await readFile(path.join(dir, file), 'utf8')
  return JSON.parse(text.replace(/^window\.__remixManifest=/, '').replace(/;\s*$/, '')) as Manifest
}

/** The manifest's flat routes as the nested tree the router matches against. */
function routeTree(manifest: Manifest): RouteObject[] {
  const children = (parentId: string | undefined): RouteObject[] =>
    Object.values(manifest.routes)
      .filter((r) => r.parentId === parentId)
      .map((r) =>
        r.index ? { id: r.id, path: r.path, index: true } : { id: r.id, path: r.path, children: children(r.id) },
      )
  return children(undefined)
}

/** Every file the given modules import statically, themselves included (dynamic imports load later). */
function staticClosure(start: string[], metafile: Metafile): Set<string> {
  const seen = new Set<string>()
  const queue = [...start]
  while (queue.length) {
    const file = queue.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    for (const i of metafile.outputs[`public${file}`]?.imports ?? []) {
      if (i.kind === 'import-statement') queue.push(`/${i.path.replace(/^public\//, '')}`)
    }
  }
  return seen
}

async function total(files: Iterable<string>, cache: Map<string, { gzip: number; brotli: number }>) {
  let gzip = 0
  let brotli = 0
  for (const file of files) {
    let size = cache.get(file)
    if (!size) {
      const bytes = await readFile(path.join(publicDir, file))
      size = {
        gzip: gzipSync(bytes, { level: 9 }).length,
        brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
      }
      cache.set(file, size)
    }
    gzip += size.gzip
    brotli += size.brotli
  }
  return { gzip, brotli }
}

function packageOf(input: string) {
  const mod = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)
  if (mod) return mod[1]!
  const own = input.replace(/^browser-route-module:/, 'app/routes/').match(/^(app\/[^/]+(?:\/[^/]+)?)/)
  return own ? own[1]! : input
}

const kb = (bytes: number) => (bytes / 1000).toFixed(1)

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})

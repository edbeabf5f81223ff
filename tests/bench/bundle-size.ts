import { spawnSync } from 'node:child_process'
import { readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { matchRoutes, type RouteObject } from 'react-router-dom'
import { readLabFolder } from '#app/modules/labs/folder.server.ts'
import { practiceDataset } from '#app/modules/labs/sandbox.server.ts'

// npm run bench:bundle: builds the app, then for a few pages sums what a first load downloads: the
// JS modules (the entry, root, the matched routes' modules and every chunk they import statically,
// followed through esbuild's metafile) and the stylesheets those modules link. Sizes are gzip level 9
// and brotli, per file, as a server compressing each response would send them. Figures only.
// `-- --no-build` measures the existing build; `-- --packages` adds where each page's JS comes from.
// The practice column is the lab page's practice code (Run, Reset, the worker's handling) inside each page's JS: none
// on the other pages. Then the lab page's first and repeat visit with practice: the page, the practice worker,
// PGlite's WebAssembly, file-system image and empty cluster (server/build-practice.js) and each demo lab's dataset,
// at gzip level 6 as the web server sends them; on a repeat visit every one of them is in the browser's cache for good.

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
  { label: 'lab page', url: '/course/1/lab/1' },
]

/** The lab page's practice code, by source file: it must be in no other page's JS. */
const PRACTICE_SOURCES = /^app\/components\/labs\/(practice-|use-practice-)/

/** The demo labs whose practice datasets are measured. */
const DEMO_LABS = ['sql-fundamentals', 'data-warehousing']

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
    const build = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8' })
    if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`)
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
      practice: [...js].reduce(
        (sum, file) =>
          sum +
          Object.entries(metafile.outputs[`public${file}`]?.inputs ?? {})
            .filter(([input]) => PRACTICE_SOURCES.test(input))
            .reduce((bytes, [, input]) => bytes + input.bytesInOutput, 0),
        0,
      ),
    })
  }

  console.log('first load of each page: JS and CSS it downloads, KB (1,000 bytes) after compression\n')
  const head = ['page', 'route', 'JS gzip', 'JS brotli', 'CSS gzip', 'CSS brotli', 'JS modules', 'practice (min.)']
  const table = rows.map((r) => [
    `${r.page.label} ${r.page.url}`,
    r.route,
    kb(r.js.gzip),
    kb(r.js.brotli),
    kb(r.css.gzip),
    kb(r.css.brotli),
    String(r.modules),
    kb(r.practice),
  ])
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i]!.length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  console.log(line(head))
  for (const t of table) console.log(line(t))

  const lab = rows.find((r) => r.page.label === 'lab page')!
  await practiceVisits(lab.js.gzip + lab.css.gzip, lab.js.brotli + lab.css.brotli)

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

/** The lab page's first and repeat visit: the page, then what practice downloads, gzip level 6 as served. */
async function practiceVisits(pageBytes: number, pageBrotli: number) {
  const manifestFile = path.join(publicDir, 'build', 'practice', 'manifest.json')
  const files = JSON.parse(await readFile(manifestFile, 'utf8')) as Record<string, string>
  const gzipped = async (file: string) => gzipSync(await readFile(path.join(publicDir, file))).length
  // the brotli copy server/build-practice.js made, sent as it is to a browser that takes brotli
  const brotli = async (file: string) => (await stat(path.join(publicDir, `${file}.br`))).size
  const parts: [string, number, number][] = [['lab page JS and CSS', pageBytes, pageBrotli]]
  for (const [name, file] of Object.entries(files))
    parts.push([`${name} ${path.basename(file)}`, await gzipped(file), await brotli(file)])
  const practice = parts.slice(1).reduce((sum, [, bytes]) => sum + bytes, 0)
  const practiceBrotli = parts.slice(1).reduce((sum, [, , bytes]) => sum + bytes, 0)
  console.log('\nthe lab page with practice, KB downloaded: gzip level 6 (on the fly), brotli (the built copies)\n')
  for (const [name, gzip, br] of parts) console.log(`  ${kb(gzip).padStart(8)}  ${kb(br).padStart(8)}  ${name}`)
  for (const demo of DEMO_LABS) {
    const folder = await readLabFolder(path.join(root, 'db', 'seeds', 'labs', demo))
    const dataset = await practiceDataset({
      sql: folder.datasetSql,
      name: folder.definition.dataset,
      files: folder.dataFiles,
    })
    const datasetBytes = gzipSync(JSON.stringify({ version: '0'.repeat(32), ...dataset })).length
    console.log(
      `  ${demo}: first visit ${kb(pageBytes + practice + datasetBytes)} KB gzip, ` +
        `${kb(pageBrotli + practiceBrotli + datasetBytes)} KB brotli (its dataset ${kb(datasetBytes)} KB);` +
        ' repeat visit 0.0 KB of these (all kept for good; the dataset opens from the copy the browser kept)',
    )
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

import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import url from 'node:url'

// Where a CPU profile's time went: self and total time by package, then the functions with the most
// self time, each in ms and in % of the busy time (idle excluded).
//
//   npx tsx tests/bench/profile-summary.ts bench-profiles/<run>            a run of BENCH_PROFILE=1
//   npx tsx tests/bench/profile-summary.ts some.cpuprofile                 any profile of `node --cpu-prof`
//   … --load heartbeat      only the samples taken during the measured loads whose name starts so
//   … --top 40              functions listed (default 25)
//
// A run folder holds portal.cpuprofile and loads.json (the start and end of each measured load): only the
// samples inside a measured load are counted, so start-up, sign-in and warm-up stay out of the figures.
//
// Groups: node_modules/<package> (the last node_modules in the path, scoped packages whole); the app's
// bundle (build/index.js) split by the source file each module came from (esbuild's `// app/…` markers);
// other files of the project by path; node:… internals; V8 builtins and native code with no script
// ("(native)"); "(garbage collector)" and "(program)" (VM time no function is charged with).

type CallFrame = { functionName: string; url: string; lineNumber: number; columnNumber: number }
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] }
type Profile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }
type Load = { name: string; connections: number; startUs: number; endUs: number }

const root = path.resolve(import.meta.dirname, '..', '..')

function main(argv: string[]) {
  const args = [...argv]
  const option = (name: string) => {
    const at = args.indexOf(name)
    if (at < 0) return undefined
    const [, value] = args.splice(at, 2)
    return value
  }
  const loadPrefix = option('--load')
  const top = Number(option('--top') ?? 25)
  const target = args[0]
  if (!target || !existsSync(target) || !Number.isInteger(top) || top < 1) {
    console.error('usage: profile-summary.ts <run folder | file.cpuprofile> [--load <name>] [--top <n>]')
    process.exit(2)
  }
  const isDir = statSync(target).isDirectory()
  const file = isDir ? path.join(target, 'portal.cpuprofile') : target
  const loadsFile = path.join(path.dirname(file), 'loads.json')
  let loads: Load[] | undefined
  if (existsSync(loadsFile)) loads = JSON.parse(readFileSync(loadsFile, 'utf8')) as Load[]
  if (loads && loadPrefix) loads = loads.filter((l) => l.name.startsWith(loadPrefix))
  let profile: Profile
  try {
    profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  } catch (error) {
    console.error(`profile-summary: cannot read ${file}: ${(error as Error).message}`)
    process.exit(2)
  }
  summarize(profile, loads, top)
}

function summarize(profile: Profile, loads: Load[] | undefined, top: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id)
  const groupOf = memo((id: number) => group(byId.get(id)!.callFrame))
  // a native function is named with the nearest script function that called it
  const fnOf = memo((id: number): string => {
    const f = byId.get(id)!.callFrame
    const g = groupOf(id)
    if (g !== '(native)') return `${f.functionName || '(anonymous)'}  ${where(f)}`
    let caller = parent.get(id)
    while (caller !== undefined && groupOf(caller) === '(native)') caller = parent.get(caller)
    const from = caller === undefined || groupOf(caller).startsWith('(') ? '' : ` from ${fnOf(caller)}`
    return `${f.functionName || '(anonymous)'} (native)${from}`
  })

  // each sample lasts until the next one (the last: the mean)
  const { samples, timeDeltas } = profile
  const mean = (profile.endTime - profile.startTime) / Math.max(1, samples.length)
  const selfByGroup = new Map<string, number>()
  const totalByGroup = new Map<string, number>()
  const selfByFn = new Map<string, number>()
  let at = profile.startTime
  let busy = 0
  let idle = 0
  for (let i = 0; i < samples.length; i++) {
    at += timeDeltas[i]
    const ms = (i + 1 < samples.length ? timeDeltas[i + 1] : mean) / 1000
    if (loads && !loads.some((l) => at >= l.startUs && at < l.endUs)) continue
    const leaf = samples[i]
    const leafGroup = groupOf(leaf)
    if (leafGroup === '(idle)') {
      idle += ms
      continue
    }
    busy += ms
    add(selfByGroup, leafGroup, ms)
    add(selfByFn, fnOf(leaf), ms)
    const seen = new Set<string>()
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
      const g = groupOf(id)
      if (g === '(root)' || seen.has(g)) continue
      seen.add(g)
      add(totalByGroup, g, ms)
    }
  }

  const window = loads
    ? `${loads.length} measured load(s): ${[...new Set(loads.map((l) => `${l.name} × ${l.connections}`))].join(', ')}`
    : 'the whole profile'
  console.log(`${window}; busy ${busy.toFixed(0)} ms, idle ${idle.toFixed(0)} ms (${pct(busy, busy + idle)} busy)`)
  console.log('\nby package (self: in its own code; total: with it anywhere on the stack), % of busy time')
  const groups = [...totalByGroup.keys()].sort((a, b) => (totalByGroup.get(b) ?? 0) - (totalByGroup.get(a) ?? 0))
  const bySelf = [...groups].sort((a, b) => (selfByGroup.get(b) ?? 0) - (selfByGroup.get(a) ?? 0))
  const width = Math.min(60, Math.max(...groups.map((g) => g.length)))
  console.log(`${'package or file'.padEnd(width)}  ${'self ms'.padStart(8)}  self %  ${'total ms'.padStart(8)} total %`)
  for (const g of bySelf.slice(0, 40)) {
    const self = selfByGroup.get(g) ?? 0
    const total = totalByGroup.get(g) ?? 0
    if (self < busy * 0.002 && total < busy * 0.01) continue
    console.log(
      `${g.slice(0, width).padEnd(width)}  ${self.toFixed(0).padStart(8)}  ${pct(self, busy).padStart(6)}  ` +
        `${total.toFixed(0).padStart(8)}  ${pct(total, busy).padStart(6)}`,
    )
  }
  console.log(`\ntop ${top} functions by self time, % of busy time`)
  const fns = [...selfByFn.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)
  for (const [fn, ms] of fns) console.log(`${ms.toFixed(0).padStart(7)} ms ${pct(ms, busy).padStart(6)}  ${fn}`)
}

// ——— grouping ———

const bundleMarkers = new Map<string, { line: number; source: string }[]>()

function group(frame: CallFrame): string {
  const { url: u, functionName } = frame
  if (!u) {
    if (['(idle)', '(root)', '(program)', '(garbage collector)'].includes(functionName)) return functionName
    return '(native)'
  }
  if (u.startsWith('node:')) return 'node internals'
  const file = u.startsWith('file://') ? url.fileURLToPath(u) : u
  const modules = file.lastIndexOf('/node_modules/')
  if (modules >= 0) {
    const parts = file.slice(modules + '/node_modules/'.length).split('/')
    return `node_modules/${parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`
  }
  const relative = path.relative(root, file)
  if (relative === path.join('build', 'index.js')) return `app: ${bundleSource(file, frame.lineNumber)}`
  return relative.startsWith('..') ? file : relative
}

/** The source file a line of the esbuild bundle came from: the `// app/…` marker above it. */
function bundleSource(file: string, line: number) {
  let markers = bundleMarkers.get(file)
  if (!markers) {
    markers = []
    for (const [i, text] of readFileSync(file, 'utf8').split('\n').entries()) {
      const marker = /^\/\/ ((?:app|db|server)\/\S+|\S+\.(?:ts|tsx|js|jsx|mjs))$/.exec(text)
      if (marker) markers.push({ line: i, source: marker[1] })
    }
    bundleMarkers.set(file, markers)
  }
  let source = 'build/index.js'
  for (const m of markers) {
    if (m.line > line) break
    source = m.source
  }
  return source
}

function where(frame: CallFrame) {
  const g = group(frame)
  if (g.startsWith('(')) return g
  const file = frame.url.startsWith('file://') ? url.fileURLToPath(frame.url) : frame.url
  const short = file.includes('/node_modules/')
    ? file.slice(file.lastIndexOf('/node_modules/') + '/node_modules/'.length)
    : g.startsWith('app: ')
      ? g.slice(5)
      : path.relative(root, file) || file
  return `${short}:${frame.lineNumber + 1}`
}

// ——— helpers ———

function memo<T>(fn: (id: number) => T) {
  const cache = new Map<number, T>()
  return (id: number) => {
    let value = cache.get(id)
    if (value === undefined) cache.set(id, (value = fn(id)))
    return value
  }
}

const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms)
const pct = (part: number, whole: number) => `${whole ? ((100 * part) / whole).toFixed(1) : '0.0'}%`

main(process.argv.slice(2))

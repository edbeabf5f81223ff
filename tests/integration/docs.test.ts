import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import url from 'node:url'
import { describe, expect, it } from 'vitest'

// The repository's documentation stands on its own: no tracked file cites notes a clone does not have
// (a design or style file, a section of a specification, a folder beside the repository), and every
// relative link in the docs, and every `docs/product.md#…` a comment points to, leads somewhere real.
// .ci/ may name what CI needs to run; nothing else may. Code, tests and docs say what the product does,
// not which issue asked for it.

const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '../..')
const self = path
  .relative(root, url.fileURLToPath(import.meta.url))
  .split(path.sep)
  .join('/')

/** Ways of citing notes kept outside the repository. */
const OUTSIDE_NOTES = [
  /§/, // a section of a document the repository does not hold
  /\b(?:DESIGN|STYLE)\.md\b/,
  /portal-spec/,
  /design card/i,
  /\.\.\/shared\b/,
  /\b(?:the|product) spec\b/i,
  /\bspec['’]s\b/i,
]

/**
 * Ways of naming an issue or a pull request: "Issue 3's journey", "PR 12", "(#41)". Not a colour
 * (`#111;`), an HTML entity (`&#39;`) or a password (`Reliable#2026`).
 */
const ISSUE_NUMBERS = [/\b(?:issue|ticket|PR|pull request)s?\s+#?\d+/i, /(?:^|[\s([])#\d+(?=$|[\s).,:\]])/]

/** Where the product's own words live: code, tests, the database, the CLI, the server and the docs. */
const PRODUCT_FILES = /^(?:app|cli|db|docs|server|tests)\/|^README\.md$/

const tracked = () =>
  execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file !== '' && existsSync(path.join(root, file)))

/** A tracked file's text, or undefined for a binary file. */
function text(file: string): string | undefined {
  const bytes = readFileSync(path.join(root, file))
  return bytes.includes(0) ? undefined : bytes.toString('utf8')
}

/** `file:line: text` for every line of `files` that one of `patterns` finds. */
function linesMatching(files: { name: string; text: string }[], patterns: RegExp[]): string[] {
  const found: string[] = []
  for (const { name, text } of files)
    text.split('\n').forEach((line, index) => {
      if (patterns.some((pattern) => pattern.test(line))) found.push(`${name}:${index + 1}: ${line.trim()}`)
    })
  return found
}

/** `file:line: text` for every line of `files` that cites notes outside the repository. */
const citations = (files: { name: string; text: string }[]) => linesMatching(files, OUTSIDE_NOTES)

/** `file:line: text` for every line of `files` that names an issue or a pull request by its number. */
const issueNumbers = (files: { name: string; text: string }[]) => linesMatching(files, ISSUE_NUMBERS)

/** The tracked files outside .ci/ (other than this one) that `include` keeps, with their text. */
const trackedTexts = (include: (file: string) => boolean = () => true) =>
  tracked()
    .filter((file) => !file.startsWith('.ci/') && file !== self && include(file))
    .map((name) => ({ name, text: text(name) }))
    .filter((file): file is { name: string; text: string } => file.text !== undefined)

/** The anchors GitHub gives a Markdown file's headings. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const slug = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

/** Why a relative link from `from` to `target` leads nowhere, or undefined when it leads somewhere. */
function brokenLink(from: string, target: string): string | undefined {
  const [file, anchor] = target.split('#', 2)
  const resolved = file === '' ? from : path.posix.normalize(path.posix.join(path.posix.dirname(from), file))
  const full = path.join(root, resolved)
  if (resolved.startsWith('..') || !existsSync(full)) return `${from}: ${target} (no such file)`
  if (anchor && resolved.endsWith('.md') && statSync(full).isFile()) {
    if (!anchorsOf(readFileSync(full, 'utf8')).has(decodeURIComponent(anchor)))
      return `${from}: ${target} (no such heading)`
  }
  return undefined
}

/** The relative links of a Markdown text (not http(s), mailto or other schemes). */
function relativeLinks(markdown: string): string[] {
  const links: string[] = []
  for (const match of markdown.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1]
    if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push(target)
  }
  return links
}

describe('the documentation', () => {
  it('cites no notes outside the repository, in any tracked file outside .ci/', () => {
    const files = trackedTexts()
    expect(files.length).toBeGreaterThan(100)
    expect(citations(files)).toEqual([])
  })

  it('names no issue or pull request by number in the code, tests, database, CLI, server or docs', () => {
    const files = trackedTexts((file) => PRODUCT_FILES.test(file))
    expect(files.map(({ name }) => name)).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/product.md',
        'app/root.tsx',
        'cli/index.ts',
        'tests/e2e/journey.spec.ts',
      ]),
    )
    expect(issueNumbers(files)).toEqual([])
  })

  it('has relative links in README.md and docs/ that lead to a file, and to a heading when they name one', () => {
    const docs = tracked().filter((file) => file === 'README.md' || /^docs\/(decisions\/)?[^/]+\.md$/.test(file))
    expect(docs).toContain('docs/product.md')
    expect(docs).toContain('docs/decisions/README.md')
    const broken = docs.flatMap((file) =>
      relativeLinks(readFileSync(path.join(root, file), 'utf8')).flatMap((target) => brokenLink(file, target) ?? []),
    )
    expect(broken).toEqual([])
  })

  it('keeps README.md a door: under 200 lines, linking the pages that hold the rest', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8')
    expect(readme.trimEnd().split('\n').length).toBeLessThan(200)
    const linked = new Set(relativeLinks(readme).map((target) => target.split('#')[0]))
    for (const page of ['docs/product.md', 'docs/operations.md', 'docs/cli.md', 'docs/decisions/README.md', 'BENCH.md'])
      expect(linked, `README.md links ${page}`).toContain(page)
  })

  it('has a heading for every docs/product.md#… that a tracked file points to', () => {
    const anchors = anchorsOf(readFileSync(path.join(root, 'docs/product.md'), 'utf8'))
    const pointers = tracked()
      .filter((file) => file !== self)
      .flatMap((file) =>
        [...(text(file) ?? '').matchAll(/docs\/product\.md#([\w-]+)/g)].map((match) => ({ file, anchor: match[1] })),
      )
    expect(pointers.length).toBeGreaterThan(10)
    expect(pointers.filter(({ anchor }) => !anchors.has(anchor))).toEqual([])
  })

  it('reads citations, links and anchors as they are written', () => {
    // the cited names are put together here so that this file does not cite them itself
    const notes = ['DESIGN', 'md'].join('.')
    const folder = ['..', 'shared', 'notes'].join('/')
    expect(
      citations([
        { name: 'a.ts', text: '// as the spec says (§4)\n// fine' },
        { name: 'b.md', text: `see ${notes}\nsee ${folder}` },
        { name: 'c.ts', text: "// the product's rules\nconst spec = 1\n// tests/e2e/x.spec.ts" },
      ]),
    ).toEqual(['a.ts:1: // as the spec says (§4)', `b.md:1: see ${notes}`, `b.md:2: see ${folder}`])
    expect(
      issueNumbers([
        { name: 'd.ts', text: "// Issue 3's journey\n// fixed in PR 12 (#41)\n// see #7\n// the issue this solves" },
        { name: 'e.ts', text: "color: #111;\n'&#39;'\nconst PASSWORD = 'Reliable#2026'\n// 3 issues left" },
      ]),
    ).toEqual(["d.ts:1: // Issue 3's journey", 'd.ts:2: // fixed in PR 12 (#41)', 'd.ts:3: // see #7'])
    expect(relativeLinks('[a](docs/x.md#y) [b](https://example.com) [c](#here) [d](mailto:a@b.c)')).toEqual([
      'docs/x.md#y',
      '#here',
    ])
    expect([
      ...anchorsOf('# The /api\n## Sign-in and sessions\n```\n# not a heading\n```\n## Sign-in and sessions'),
    ]).toEqual(['the-api', 'sign-in-and-sessions', 'sign-in-and-sessions-1'])
  })
})

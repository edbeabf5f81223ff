import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import url from 'node:url'
import { promisify } from 'node:util'

// docs/cli.md shows, for every `portal` command, what `portal <command> --help` prints, in blocks between
// markers. `npm run docs:cli` (this file, run as a script) rewrites those blocks from the real help, and
// tests/integration/cli-docs.test.ts fails when one differs, so the page cannot drift from the code. The
// commands are found by walking the help itself: each "Commands:" list leads to the next level, so a
// command added to the CLI gets a block without anyone listing it here. The text around the blocks is
// written by hand and left alone.

const root = path.resolve(import.meta.dirname, '..')
export const CLI_DOCS = path.join(root, 'docs', 'cli.md')

export type CommandHelp = {
  /** the command as typed: `portal`, `portal jobs`, `portal jobs list` */
  command: string
  /** what `--help` prints for it */
  help: string
}

/**
 * What `portal <words> --help` prints. Its standard output is a pipe, as for a script, so commander wraps
 * the text at 80 columns whatever the terminal this runs from; colour is off.
 */
async function helpOf(words: string[]): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' }
  delete env.FORCE_COLOR
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(root, 'cli', 'bin.js'), ...words, '--help'],
    {
      cwd: root,
      env,
      timeout: 120_000,
    },
  )
  return stdout
}

/** The subcommands a help text lists under "Commands:", without commander's own `help`. */
export function subcommandsOf(help: string): string[] {
  const names: string[] = []
  let listing = false
  for (const line of help.split('\n')) {
    if (/^\S/.test(line)) listing = line === 'Commands:'
    // a command's line starts two spaces in; its wrapped description continues further in
    else if (listing && /^ {2}\S/.test(line)) names.push(line.trim().split(/[\s|]/)[0])
  }
  return names.filter((name) => name !== 'help')
}

/** At most `limit` of the calls made through the returned function run at once. */
function limited(limit: number) {
  let running = 0
  const waiting: (() => void)[] = []
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve))
    running++
    try {
      return await work()
    } finally {
      running--
      waiting.shift()?.()
    }
  }
}

/** Every command's help: the root's first, then each command followed by its subcommands, as the help lists them. */
export async function cliHelp(): Promise<CommandHelp[]> {
  // each call starts a Node process that loads the command's services: one per core at a time
  const run = limited(Math.max(1, os.availableParallelism()))
  const visit = async (words: string[]): Promise<CommandHelp[]> => {
    const help = await run(() => helpOf(words))
    const below = await Promise.all(subcommandsOf(help).map((name) => visit([...words, name])))
    return [{ command: ['portal', ...words].join(' '), help }, ...below.flat()]
  }
  return visit([])
}

const BLOCK = /<!-- (portal(?: [\w-]+)*) --help[^>]*-->\n([\s\S]*?)\n<!-- end of \1 --help -->\n?/g

/** A command's block as docs/cli.md holds it: the help in a fence, between markers naming the command. */
export function helpBlock({ command, help }: CommandHelp): string {
  return [
    `<!-- ${command} --help: written by npm run docs:cli, do not edit -->`,
    '```text',
    help.trimEnd(),
    '```',
    `<!-- end of ${command} --help -->`,
    '',
  ].join('\n')
}

export type CliDocsUpdate = {
  markdown: string
  /** commands whose block was missing: added at the end of the page, under a heading of their own */
  added: string[]
  /** commands whose block no longer matched their help */
  changed: string[]
  /** blocks of commands the CLI no longer has */
  removed: string[]
}

/** `markdown` with every command's block as its help is now; what was added, changed and removed. */
export function updateCliDocs(markdown: string, helps: CommandHelp[]): CliDocsUpdate {
  const byCommand = new Map(helps.map((entry) => [entry.command, entry]))
  const seen = new Set<string>()
  const changed: string[] = []
  const removed: string[] = []
  let updated = markdown.replace(BLOCK, (block, command: string) => {
    const entry = byCommand.get(command)
    if (!entry || seen.has(command)) {
      removed.push(command)
      return ''
    }
    seen.add(command)
    const fresh = helpBlock(entry)
    if (block.replace(/\n?$/, '\n') !== fresh) changed.push(command)
    return fresh
  })
  const added = helps.filter(({ command }) => !seen.has(command))
  for (const entry of added) updated = `${updated.trimEnd()}\n\n### \`${entry.command}\`\n\n${helpBlock(entry)}`
  return { markdown: updated, added: added.map(({ command }) => command), changed, removed }
}

/** `npm run docs:cli`: rewrite docs/cli.md's blocks from the CLI's help, and say what changed. */
async function main() {
  const update = updateCliDocs(await readFile(CLI_DOCS, 'utf8'), await cliHelp())
  await writeFile(CLI_DOCS, update.markdown)
  const file = path.relative(root, CLI_DOCS)
  if (!update.added.length && !update.changed.length && !update.removed.length)
    return console.error(`${file} matches the help of every command.`)
  for (const command of update.changed) console.error(`${file}: rewrote the block of ${command}.`)
  for (const command of update.added)
    console.error(`${file}: added a section for ${command} at the end; move it where it belongs and describe it.`)
  for (const command of update.removed)
    console.error(`${file}: removed the block of ${command}, which the CLI no longer has; remove the text around it.`)
}

if (process.argv[1] && path.resolve(process.argv[1]) === url.fileURLToPath(import.meta.url)) await main()

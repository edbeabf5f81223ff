import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import url from 'node:url'
import type { Command } from 'commander'
import { portalProgram } from '#cli/program.ts'

// docs/cli.md shows, for every `portal` command, what `portal <command> --help` prints, in blocks between
// markers. `npm run docs:cli` (this file, run as a script) rewrites those blocks from the real help, and
// tests/integration/cli-docs.test.ts fails when one differs, so the page cannot drift from the code. The
// commands are found by walking the program the CLI builds, so a command added to the CLI gets a block
// without anyone listing it here. The text around the blocks is written by hand and left alone.

const root = path.resolve(import.meta.dirname, '..')
export const CLI_DOCS = path.join(root, 'docs', 'cli.md')

export type CommandHelp = {
  /** the command as typed: `portal`, `portal jobs`, `portal jobs list` */
  command: string
  /** what `--help` prints for it */
  help: string
}

/**
 * Every command's help, as `portal <command> --help` prints it to a pipe (80 columns, no colour): the
 * root's first, then each command followed by its subcommands. The program is built in this process, with
 * every command registered as the CLI registers them for `portal --help`, and walked.
 */
export async function cliHelp(): Promise<CommandHelp[]> {
  const program = await portalProgram()
  const visit = (command: Command, words: string[]): CommandHelp[] => {
    // as to a pipe, whatever this runs from: commander's 80 columns, no colour
    command.configureOutput({ getOutHelpWidth: () => 80, getOutHasColors: () => false })
    return [
      { command: ['portal', ...words].join(' '), help: command.helpInformation() },
      ...command.commands.flatMap((sub) => visit(sub, [...words, sub.name()])),
    ]
  }
  return visit(program, [])
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

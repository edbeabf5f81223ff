import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { CLI_DOCS, cliHelp, helpBlock, updateCliDocs, type CommandHelp } from '#tests/cli-docs.ts'
import { portal } from '#tests/cli.ts'

// docs/cli.md holds what `portal … --help` prints for every command the CLI has, found by walking the
// help itself; a command, an option or a description changed in the code and not in the page fails here.

describe('docs/cli.md', () => {
  it('shows the --help of every portal command as the CLI prints it', { timeout: 300_000 }, async () => {
    const helps = await cliHelp()
    const commands = helps.map(({ command }) => command)
    // the walk reached the root, the commands it lists and their subcommands
    expect(commands[0]).toBe('portal')
    expect(commands).toEqual(
      expect.arrayContaining(['portal serve', 'portal worker', 'portal db migrate', 'portal exports schedule add']),
    )
    expect(new Set(commands).size).toBe(commands.length)
    for (const { command, help } of helps) expect(help).toMatch(new RegExp(`^Usage: ${command} `))

    // the help is read from the program built here: it is what the command prints, to the character
    for (const words of [[], ['jobs', 'list'], ['exports', 'schedule', 'add']]) {
      const printed = await portal([...words, '--help'], { NO_COLOR: '1' })
      expect(printed.code).toBe(0)
      expect(helps.find((entry) => entry.command === ['portal', ...words].join(' '))?.help).toBe(printed.stdout)
    }

    const { added, changed, removed } = updateCliDocs(await readFile(CLI_DOCS, 'utf8'), helps)
    expect(
      { added, changed, removed },
      'docs/cli.md does not match `portal --help`: run `npm run docs:cli`, then describe what changed around the blocks',
    ).toEqual({ added: [], changed: [], removed: [] })
  })
})

describe('the check of docs/cli.md', () => {
  const root: CommandHelp = {
    command: 'portal',
    help: [
      'Usage: portal [options] [command]',
      '',
      'Options:',
      '  -h, --help      display help for command',
      '',
      'Commands:',
      '  greet [options]  say hello to someone, at length, so that the',
      '                   description wraps',
      '  help [command]   display help for command',
      '',
    ].join('\n'),
  }
  const greet: CommandHelp = {
    command: 'portal greet',
    help: 'Usage: portal greet [options]\n\nOptions:\n  --name <name>  who to greet\n',
  }

  it('keeps the text around the blocks, and finds a block that is stale, missing or left over', () => {
    const page = `# CLI\n\nBy hand.\n\n${helpBlock(root)}\nMore by hand.\n\n${helpBlock(greet)}`
    expect(updateCliDocs(page, [root, greet])).toEqual({ markdown: page, added: [], changed: [], removed: [] })

    // an option's description changed in the code
    const renamed = { ...greet, help: greet.help.replace('who to greet', 'the person to greet') }
    const stale = updateCliDocs(page, [root, renamed])
    expect(stale).toMatchObject({ added: [], changed: ['portal greet'], removed: [] })
    expect(stale.markdown).toContain('--name <name>  the person to greet')
    expect(stale.markdown).toContain('More by hand.')

    // a new command, and a command that is gone
    const wave = { command: 'portal wave', help: 'Usage: portal wave [options]\n' }
    const moved = updateCliDocs(page, [root, wave])
    expect(moved).toMatchObject({ added: ['portal wave'], changed: [], removed: ['portal greet'] })
    expect(moved.markdown).not.toContain('Usage: portal greet')
    expect(moved.markdown).toMatch(/### `portal wave`\n\n<!-- portal wave --help[^\n]*\n```text\nUsage: portal wave/)
  })
})

import { spawn } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
import { portal } from '#tests/cli.ts'
import { assignCourse, makeCourse, makeLearner, recordWatched } from '#tests/factories.ts'

// The progress bar of long commands: drawn on standard error when it is a terminal, never on a pipe, and
// never on standard output, which carries the data. `script` (util-linux) gives the command a real
// pseudo-terminal; standard output is sent to a file inside it, so only standard error reaches the terminal.

const root = path.resolve(import.meta.dirname, '..', '..')
const SLOW = { timeout: 180_000 }
const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`

/** `portal …` with standard error on a terminal and standard output in `stdoutFile`: what the terminal showed. */
async function onTerminal(args: string[], stdoutFile: string) {
  const command = [process.execPath, path.join(root, 'cli', 'bin.js'), ...args].map(quote).join(' ')
  const child = spawn('script', ['-qfec', `${command} > ${quote(stdoutFile)}`, '/dev/null'], {
    cwd: root,
    env: { ...process.env, TERM: 'dumb' },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  let terminal = ''
  child.stdout.on('data', (data: Buffer) => (terminal += data.toString()))
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  return { code, terminal }
}

const workFolder = () => mkdtemp(path.join(os.tmpdir(), 'portal-cli-progress-'))

describe('portal export access-log', () => {
  it('draws rows and rows/s on a terminal, while standard output holds the CSV alone', SLOW, async () => {
    const course = await makeCourse({ title: `Progress ${Date.now()}`, videos: [{ title: 'Intro', duration: 60 }] })
    for (let i = 0; i < 3; i++) {
      const learner = await makeLearner()
      await assignCourse(learner.id, course.id)
      await recordWatched(learner.id, course.id, course.videos[0], 30)
    }
    const args = ['export', 'access-log', '--course', course.id, '--out', '-']
    const out = path.join(await workFolder(), 'out.csv')

    const shown = await onTerminal(args, out)
    expect(shown.code).toBe(0)
    expect(shown.terminal).toMatch(/3\/3 rows \| \d+ rows\/s/)
    const data = await readFile(out, 'utf8')
    expect(parse(data, { columns: true })).toHaveLength(3)
    expect(data).not.toMatch(/rows\/s|\x1b/)

    // on a pipe: the same data, and nothing at all on standard error
    const piped = await portal(args)
    expect(piped).toMatchObject({ code: 0, stderr: '', stdout: data })
  })
})

describe('portal users import', () => {
  it('draws rows and rows/s on a terminal, and only its summary without one', SLOW, async () => {
    const dir = await workFolder()
    const file = path.join(dir, 'people.csv')
    const stamp = Date.now()
    const rows = Array.from({ length: 50 }, (_, i) => `Patricia,Rowe,pat${i}.${stamp}@example.com,pat${i}x${stamp}`)
    await writeFile(file, ['firstName,lastName,email,userName', ...rows].join('\n'))
    const out = path.join(dir, 'out.txt')

    const shown = await onTerminal(['users', 'import', file], out)
    expect(shown.code).toBe(0)
    expect(shown.terminal).toMatch(/Importing .*\| \d+ rows \| \d+ rows\/s/)
    expect(shown.terminal).toContain('50 rows read from')
    expect(await readFile(out, 'utf8')).toBe('')

    // the same file again, on pipes: every row skipped, the summary line and no bar
    const piped = await portal(['users', 'import', file])
    expect(piped).toMatchObject({ code: 0, stdout: '' })
    expect(piped.stderr).toBe(`50 rows read from ${file}: 0 created, 0 updated, 50 skipped, 0 failed; 0 assignments.\n`)
  })
})

import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
import { ROLE } from '#app/modules/auth/roles.ts'
import { login } from '#app/modules/auth/service.server.ts'
import { getCourseContents, listAssignedCourses } from '#app/modules/courses/learner.server.ts'
import { DUE_DATE_MESSAGE } from '#app/modules/deadlines/due.ts'
import { PLAN_MESSAGE } from '#app/modules/deadlines/plan.ts'
import { sequelize } from '#db/client.ts'
import { portal } from '#tests/cli.ts'
import { makeCourse, makeLearner, makeProgram, recordWatched } from '#tests/factories.ts'

// `portal assign …`, `portal unassign …`, `portal --version` and `users create --password-stdin` in a
// child process, on this test file's database (DATABASE_URL).

// each command is a child process starting Node and tsx: a test of several needs more than the default time
const SLOW = { timeout: 180_000 }

async function tempFile(name: string, content: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-cli-assign-'))
  const file = path.join(dir, name)
  await writeFile(file, content)
  return file
}

const titles = async (learner: Awaited<ReturnType<typeof makeLearner>>) =>
  (await listAssignedCourses(learner)).map((c) => c.title)

/** What `assign import --json` prints: by default, of a file with no rows, written; `changes` says what differs. */
const importSummary = (changes: Record<string, unknown>) => ({
  rows: 0,
  assigned: 0,
  already: 0,
  updated: 0,
  duplicates: 0,
  failed: 0,
  dryRun: false,
  atomic: false,
  committed: true,
  stopped: null,
  errorFile: null,
  ...changes,
})

describe('portal assign import', () => {
  it(
    'imports with exit 0 and a JSON summary, exits 1 with an error file for bad rows, 2 for a bad file',
    SLOW,
    async () => {
      const [ana, bo] = [await makeLearner(), await makeLearner()]
      await makeCourse({ title: 'CLI import' })
      const good = await tempFile('good.csv', `\ufeffemail;course\r\n${ana.email};CLI import\r\n`)
      const first = await portal(['assign', 'import', good, '--json'])
      expect(first.code).toBe(0)
      expect(JSON.parse(first.stdout)).toEqual(importSummary({ rows: 1, assigned: 1 }))
      expect(await titles(ana)).toEqual(['CLI import'])

      const mixed = await tempFile('mixed.csv', `user,course\n${bo.userName},CLI import\nghost,CLI import\n`)
      const dry = await portal(['assign', 'import', mixed, '--dry-run'])
      expect(dry).toMatchObject({ code: 1, stdout: '' })
      expect(dry.stderr).toContain('line 3: user: No user with the email or username "ghost".')
      expect(dry.stderr).toContain('Dry run, nothing written: 2 rows: 1 assigned')
      expect(await titles(bo)).toEqual([])

      const errors = path.join(path.dirname(mixed), 'errors.csv')
      const atomic = await portal(['assign', 'import', mixed, '--atomic', '--errors', errors, '--json'])
      expect(atomic.code).toBe(1)
      expect(JSON.parse(atomic.stdout)).toMatchObject({ assigned: 1, failed: 1, committed: false, errorFile: errors })
      expect(await titles(bo)).toEqual([])
      expect(parse(await readFile(errors, 'utf8'))).toEqual([
        ['row', 'field', 'message', 'user', 'course'],
        ['3', 'user', 'No user with the email or username "ghost".', 'ghost', 'CLI import'],
      ])

      const partial = await portal(['assign', 'import', mixed])
      expect(partial.code).toBe(1)
      expect(partial.stderr).toContain('Imported 2 rows: 1 assigned, 0 already assigned, 0 repeated rows, 1 failed.')
      expect(await titles(bo)).toEqual(['CLI import'])

      const missing = await portal(['assign', 'import', path.join(path.dirname(mixed), 'nope.csv')])
      expect(missing.code).toBe(2)
      expect(missing.stderr).toMatch(/^portal: cannot read .*nope\.csv/)
      const header = await portal(['assign', 'import', await tempFile('bad.csv', 'mail,kurs\na,b\n')])
      expect(header).toMatchObject({ code: 2, stdout: '' })
      expect(header.stderr).toContain('portal: Line 1: unknown column "mail".')
      const broken = await portal(['assign', 'import', await tempFile('q.csv', `user,course\n${ana.email},"CLI\n`)])
      expect(broken).toMatchObject({ code: 1, stdout: '' })
      expect(broken.stderr).toContain('portal: The file cannot be read past line 1: a quoted value starts on line 2 ')
      const unreadable = await portal(['assign', 'import', await tempFile('h.csv', `"user,course\n${ana.email},CLI\n`)])
      expect(unreadable).toMatchObject({ code: 2, stdout: '' })
      expect(unreadable.stderr).toContain('portal: The file cannot be read: a quoted value starts on line 1 ')
      const delimiter = await portal(['assign', 'import', good, '--delimiter', 'tab'])
      expect(delimiter).toMatchObject({ code: 2 })
      expect(delimiter.stderr).toContain('--delimiter must be , or ;')
    },
  )
})

describe('portal assign import, a file that breaks off', () => {
  /** `count` learners made in one statement (the factory hashes a password for each). */
  async function learners(count: number) {
    const t = randomBytes(3).toString('hex')
    await (
      await sequelize()
    ).query(
      `INSERT INTO users (first_name, last_name, user_name, email, role_id)
       SELECT 'Bulk', 'Learner', 'bulk' || i || 'x' || $1, 'bulk' || i || 'x' || $1 || '@example.com', $2
       FROM generate_series(1, $3::int) AS i`,
      { bind: [t, ROLE.learner, count] },
    )
    return Array.from({ length: count }, (_, i) => `bulk${i + 1}x${t}@example.com`)
  }

  const assignedTo = async (courseId: string) => {
    const [[row]] = (await (
      await sequelize()
    ).query('SELECT count(*)::int AS n FROM course_assignments WHERE course_id = :courseId', {
      replacements: { courseId },
    })) as [{ n: number }[], unknown]
    return row.n
  }

  it(
    'names the broken line past the last full batch, reports what was written before it, and exits 1',
    SLOW,
    async () => {
      const emails = await learners(2500)
      const course = await makeCourse()
      // 2,500 rows (two full batches and half of one), then a quote never closed on line 2502
      const lines = ['user,course', ...emails.map((email) => `${email},${course.id}`)]
      lines.push(`${emails[0]},"${course.id}`, `${emails[1]},${course.id}`)
      const file = await tempFile('cohort.csv', lines.join('\n') + '\n')
      const errors = path.join(path.dirname(file), 'errors.csv')
      const message =
        'The file cannot be read past line 2501: a quoted value starts on line 2502 and is never closed (the file may be cut off).'

      const atomic = await portal(['assign', 'import', file, '--atomic', '--json'])
      expect(atomic.code).toBe(1)
      expect(JSON.parse(atomic.stdout)).toEqual(
        importSummary({
          rows: 2500,
          assigned: 2500,
          atomic: true,
          committed: false,
          stopped: { line: 2502, message: `${message} Nothing was imported.` },
        }),
      )
      expect(await assignedTo(course.id)).toBe(0)

      const partial = await portal(['assign', 'import', file, '--errors', errors])
      expect(partial).toMatchObject({ code: 1, stdout: '' })
      expect(partial.stderr).toContain(
        'Imported 2500 rows: 2500 assigned, 0 already assigned, 0 repeated rows, 0 failed.',
      )
      expect(partial.stderr).toContain(
        `portal: ${message} The 2500 rows before it were handled as reported; nothing from line 2502 on was imported.`,
      )
      expect(await assignedTo(course.id)).toBe(2500)
      expect(parse(await readFile(errors, 'utf8'), { relax_column_count: true })).toEqual([
        ['row', 'field', 'message', 'user', 'course'],
        ['2502', '', expect.stringContaining(message)],
      ])

      // fixed, the same file runs again and assigns nothing twice
      lines[2501] = `${emails[0]},${course.id}`
      const fixed = await tempFile('fixed.csv', lines.join('\n') + '\n')
      const again = await portal(['assign', 'import', fixed, '--json'])
      expect(again.code).toBe(0)
      expect(JSON.parse(again.stdout)).toMatchObject({
        rows: 2502,
        assigned: 0,
        already: 2500,
        duplicates: 2,
        stopped: null,
      })
    },
  )
})

describe('portal assign course|program', () => {
  it('assigns to the learners of a list or a CSV, and a program to every learner', SLOW, async () => {
    const [ana, bo, cy] = [await makeLearner(), await makeLearner(), await makeLearner()]
    await makeCourse({ title: 'Listed' })
    const list = await tempFile('users.txt', `${ana.email}\n\n${bo.userName}\nghost@example.com\n`)
    const fromList = await portal(['assign', 'course', '--course', 'listed', '--users-from', list, '--json'])
    expect(fromList.code).toBe(1)
    expect(JSON.parse(fromList.stdout)).toMatchObject({
      action: 'assign',
      users: 3,
      assigned: 2,
      already: 0,
      failed: 1,
    })
    expect([await titles(ana), await titles(bo), await titles(cy)]).toEqual([['Listed'], ['Listed'], []])

    const csv = await tempFile('users.csv', `First Name,Email,Role\nCy,${cy.email},learner\nAna,${ana.email},learner\n`)
    const fromCsv = await portal(['assign', 'course', '--course', 'Listed', '--users-from', csv])
    expect(fromCsv).toMatchObject({ code: 0, stdout: '' })
    expect(fromCsv.stderr).toBe('Assigned "Listed" to 1 learner (1 had it already).\n')
    expect(await titles(cy)).toEqual(['Listed'])

    const course = await makeCourse({ title: 'In program' })
    const program = await makeProgram([course.id])
    const dry = await portal(['assign', 'program', '--program', program.id, '--all-learners', '--dry-run', '--json'])
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, failed: 0, already: 0 })
    expect(await titles(ana)).toEqual(['Listed'])
    const all = await portal(['assign', 'program', '--program', program.id, '--all-learners', '--json'])
    expect(all.code).toBe(0)
    const summary = JSON.parse(all.stdout)
    expect(summary).toMatchObject({ action: 'assign', program: { id: program.id }, already: 0 })
    expect(summary.assigned).toBe(summary.users)
    expect(summary.assigned).toBeGreaterThanOrEqual(3)
    expect(await titles(bo)).toEqual(['In program', 'Listed'])

    const usage = await portal(['assign', 'course', '--course', 'Listed', '--user', ana.email, '--all-learners'])
    expect(usage).toMatchObject({ code: 2 })
    expect(usage.stderr).toContain('pass one of --user, --users-from or --all-learners.')
  })
})

describe('portal assign course|program --due', () => {
  const dueOf = async (userId: string, courseId: string) => {
    const [row] = await (
      await sequelize()
    ).query<{ due_date: string | null; due_at: Date | null; reminder_plan: unknown }>(
      `SELECT to_char(due_date, 'YYYY-MM-DD') AS due_date, due_at, reminder_plan FROM course_assignments
        WHERE user_id = :userId AND course_id = :courseId`,
      { replacements: { userId, courseId }, type: 'SELECT' as never },
    )
    return row && { date: row.due_date, at: row.due_at && new Date(row.due_at).toISOString(), plan: row.reminder_plan }
  }

  it('sets, changes and removes due dates and plans; a bad date or plan exits 2 before writing', SLOW, async () => {
    const [ana, bo] = [await makeLearner(), await makeLearner()]
    await (
      await sequelize()
    ).query(`UPDATE users SET time_zone = 'Europe/Berlin' WHERE id = :id`, {
      replacements: { id: bo.id },
    })
    const course = await makeCourse({ title: `Due ${randomBytes(3).toString('hex')}` })

    const bad = await portal(['assign', 'course', '--course', course.id, '--user', ana.email, '--due', '12/05/2026'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain(DUE_DATE_MESSAGE)
    const badPlan = await portal([
      'assign',
      'course',
      '--course',
      course.id,
      '--user',
      ana.email,
      '--remind-before',
      '7,x',
    ])
    expect(badPlan.code).toBe(2)
    expect(badPlan.stderr).toContain(PLAN_MESSAGE)
    expect(await dueOf(ana.id, course.id)).toBeUndefined()

    // one learner: the one-at-a-time service
    const one = await portal([
      'assign',
      'course',
      '--course',
      course.id,
      '--user',
      ana.email,
      '--due',
      '15 Dec 2026',
      '--json',
    ])
    expect(one.code).toBe(0)
    expect(JSON.parse(one.stdout)).toMatchObject({ assigned: 1, updated: 0 })
    expect(await dueOf(ana.id, course.id)).toEqual({ date: '2026-12-15', at: null, plan: null })

    // many: a local time in each learner's zone, the assigned one changed too, a plan on one side only
    const list = await tempFile('due.txt', `${ana.email}\n${bo.email}\n`)
    const many = await portal([
      ...['assign', 'course', '--course', course.id, '--users-from', list],
      ...['--due', '2026-12-15 17:00', '--remind-before', '3', '--json'],
    ])
    expect(many.code).toBe(0)
    expect(JSON.parse(many.stdout)).toMatchObject({ users: 2, assigned: 1, already: 1, updated: 1 })
    const plan = { before: [3], after: [1, 3, 7] }
    expect(await dueOf(ana.id, course.id)).toEqual({ date: null, at: '2026-12-15T17:00:00.000Z', plan })
    expect(await dueOf(bo.id, course.id)).toEqual({ date: null, at: '2026-12-15T16:00:00.000Z', plan })

    const dry = await portal([
      ...['assign', 'course', '--course', course.id, '--all-learners', '--due', 'none', '--dry-run'],
    ])
    expect(dry.code).toBe(0)
    expect(dry.stderr).toContain('given the new due date or reminders')
    expect((await dueOf(bo.id, course.id))?.at).toBe('2026-12-15T16:00:00.000Z')

    const none = await portal([
      ...['assign', 'course', '--course', course.id, '--users-from', list, '--due', 'none', '--no-reminders'],
    ])
    expect(none.code).toBe(0)
    expect(none.stderr).toBe(
      `Assigned "${course.title}" to 0 learners (2 had it already, 2 of them given the new due date or reminders).\n`,
    )
    expect(await dueOf(bo.id, course.id)).toEqual({ date: null, at: null, plan: { before: [], after: [] } })
  })

  it('assign import reads a dueDate column and reports a bad date by its line', SLOW, async () => {
    const [ana, bo] = [await makeLearner(), await makeLearner()]
    const course = await makeCourse({ title: `Imported due ${randomBytes(3).toString('hex')}` })
    const csv = await tempFile(
      'due.csv',
      `user,course,due date\n${ana.email},${course.id},2026-12-15\n${bo.email},${course.id},31.02.2026\n`,
    )
    const result = await portal(['assign', 'import', csv, '--atomic'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`line 3: due date: ${DUE_DATE_MESSAGE}`)
    expect(await dueOf(ana.id, course.id)).toBeUndefined()
  })
})

describe('portal unassign', () => {
  it(
    'takes the course off My Courses and out of reach, keeps the progress, and shows it again when reassigned',
    SLOW,
    async () => {
      const learner = await makeLearner()
      const course = await makeCourse({ title: 'Taken away', videos: [{ duration: 100 }, { duration: 100 }] })
      await portal(['assign', 'course', '--user', learner.userName, '--course', course.id])
      await recordWatched(learner.id, course.id, course.videos[0], 100)
      expect((await listAssignedCourses(learner)).map((c) => [c.title, c.percent])).toEqual([['Taken away', 50]])

      const removed = await portal(['unassign', 'course', '--course', 'Taken away', '--user', learner.email, '--json'])
      expect(removed.code).toBe(0)
      expect(JSON.parse(removed.stdout)).toMatchObject({ action: 'unassign', users: 1, removed: 1, notAssigned: 0 })
      expect(await listAssignedCourses(learner)).toEqual([])
      await expect(getCourseContents(learner, course.id)).rejects.toMatchObject({ status: 403 })

      const again = await portal(['unassign', 'course', '--course', 'Taken away', '--user', learner.email])
      expect(again).toMatchObject({ code: 0 })
      expect(again.stderr).toContain('from 0 learners (1 did not have it); progress is kept.')

      await portal(['assign', 'course', '--user', learner.userName, '--course', course.id])
      expect((await listAssignedCourses(learner)).map((c) => [c.title, c.percent])).toEqual([['Taken away', 50]])
      expect((await getCourseContents(learner, course.id)).videos.map((v) => v.completed)).toEqual([true, false])
    },
  )

  it(
    'unassigning a program takes away the courses that came with it, not those assigned on their own',
    SLOW,
    async () => {
      const learner = await makeLearner()
      const [own, shared] = [await makeCourse({ title: 'Own' }), await makeCourse({ title: 'Via program' })]
      const program = await makeProgram([own.id, shared.id])
      await portal(['assign', 'course', '--user', learner.email, '--course', own.id])
      await portal(['assign', 'program', '--user', learner.email, '--program', program.id])
      expect(await titles(learner)).toEqual(['Own', 'Via program'])
      const list = await tempFile('one.txt', `${learner.userName}\n`)
      const removed = await portal(['unassign', 'program', '--program', program.id, '--users-from', list, '--json'])
      expect(JSON.parse(removed.stdout)).toMatchObject({ removed: 1, failed: 0 })
      expect(await titles(learner)).toEqual(['Own'])
    },
  )
})

describe('portal --version and users create --password-stdin', () => {
  it('prints the package version', SLOW, async () => {
    const { version } = JSON.parse(await readFile(path.resolve(import.meta.dirname, '../../package.json'), 'utf8'))
    expect(await portal(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` })
  })

  it('reads the password from a pipe, and warns when it is on the command line', SLOW, async () => {
    const args = (name: string) => [
      'users',
      'create',
      '--role',
      'learner',
      '--email',
      `${name}@example.com`,
      '--first-name',
      'Piped',
      '--last-name',
      'Password',
      '--username',
      name,
    ]
    const piped = await portal([...args('piped'), '--password-stdin'], {}, { input: 'Through-a-pipe-1!\r\n' })
    expect(piped).toMatchObject({ code: 0, stderr: '' })
    expect((await login({ email: 'piped', password: 'Through-a-pipe-1!' })).user.userName).toBe('piped')

    const empty = await portal([...args('empty'), '--password-stdin'], {}, { input: '' })
    expect(empty).toMatchObject({ code: 2 })
    expect(empty.stderr).toContain('standard input holds no password')
    const both = await portal([...args('both'), '--password-stdin', '--password', 'x'], {}, { input: 'y\n' })
    expect(both).toMatchObject({ code: 2 })
    expect(both.stderr).toContain('pass either --password or --password-stdin, not both.')

    const argv = await portal([...args('argv'), '--password', 'On-the-line-1!'])
    expect(argv.code).toBe(0)
    expect(argv.stderr).toMatch(/^portal: warning: .*--password.*\(ps, shell history\); use --password-stdin/)
    expect((await login({ email: 'argv', password: 'On-the-line-1!' })).user.userName).toBe('argv')
  })

  it('refuses --password-stdin on a terminal and points to the prompt', SLOW, async () => {
    // `script` (util-linux) gives the CLI a real pseudo-terminal as standard input
    const root = path.resolve(import.meta.dirname, '..', '..')
    const child = spawn(
      'script',
      ['-qfec', `${process.execPath} cli/bin.js users create --role learner --password-stdin`, '/dev/null'],
      { cwd: root, env: { ...process.env, TERM: 'dumb' } },
    )
    let output = ''
    child.stdout.on('data', (data: Buffer) => (output += data.toString()))
    const code = await new Promise((resolve) => child.on('exit', resolve))
    expect(code).toBe(2)
    expect(output).toContain('--password-stdin reads a pipe')
    expect(output).toContain('on a terminal leave it out to be asked for the password')
  })
})

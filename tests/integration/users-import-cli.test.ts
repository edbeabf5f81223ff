import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parse } from 'csv-parse/sync'
import { Op } from 'sequelize'
import { describe, expect, it } from 'vitest'
import { ROLE } from '#app/modules/auth/roles.ts'
import { db } from '#db/client.ts'
import { portal } from '#tests/cli.ts'
import { makeCourse, makeProgram } from '#tests/factories.ts'

// `portal users import` and `portal users list` in a child process, on this test file's database.

// each command is a child process starting Node and tsx: a test of several needs more than the default time
const SLOW = { timeout: 180_000 }
const PASSWORD = 'Cobol-1959!'
const tag = () => randomBytes(3).toString('hex')

async function csvFile(text: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-cli-import-'))
  const file = path.join(dir, 'people.csv')
  await writeFile(file, text)
  return { dir, file }
}

async function account(email: string) {
  const { User } = await db()
  return User.findOne({ where: { email } })
}

describe('portal users import', () => {
  it('imports the good rows, exits 1 for the bad one, and writes the error CSV without passwords', SLOW, async () => {
    const t = tag()
    const { dir, file } = await csvFile(
      [
        'firstName,lastName,email,userName,password',
        `Alice,Ames,alice${t}@example.com,alice${t},${PASSWORD}`,
        `Bobby,Burns,bobby${t}@example.com,bobby${t},`,
        `Carol,Cole,not-an-email,carol${t},Hidden-Secret-9`,
      ].join('\r\n'),
    )
    const errors = path.join(dir, 'errors.csv')
    const result = await portal(['users', 'import', file, '--errors', errors, '--json'])
    expect(result.code).toBe(1)
    expect(JSON.parse(result.stdout)).toMatchObject({
      committed: true,
      rows: 3,
      created: 2,
      updated: 0,
      skipped: 0,
      assigned: 0,
      failed: 1,
      stopped: null,
      errors: [{ row: 4, field: 'email', message: 'Email is invalid.' }],
      errorsFile: errors,
    })
    expect(await account(`alice${t}@example.com`)).not.toBeNull()
    expect((await account(`bobby${t}@example.com`))?.passwordHash).toBeNull()
    const report = await readFile(errors, 'utf8')
    expect(parse(report, { columns: true })).toEqual([
      {
        row: '4',
        field: 'email',
        message: 'Email is invalid.',
        firstName: 'Carol',
        lastName: 'Cole',
        email: 'not-an-email',
        userName: `carol${t}`,
      },
    ])
    for (const text of [result.stdout, result.stderr, report]) {
      expect(text).not.toContain(PASSWORD)
      expect(text).not.toContain('Hidden-Secret-9')
    }
    // written beside its target and renamed: no temporary file is left
    expect((await readdir(dir)).sort()).toEqual(['errors.csv', 'people.csv'])
  })

  it(
    'reports a row with more or fewer values than the header by its line, and echoes none of its values',
    SLOW,
    async () => {
      const t = tag()
      // an unquoted comma splits the first password in two; the second row lost its last name, so its
      // password sits under "userName"; read by position, each password would land in a column shown
      const [split, shifted] = ['Se,cret-9Xy!', `Shift-${t}-Pass1!`]
      const { dir, file } = await csvFile(
        [
          'firstName,lastName,email,userName,password,role',
          `Alice,Ames,alice${t}@example.com,alice${t},${split},learner`,
          `Bobby,bobby${t}@example.com,bobby${t},${shifted},learner`,
          `Carla,Cole,carla${t}@example.com,carla${t},${PASSWORD},learner`,
        ].join('\n'),
      )
      const errors = path.join(dir, 'errors.csv')
      const result = await portal(['users', 'import', file, '--errors', errors, '--json'])
      expect(result.code).toBe(1)
      expect(JSON.parse(result.stdout)).toMatchObject({
        rows: 3,
        created: 1,
        failed: 2,
        errors: [
          { row: 2, field: '', message: 'This row has 7 values; the header has 6 columns.' },
          { row: 3, field: '', message: 'This row has 5 values; the header has 6 columns.' },
        ],
      })
      const report = await readFile(errors, 'utf8')
      // the row number and the reason, and not one of the row's cells: none can be trusted to be in its column
      expect(parse(report, { columns: true })).toEqual(
        [2, 3].map((row) => ({
          row: String(row),
          field: '',
          message: expect.stringMatching(/^This row has \d values; the header has 6 columns\.$/),
          firstName: '',
          lastName: '',
          email: '',
          userName: '',
          role: '',
        })),
      )
      const human = await portal(['users', 'import', file, '--dry-run'])
      expect(human.stderr).toContain('line 2: This row has 7 values; the header has 6 columns.')
      for (const text of [result.stdout, result.stderr, report, human.stdout, human.stderr])
        for (const secret of ['cret-9Xy!', shifted, PASSWORD]) expect(text).not.toContain(secret)
      expect(await account(`alice${t}@example.com`)).toBeNull()
      expect(await account(`bobby${t}@example.com`)).toBeNull()
    },
  )

  it('exits 0 when every row went in, prints its summary on stderr, and a re-run skips them all', SLOW, async () => {
    const t = tag()
    const course = await makeCourse()
    const { file } = await csvFile(
      `First Name;Last Name;Email;Username;Courses\nDaria;Dunn;daria${t}@example.com;daria${t};${course.title}\n`,
    )
    const first = await portal(['users', 'import', file])
    expect(first).toMatchObject({ code: 0, stdout: '' })
    expect(first.stderr).toContain('1 row read from')
    expect(first.stderr).toContain('1 created, 0 updated, 0 skipped, 0 failed; 1 assignment.')
    const again = await portal(['users', 'import', file, '--json'])
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 0, skipped: 1, assigned: 0, failed: 0 })
  })

  it('writes nothing on --dry-run and nothing in --atomic mode when a row fails', SLOW, async () => {
    const t = tag()
    const { file } = await csvFile(
      `firstName,lastName,email,userName\nEmily,Eyre,emily${t}@example.com,emily${t}\nFrank,Fox,frank,frank${t}\n`,
    )
    const dry = await portal(['users', 'import', file, '--dry-run'])
    expect(dry.code).toBe(1)
    expect(dry.stderr).toContain('Dry run, nothing written. 2 rows checked: 1 created')
    expect(dry.stderr).toContain('line 3, email: Email is invalid.')
    const atomic = await portal(['users', 'import', file, '--atomic', '--json'])
    expect(atomic.code).toBe(1)
    expect(JSON.parse(atomic.stdout)).toMatchObject({ committed: false, created: 0, failed: 1 })
    expect(await account(`emily${t}@example.com`)).toBeNull()
  })

  it('names the line of a broken quote and exits 1', SLOW, async () => {
    const t = tag()
    const { file } = await csvFile(
      `firstName,lastName,email,userName\nGreta,Gale,greta${t}@example.com,greta${t}\nHenry,"Hale,henry${t}@example.com,henry${t}\n`,
    )
    const result = await portal(['users', 'import', file])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('portal: The file cannot be read past line 2: a quoted value starts on line 3')
    expect(await account(`greta${t}@example.com`)).not.toBeNull()
  })

  it('exits 2 for a missing file, a header it cannot use and a wrong mode', SLOW, async () => {
    const missing = await portal(['users', 'import', '/nonexistent/people.csv'])
    expect(missing).toMatchObject({ code: 2, stdout: '' })
    expect(missing.stderr).toContain('cannot read /nonexistent/people.csv')

    const { dir, file } = await csvFile('firstName,lastName,email,phone\nIrene,Ives,irene@example.com,1\n')
    const errors = path.join(dir, 'errors.csv')
    const header = await portal(['users', 'import', file, '--errors', errors])
    expect(header.code).toBe(2)
    expect(header.stderr).toContain('"phone" is not a column this import knows')
    // nothing was written, not even an empty error file
    expect(existsSync(errors)).toBe(false)

    const mode = await portal(['users', 'import', file, '--on-existing', 'merge'])
    expect(mode.code).toBe(2)
  })

  it('with --invite, queues one invitation for each account created without a password', SLOW, async () => {
    const t = tag()
    const { file } = await csvFile(
      [
        'firstName,lastName,email,userName,password',
        `Henry,Hale,henry${t}@example.com,henry${t},`,
        `Helen,Hart,helen${t}@example.com,helen${t},${PASSWORD}`,
      ].join('\n'),
    )
    const result = await portal(['users', 'import', file, '--invite'])
    expect(result.code).toBe(0)
    const queued = async () =>
      (await db()).User.sequelize!.query(
        `SELECT u.email, q.kind, q.status FROM mail_queue q JOIN users u ON u.id = q.user_id
          WHERE u.email LIKE :like ORDER BY u.email`,
        { replacements: { like: `%${t}@example.com` }, type: 'SELECT' },
      )
    expect(await queued()).toEqual([{ email: `henry${t}@example.com`, kind: 'invitation', status: 'pending' }])
    // a re-run creates nobody, so it queues nothing more
    expect((await portal(['users', 'import', file, '--invite'])).code).toBe(0)
    expect(await queued()).toHaveLength(1)
  })
})

describe('portal users list', () => {
  it('lists users as CSV in the import layout, and that CSV imports again as all skipped', SLOW, async () => {
    const t = tag()
    const course = await makeCourse({ title: `Round Trip ${t}` })
    const other = await makeCourse({ title: `Has; Semicolon ${t}` })
    const program = await makeProgram([course.id])
    const { Program } = await db()
    await Program.update({ title: `Path ${t}` }, { where: { id: program.id } })
    const { dir, file } = await csvFile(
      [
        'firstName,lastName,email,userName,role,courses,programs',
        `Jonas,Jett,jonas${t}@example.com,jonas${t},learner,"Round Trip ${t};${other.id}",Path ${t}`,
        `Karin,Kent,karin${t}@example.com,karin${t},coach,,`,
      ].join('\n'),
    )
    expect((await portal(['users', 'import', file])).code).toBe(0)

    const listed = await portal(['users', 'list', '--csv', '--search', t])
    expect(listed.code).toBe(0)
    const rows = parse(listed.stdout, { columns: true }) as Record<string, string>[]
    // one INSERT creates both accounts at the same moment: their order is the ids'
    // assignments made by one statement share their moment too: a cell lists them in id order
    for (const row of rows) row.courses = row.courses.split(';').sort().join(';')
    expect(rows.sort((a, b) => a.email.localeCompare(b.email))).toEqual([
      {
        firstName: 'Jonas',
        lastName: 'Jett',
        email: `jonas${t}@example.com`,
        userName: `jonas${t}`,
        role: 'learner',
        // a title holding the separator is given by id, so the cell reads back
        courses: [`Round Trip ${t}`, other.id].sort().join(';'),
        programs: `Path ${t}`,
      },
      {
        firstName: 'Karin',
        lastName: 'Kent',
        email: `karin${t}@example.com`,
        userName: `karin${t}`,
        role: 'coach',
        courses: '',
        programs: '',
      },
    ])
    const exported = path.join(dir, 'exported.csv')
    await writeFile(exported, listed.stdout)
    const again = await portal(['users', 'import', exported, '--json'])
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({ rows: 2, created: 0, skipped: 2, failed: 0, assigned: 0 })

    const json = await portal(['users', 'list', '--json', '--role', 'coach', '--search', t])
    expect(JSON.parse(json.stdout)).toEqual([
      {
        firstName: 'Karin',
        lastName: 'Kent',
        email: `karin${t}@example.com`,
        userName: `karin${t}`,
        role: 'coach',
        courses: [],
        programs: [],
      },
    ])
    const table = await portal(['users', 'list', '--search', `jonas${t}`])
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+EMAIL\s+USERNAME\s+ROLE\s+COURSES \/ PROGRAMS$/)
    expect(table.stdout).toContain(`Jonas Jett`)
    expect(table.stdout).toContain(`program: Path ${t}`)
  })
  it(
    'round-trips every exported row: unchanged it imports as skipped, edited it updates that account only',
    SLOW,
    async () => {
      const t = tag()
      const course = await makeCourse({ title: `Kept ${t}` })
      const { dir, file } = await csvFile(
        [
          'firstName,lastName,email,userName,role,courses',
          `Lotta,Lind,lotta${t}@example.com,lotta${t},learner,Kept ${t}`,
          `Mirja,Moss,mirja${t}@example.com,mirja${t},learner,Kept ${t}`,
          `Nils,Nord,nils${t}@example.com,nils${t},coach,`,
        ].join('\n'),
      )
      expect((await portal(['users', 'import', file])).code).toBe(0)
      // Mirja becomes a coach; the assignment she had as a learner stays in the database
      const { User, CourseAssignment } = await db()
      await User.update({ roleId: ROLE.coach }, { where: { email: `mirja${t}@example.com` } })
      const state = async () =>
        (await User.findAll({ where: { email: { [Op.like]: `%${t}@example.com` } }, order: [['email', 'ASC']] })).map(
          (u) => ({
            ...u.get({ plain: true }),
            updatedAt: u.updatedAt.toISOString(),
          }),
        )
      const assignments = async () =>
        (await CourseAssignment.findAll({ where: { courseId: course.id } })).map((a) => a.userId).sort()
      const before = { users: await state(), assignments: await assignments() }
      expect(before.assignments).toHaveLength(2)

      const listed = await portal(['users', 'list', '--csv', '--search', t])
      const rows = parse(listed.stdout, { columns: true }) as Record<string, string>[]
      // courses are a learner's: a coach's leftover assignment is not written as something to assign
      // one INSERT made the three accounts at the same moment: the list gives them in id order
      expect(rows.map((r) => [r.userName, r.role, r.courses]).sort()).toEqual([
        [`lotta${t}`, 'learner', `Kept ${t}`],
        [`mirja${t}`, 'coach', ''],
        [`nils${t}`, 'coach', ''],
      ])
      const exported = path.join(dir, 'exported.csv')
      await writeFile(exported, listed.stdout)
      for (const mode of ['skip', 'update', 'fail'] as const) {
        const again = await portal(['users', 'import', exported, '--on-existing', mode, '--json'])
        if (mode === 'fail') {
          expect(JSON.parse(again.stdout)).toMatchObject({ failed: 3, created: 0, updated: 0 })
          continue
        }
        expect(again.code).toBe(0)
        expect(JSON.parse(again.stdout)).toMatchObject({ rows: 3, created: 0, updated: 0, skipped: 3, failed: 0 })
      }
      expect({ users: await state(), assignments: await assignments() }).toEqual(before)

      // the edit: one first name changed in the exported file
      const edited = path.join(dir, 'edited.csv')
      await writeFile(edited, listed.stdout.replace(`Lotta,Lind,lotta${t}@`, `Charlotta,Lind,lotta${t}@`))
      const update = await portal(['users', 'import', edited, '--on-existing', 'update', '--json'])
      expect(update.code).toBe(0)
      expect(JSON.parse(update.stdout)).toMatchObject({ rows: 3, updated: 1, skipped: 2, assigned: 0, failed: 0 })
      const after = await state()
      expect(after[0]).toMatchObject({ firstName: 'Charlotta', lastName: 'Lind', userName: `lotta${t}` })
      expect(after[0].updatedAt).not.toBe(before.users[0].updatedAt)
      expect({ ...after[0], firstName: 'Lotta', updatedAt: before.users[0].updatedAt }).toEqual(before.users[0])
      expect(after.slice(1)).toEqual(before.users.slice(1))
      expect(await assignments()).toEqual(before.assignments)
    },
  )
})

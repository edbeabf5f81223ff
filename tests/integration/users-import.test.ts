import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { parse } from 'csv-parse/sync'
import { QueryTypes } from 'sequelize'
import { describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { login } from '#app/modules/auth/service.server.ts'
import { importUsers, type ImportOptions, type WrittenRow } from '#app/modules/users/import.server.ts'
import { NewUserSchema } from '#app/modules/users/schema.ts'
import { db, sequelize } from '#db/client.ts'
import {
  makeAdmin,
  makeCoach,
  makeCourse,
  makeLearner,
  makeProgram,
  makeSuperAdmin,
  makeUser,
} from '#tests/factories.ts'
import { memorySink } from '#tests/fixtures/files.ts'

// The user import engine on a real database: the file's layout, every row rule, the modes, the error CSV.

const PASSWORD = 'Cobol-1959!'
const tag = () => randomBytes(3).toString('hex')

function source(text: string | Buffer) {
  return Readable.from([typeof text === 'string' ? Buffer.from(text) : text])
}

const run = (text: string | Buffer, options: ImportOptions = {}, actor = SYSTEM) =>
  importUsers(actor, source(text), options)

/** A header and rows, comma-separated, LF. */
const file = (header: string, ...rows: string[]) => [header, ...rows].join('\n') + '\n'

async function account(email: string) {
  const { User } = await db()
  return User.findOne({ where: { email } })
}

async function assignments(userId: string) {
  const { CourseAssignment, ProgramAssignment } = await db()
  return {
    courses: (await CourseAssignment.findAll({ where: { userId } })).map((a) => a.courseId).sort(),
    programs: (await ProgramAssignment.findAll({ where: { userId } })).map((a) => a.programId).sort(),
  }
}

async function userCount() {
  const { User } = await db()
  return User.count()
}

describe('importUsers: the file', () => {
  it('reads UTF-8 with a BOM, semicolons, CRLF and quoted values, with the usual header names', async () => {
    const t = tag()
    const [one, two] = [await makeCourse(), await makeCourse()]
    const text =
      '\uFEFFFirst Name;last_name;E-mail Address;Username;Role;Course Titles\r\n' +
      `Annabel;"Smith Jones";ana${t}@example.com;ana${t};Learner;"${one.title}; ${two.title}"\r\n` +
      `"Bernard";Shaw;bern${t}@example.com;bern${t};;\r\n`
    const result = await run(text)
    expect(result.counts).toEqual({ rows: 2, created: 2, updated: 0, skipped: 0, assigned: 2, failed: 0 })
    expect(result.committed).toBe(true)
    const ana = await account(`ana${t}@example.com`)
    expect(ana).toMatchObject({ firstName: 'Annabel', lastName: 'Smith Jones', userName: `ana${t}`, roleId: 2 })
    expect((await assignments(ana!.id)).courses).toEqual([one.id, two.id].sort())
    // no password: the account waits for its invitation link
    expect(ana?.passwordHash).toBeNull()
    expect((await account(`bern${t}@example.com`))?.roleId).toBe(2)
  })

  it('reads a tab-separated file, as a spreadsheet saves "tab-delimited text"', async () => {
    const t = tag()
    const text = `firstName\tlastName\temail\tuserName\r\nTara\t"Tab Person"\ttara${t}@example.com\ttara${t}\r\n`
    expect((await run(text)).counts).toMatchObject({ rows: 1, created: 1, failed: 0 })
    expect(await account(`tara${t}@example.com`)).toMatchObject({ firstName: 'Tara', lastName: 'Tab Person' })
  })

  it('takes the delimiter it is given over the one it would guess', async () => {
    const t = tag()
    // one semicolon, no comma in the header: a guess would say semicolon
    const text = file('firstName,lastName,email,userName;x', `Carla,Diaz,carla${t}@example.com,carla${t}`)
    await expect(run(text)).rejects.toMatchObject({ status: 400 })
    await expect(run(text, { delimiter: ',' })).rejects.toThrow('"userName;x" is not a column this import knows')
  })

  it('refuses an unknown or missing column in one message before reading any row', async () => {
    const t = tag()
    const before = await userCount()
    const promise = run(file('firstName,email,userName,phone', `Diana,diana${t}@example.com,diana${t},123`))
    await expect(promise).rejects.toMatchObject({ status: 400 })
    await expect(promise).rejects.toThrow(
      'The header (line 1) cannot be used: "phone" is not a column this import knows; the required column lastName is missing.',
    )
    await expect(run(file('firstName,lastName,email,userName,Email', 'a,b,c,d,e'))).rejects.toThrow(
      '"Email" repeats the column "email"',
    )
    expect(await userCount()).toBe(before)
  })

  it('says an empty file, a blank one and a binary one are not imports', async () => {
    await expect(run('')).rejects.toThrow('The file is empty.')
    await expect(run('\uFEFF\r\n  \r\n')).rejects.toThrow('The file is empty.')
    await expect(run(Buffer.from('PK\x03\x04\x00\x00binary', 'latin1'))).rejects.toThrow('The file is not CSV text')
    await expect(run(Buffer.from('\uFEFFfirstName', 'utf16le'))).rejects.toThrow('UTF-16')
  })

  it('names the line of a quote that is never closed, far down the file, and keeps what came before', async () => {
    const t = tag()
    const rows = Array.from({ length: 2500 }, (_, i) => `Rowan,Person,p${i}x${t}@example.com,p${i}x${t}`)
    rows.push(`"Broken,Person,broken${t}@example.com,broken${t}`, `Late,Person,late${t}@example.com,late${t}`)
    const result = await run(file('firstName,lastName,email,userName', ...rows), { batchSize: 1000 })
    expect(result.stopped?.line).toBe(2502)
    expect(result.stopped?.message).toContain('a quoted value starts on line 2502 and is never closed')
    expect(result.stopped?.message).toContain('The 2500 rows before it were handled as reported')
    // every row reported created really is, and nothing after the broken line
    expect(result.counts.created).toBe(2500)
    expect(await account(`p2499x${t}@example.com`)).not.toBeNull()
    expect(await account(`late${t}@example.com`)).toBeNull()
  })

  it('writes nothing in atomic mode when the file breaks off', async () => {
    const t = tag()
    const text = file('firstName,lastName,email,userName', `Early,Person,early${t}@example.com,early${t}`, `Cut,"Off`)
    const result = await run(text, { atomic: true })
    expect(result.stopped?.line).toBe(3)
    expect(result.stopped?.message).toContain('Nothing was imported.')
    expect(result.committed).toBe(false)
    expect(result.counts.created).toBe(0)
    expect(await account(`early${t}@example.com`)).toBeNull()
  })

  it('reports a row cut off before its last columns, naming its line', async () => {
    const t = tag()
    const text = `firstName,lastName,email,userName\nWhole,Person,whole${t}@example.com,whole${t}\nHalf,Pers`
    const result = await run(text)
    expect(result.counts).toMatchObject({ rows: 2, created: 1, failed: 1 })
    expect(result.errors).toEqual([
      { row: 3, field: '', message: 'This row has 2 values; the header has 4 columns.', values: {} },
    ])
  })

  it('numbers rows by the line they start on, past blank lines and line breaks inside quotes', async () => {
    const t = tag()
    const text = file(
      'firstName,lastName,email,userName',
      `"Multi","Line`,
      `Name 2",m${t}@example.com,m${t}`,
      '',
      `Badly,Row,not-an-email,bad${t}`,
    )
    const result = await run(text)
    expect(result.errors.map((e) => [e.row, e.field])).toEqual([
      [2, 'lastName'],
      [5, 'email'],
    ])
  })
})

describe('importUsers: rows', () => {
  it("reports each invalid field with the Create New User form's own message", async () => {
    const t = tag()
    const bad = { firstName: 'Al', lastName: 'X1', email: 'nope', userName: 'a b', password: 'short', role: 'boss' }
    const form = NewUserSchema.safeParse(bad)
    const expected = new Map<string, string>()
    for (const issue of form.success ? [] : form.error.issues)
      if (!expected.has(String(issue.path[0]))) expected.set(String(issue.path[0]), issue.message)
    const result = await run(
      file(
        'firstName,lastName,email,userName,password,role',
        'Al,X1,nope,a b,short,boss',
        `Good,Row,good${t}@example.com,good${t},,`,
      ),
    )
    expect(result.counts).toMatchObject({ rows: 2, created: 1, failed: 1 })
    expect(Object.fromEntries(result.errors.map((e) => [e.field, e.message]))).toEqual(Object.fromEntries(expected))
    expect(result.errors.every((e) => e.row === 2)).toBe(true)
  })

  it('reports a repeated email or username inside the file on the later row, naming the first line', async () => {
    const t = tag()
    const result = await run(
      file(
        'firstName,lastName,email,userName',
        `Erin,One,erin${t}@example.com,erin${t}`,
        `Erin,Two,ERIN${t}@example.com,other${t}`,
        `Erin,Three,third${t}@example.com,Erin${t}`,
      ),
    )
    expect(result.counts).toMatchObject({ created: 1, failed: 2 })
    expect(result.errors.map(({ row, field, message }) => ({ row, field, message }))).toEqual([
      { row: 3, field: 'email', message: 'Email is already on line 2 of this file.' },
      { row: 4, field: 'userName', message: 'UserName is already on line 2 of this file.' },
    ])
  })

  it('says when the earlier line a repeat points at failed itself, in that batch or an earlier one', async () => {
    const t = tag()
    const taken = await makeUser({ userName: `taken${t}` })
    const result = await run(
      file(
        'firstName,lastName,email,userName',
        `Gwen,One,gwen${t}@example.com,TAKEN${t}`, // line 2: the username is another account's
        `Gwen,Two,GWEN${t}@example.com,gwen${t}`, // line 3: the email of line 2
        `Hank,One,hank${t}@example.com,hank${t}`, // line 4: imported
        `Hank,Two,hank${t}@example.com,hank2${t}`, // line 5: the email of line 4, in the next batch
        `Gwen,Three,gwen3${t}@example.com,taken${t}`, // line 6: the username of line 2 (and the account's)
      ),
      { batchSize: 3 },
    )
    expect(result.counts).toMatchObject({ rows: 5, created: 1, failed: 4 })
    expect(result.errors.map(({ row, field, message }) => [row, field, message])).toEqual([
      [2, 'userName', 'UserName already exists.'],
      [3, 'email', 'Email is also on line 2 of this file, which failed; a file gives each email once.'],
      [5, 'email', 'Email is already on line 4 of this file.'],
      [6, 'userName', 'UserName is also on line 2 of this file, which failed; a file gives each username once.'],
    ])
    expect(await account(`gwen${t}@example.com`)).toBeNull()
    expect((await account(taken.email))?.firstName).toBe('Tessa')
  })

  it('finds clashes with existing accounts whatever the case, and refuses a taken username in every mode', async () => {
    const t = tag()
    const existing = await makeUser({ email: `fay${t}@example.com`, userName: `fay${t}` })
    const text = file(
      'firstName,lastName,email,userName',
      `Fayette,Same,FAY${t}@Example.com,fayette${t}`,
      `Other,Person,new${t}@example.com,FAY${t}`,
    )
    const skip = await run(text)
    expect(skip.counts).toMatchObject({ created: 0, skipped: 1, failed: 1 })
    expect(skip.errors[0]).toMatchObject({ row: 3, field: 'userName', message: 'UserName already exists.' })
    const fail = await run(text, { onExisting: 'fail' })
    expect(fail.errors.map((e) => [e.row, e.message])).toEqual([
      [2, 'Email already exists.'],
      [3, 'UserName already exists.'],
    ])
    expect((await account(existing.email))?.firstName).toBe('Tessa')
  })

  it('makes a re-run of the same file create nothing and assign nothing twice', async () => {
    const t = tag()
    const course = await makeCourse({ title: `SQL Basics ${t}` })
    const other = await makeCourse()
    const program = await makeProgram([other.id])
    const text = file(
      'firstName,lastName,email,userName,courses,programs',
      `Gina,Gold,gina${t}@example.com,gina${t},"sql basics ${t}; ${other.id}",${program.id}`,
      `Hugo,Green,hugo${t}@example.com,hugo${t},SQL Basics ${t},`,
    )
    const first = await run(text)
    expect(first.counts).toEqual({ rows: 2, created: 2, updated: 0, skipped: 0, assigned: 4, failed: 0 })
    const gina = await account(`gina${t}@example.com`)
    expect(await assignments(gina!.id)).toEqual({ courses: [course.id, other.id].sort(), programs: [program.id] })
    const before = await userCount()
    const again = await run(text)
    expect(again.counts).toEqual({ rows: 2, created: 0, updated: 0, skipped: 2, assigned: 0, failed: 0 })
    const update = await run(text, { onExisting: 'update' })
    expect(update.counts).toMatchObject({ created: 0, updated: 0, skipped: 2, assigned: 0 })
    expect(await userCount()).toBe(before)
  })

  it('reports an unknown or ambiguous course or program, and courses for anyone but a learner', async () => {
    const t = tag()
    await makeCourse({ title: `Twin ${t}` })
    await makeCourse({ title: `Twin ${t}` })
    const result = await run(
      file(
        'firstName,lastName,email,userName,role,courses,programs',
        `Ivan,Ivy,ivan${t}@example.com,ivan${t},learner,Nothing Like It ${t},`,
        `Jack,Jay,jack${t}@example.com,jack${t},learner,Twin ${t},`,
        `Kate,Kay,kate${t}@example.com,kate${t},learner,,No Program ${t}`,
        `Liam,Lee,liam${t}@example.com,liam${t},coach,Twin ${t},`,
      ),
    )
    expect(result.counts).toMatchObject({ created: 0, failed: 4 })
    expect(result.errors.map((e) => [e.row, e.field, e.message])).toEqual([
      [2, 'courses', `No course with the id or title "Nothing Like It ${t}".`],
      [3, 'courses', `Several courses are titled "Twin ${t}"; use the course id.`],
      [4, 'programs', `No program with the id or title "No Program ${t}".`],
      [5, 'courses', `Several courses are titled "Twin ${t}"; use the course id.`],
    ])
  })

  it('updates names, username and role of accounts matched by email, and the password only when given', async () => {
    const t = tag()
    const learner = await makeUser({ email: `mia${t}@example.com`, userName: `mia${t}` })
    const coach = await makeUser({ email: `ned${t}@example.com`, userName: `ned${t}`, roleId: 4 })
    const { User } = await db()
    const coachHash = (await User.findByPk(coach.id))?.passwordHash
    const course = await makeCourse()
    const result = await run(
      file(
        'firstName,lastName,email,userName,role,password,courses',
        `Miranda,Moss,mia${t}@example.com,miranda${t},learner,${PASSWORD},${course.id}`,
        `Nedward,Nash,ned${t}@example.com,ned${t},coach,,`,
      ),
      { onExisting: 'update' },
    )
    expect(result.counts).toEqual({ rows: 2, created: 0, updated: 2, skipped: 0, assigned: 1, failed: 0 })
    const mia = await User.findByPk(learner.id)
    expect(mia).toMatchObject({ firstName: 'Miranda', lastName: 'Moss', userName: `miranda${t}`, tokenVersion: 1 })
    expect((await login({ email: `miranda${t}`, password: PASSWORD })).user.id).toBe(learner.id)
    expect((await assignments(learner.id)).courses).toEqual([course.id])
    const ned = await User.findByPk(coach.id)
    expect(ned).toMatchObject({ firstName: 'Nedward', lastName: 'Nash', tokenVersion: 0 })
    expect(ned?.passwordHash).toBe(coachHash)
  })

  it('keeps the role of an updated account when the file gives none, and assigns courses to learners only', async () => {
    const t = tag()
    const coach = await makeUser({ email: `oona${t}@example.com`, userName: `oona${t}`, roleId: 4 })
    const course = await makeCourse()
    const result = await run(
      file('firstName,lastName,email,userName,courses', `Oonagh,Owen,oona${t}@example.com,oona${t},`),
      { onExisting: 'update' },
    )
    expect(result.counts).toMatchObject({ updated: 1, failed: 0 })
    const { User } = await db()
    expect(await User.findByPk(coach.id)).toMatchObject({ firstName: 'Oonagh', roleId: 4 })
    const again = await run(
      file('firstName,lastName,email,userName,courses', `Oonagh,Owen,oona${t}@example.com,oona${t},${course.id}`),
      { onExisting: 'update' },
    )
    expect(again.errors.map((e) => [e.field, e.message])).toEqual([
      ['courses', 'Courses and programs are assigned to learners.'],
    ])
  })

  it('stores passwords as argon2id hashes that sign in, and never reports them', async () => {
    const t = tag()
    const errors = memorySink()
    const result = await run(
      file(
        'firstName,lastName,email,password,userName',
        `Olga,Orr,olga${t}@example.com,${PASSWORD},olga${t}`,
        `Pete,Poe,pete${t}@example.com,Secret-but-bad-${t},p`,
      ),
      { errorSink: errors.sink },
    )
    expect(result.counts).toMatchObject({ created: 1, failed: 1 })
    expect((await account(`olga${t}@example.com`))?.passwordHash).toMatch(/^\$argon2id\$/)
    expect((await login({ email: `olga${t}@example.com`, password: PASSWORD })).user.userName).toBe(`olga${t}`)
    expect(JSON.stringify(result)).not.toContain('Secret-but-bad')
    expect(errors.text()).not.toContain('Secret-but-bad')
    expect(errors.text()).not.toMatch(/password/i)
  })

  it('calls onInvite for each created account without a password, inside its transaction', async () => {
    const t = tag()
    const invited: string[] = []
    const result = await run(
      file(
        'firstName,lastName,email,userName,password',
        `Quinn,Quay,quinn${t}@example.com,quinn${t},`,
        `Rosa,Ray,rosa${t}@example.com,rosa${t},${PASSWORD}`,
      ),
      {
        onInvite: async (userId, transaction) => {
          // the account is visible in the transaction that created it
          const [row] = await (
            await sequelize()
          ).query<{ email: string }>('SELECT email FROM users WHERE id = $1', {
            bind: [userId],
            type: QueryTypes.SELECT,
            transaction,
          })
          invited.push(row.email)
        },
      },
    )
    expect(result.counts.created).toBe(2)
    expect(invited).toEqual([`quinn${t}@example.com`])
  })
  it('tells onRow each row that creates or changes an account, by its line, never with a password', async () => {
    const t = tag()
    const course = await makeCourse()
    const same = { firstName: 'Annie', lastName: 'Same' }
    await makeUser({ email: `ann${t}@example.com`, userName: `ann${t}`, ...same })
    await makeUser({ email: `bob${t}@example.com`, userName: `bob${t}` })
    await makeUser({ email: `cal${t}@example.com`, userName: `cal${t}`, firstName: 'Calla', lastName: 'Lily' })
    await makeUser({ email: `fay${t}@example.com`, userName: `fay${t}`, firstName: 'Fayla', lastName: 'Fern' })
    const text =
      file(
        'firstName,lastName,email,userName,role,password,courses',
        `Dora,Dunn,dora${t}@example.com,dora${t},,${PASSWORD},${course.title}`,
        // the account has these values already: skipped, not reported
        `Annie,Same,ann${t}@example.com,ann${t},,,`,
        '',
        `Bobby,Brown,bob${t}@example.com,bob${t},Learner,,`,
        `Bad,Row,not-an-email,badrow${t},,Secret-Bad-${t}1!,`,
        // a new password is a change, the names being the same
        `Calla,Lily,cal${t}@example.com,cal${t},,${PASSWORD},`,
        `  Evelyn ,Eyre,eve${t}@example.com,eve${t},,,`,
      ) +
      // a course for a learner whose values are the row's: assigned, yet the account does not change
      `Fayla,Fern,fay${t}@example.com,fay${t},,,${course.id}\n`
    const expected = [
      {
        line: 2,
        outcome: 'created',
        values: {
          firstName: 'Dora',
          lastName: 'Dunn',
          email: `dora${t}@example.com`,
          userName: `dora${t}`,
          role: '',
          courses: course.title,
          programs: '',
        },
      },
      { line: 5, outcome: 'updated', values: expect.objectContaining({ firstName: 'Bobby', role: 'Learner' }) },
      { line: 7, outcome: 'updated', values: expect.objectContaining({ email: `cal${t}@example.com` }) },
      { line: 8, outcome: 'created', values: expect.objectContaining({ firstName: 'Evelyn', userName: `eve${t}` }) },
    ]
    const byLine = (a: WrittenRow, b: WrittenRow) => a.line - b.line
    // the dry run tells what the import then does, batch after batch
    for (const dryRun of [true, false]) {
      const rows: WrittenRow[] = []
      const result = await run(text, { onExisting: 'update', dryRun, batchSize: 3, onRow: (row) => rows.push(row) })
      expect(result.counts).toEqual({ rows: 7, created: 2, updated: 2, skipped: 2, assigned: 2, failed: 1 })
      expect(rows.sort(byLine)).toEqual(expected)
      for (const row of rows) expect(Object.keys(row.values)).not.toContain('password')
      expect(JSON.stringify(rows)).not.toContain(PASSWORD)
      expect(JSON.stringify(rows)).not.toContain('Secret-Bad')
    }
    expect(await account(`dora${t}@example.com`)).not.toBeNull()
    expect(await account(`bob${t}@example.com`)).toMatchObject({ firstName: 'Bobby', lastName: 'Brown' })
  })
})

describe('importUsers: modes and permissions', () => {
  it('writes nothing on a dry run, yet counts what it would do', async () => {
    const t = tag()
    const course = await makeCourse()
    const before = await userCount()
    const invited: string[] = []
    const result = await run(
      file(
        'firstName,lastName,email,userName,courses',
        `Sara,Stone,sara${t}@example.com,sara${t},${course.id}`,
        'Bad,Row,bad,b,',
      ),
      { dryRun: true, onInvite: async (id) => void invited.push(id) },
    )
    expect(result.counts).toEqual({ rows: 2, created: 1, updated: 0, skipped: 0, assigned: 1, failed: 1 })
    expect(result.committed).toBe(false)
    expect(await userCount()).toBe(before)
    expect(invited).toEqual([])
  })

  it('rolls back the whole file in atomic mode when one row fails', async () => {
    const t = tag()
    const rows = Array.from({ length: 30 }, (_, i) => `Tina,Tate,t${i}x${t}@example.com,t${i}x${t}`)
    rows.push('Bad,Row,not-an-email,badrow')
    const before = await userCount()
    const result = await run(file('firstName,lastName,email,userName', ...rows), { atomic: true, batchSize: 10 })
    expect(result.committed).toBe(false)
    expect(result.counts).toMatchObject({ rows: 31, created: 0, failed: 1 })
    expect(await userCount()).toBe(before)
    const good = await run(file('firstName,lastName,email,userName', ...rows.slice(0, 30)), { atomic: true })
    expect(good).toMatchObject({ committed: true, counts: { created: 30 } })
  })

  it('refuses coaches and learners', async () => {
    const text = file('firstName,lastName,email,userName', 'Uma,Ure,uma@example.com,umaure')
    await expect(run(text, {}, await makeCoach())).rejects.toMatchObject({ status: 403 })
    await expect(run(text, {}, await makeLearner())).rejects.toMatchObject({ status: 403 })
  })

  it('lets only the super admin import admins and super admins, and change admins', async () => {
    const t = tag()
    const admin = await makeAdmin()
    const otherAdmin = await makeUser({ email: `vic${t}@example.com`, userName: `vic${t}`, roleId: 3 })
    const text = file(
      'firstName,lastName,email,userName,role',
      `Wanda,West,wanda${t}@example.com,wanda${t},admin`,
      `Xena,Xu,xena${t}@example.com,xena${t},Super Admin`,
      `Victor,Vance,${otherAdmin.email},${otherAdmin.userName},admin`,
      `Yuri,Yates,yuri${t}@example.com,yuri${t},coach`,
    )
    const byAdmin = await run(text, { onExisting: 'update' }, admin)
    expect(byAdmin.counts).toMatchObject({ created: 1, failed: 3 })
    expect(byAdmin.errors.map((e) => [e.row, e.field, e.message])).toEqual([
      [2, 'role', 'You do not have permission to create this kind of account.'],
      [3, 'role', 'You do not have permission to create this kind of account.'],
      [4, 'role', 'You do not have permission to create this kind of account.'],
    ])
    expect((await account(`yuri${t}@example.com`))?.roleId).toBe(4)
    const byOwner = await run(text, { onExisting: 'update' }, await makeSuperAdmin())
    expect(byOwner.counts).toMatchObject({ created: 2, updated: 1, skipped: 1, failed: 0 })
    expect((await account(`xena${t}@example.com`))?.roleId).toBe(1)
    expect((await account(otherAdmin.email))?.firstName).toBe('Victor')
  })

  it('leaves an existing account alone on skip, and an update that changes nothing needs no permission', async () => {
    const t = tag()
    const admin = await makeAdmin()
    await makeUser({ email: `xa${t}@example.com`, userName: `xa${t}`, roleId: 3, firstName: 'Xavia', lastName: 'Ames' })
    await makeUser({ email: `xc${t}@example.com`, userName: `xc${t}`, roleId: 4, firstName: 'Xenia', lastName: 'Cole' })
    const course = await makeCourse()
    // a users list as an admin exports it: another admin, and a coach with the courses she had as a learner
    const header = 'firstName,lastName,email,userName,role,courses'
    const adminRow = `Xavia,Ames,xa${t}@example.com,xa${t},admin,`
    const coachRow = `Xenia,Cole,xc${t}@example.com,xc${t},coach,${course.id}`
    const skip = await run(file(header, adminRow, coachRow), {}, admin)
    expect(skip.errors).toEqual([])
    expect(skip.counts).toMatchObject({ rows: 2, skipped: 2, failed: 0 })
    const same = await run(file(header, adminRow, coachRow.replace(course.id, '')), { onExisting: 'update' }, admin)
    expect(same.errors).toEqual([])
    expect(same.counts).toMatchObject({ rows: 2, updated: 0, skipped: 2, failed: 0 })
    // a change is still refused: to an admin's account, courses for a coach, and a new admin or coach with courses
    const changes = await run(
      file(
        header,
        adminRow.replace('Xavia', 'Xaviera'),
        coachRow,
        `Yara,Yates,ya${t}@example.com,ya${t},admin,`,
        `Zora,Zane,zo${t}@example.com,zo${t},coach,${course.id}`,
      ),
      { onExisting: 'update' },
      admin,
    )
    expect(changes.counts).toMatchObject({ created: 0, updated: 0, skipped: 0, failed: 4 })
    expect(changes.errors.map((e) => [e.row, e.field, e.message])).toEqual([
      [2, 'role', 'You do not have permission to create this kind of account.'],
      [3, 'courses', 'Courses and programs are assigned to learners.'],
      [4, 'role', 'You do not have permission to create this kind of account.'],
      [5, 'courses', 'Courses and programs are assigned to learners.'],
    ])
    expect((await account(`xa${t}@example.com`))?.firstName).toBe('Xavia')
    const { CourseAssignment } = await db()
    expect(await CourseAssignment.count({ where: { courseId: course.id } })).toBe(0)
  })

  it('writes the error CSV: row, field, message and the row’s columns without the password', async () => {
    const t = tag()
    const errors = memorySink()
    await run(
      file(
        'First Name,Last Name,Email,Password,Username',
        `Zoe,Zed,zoe${t}@example.com,${PASSWORD},zoe${t}`,
        `Zachary,Zane,not-an-email,${PASSWORD},=cmd`,
      ),
      { errorSink: errors.sink },
    )
    const rows = parse(errors.text(), { columns: true }) as Record<string, string>[]
    expect(rows).toEqual([
      {
        row: '2',
        field: 'firstName',
        message: 'First Name must be at least 4 characters.',
        'First Name': 'Zoe',
        'Last Name': 'Zed',
        Email: `zoe${t}@example.com`,
        Username: `zoe${t}`,
      },
      {
        row: '3',
        field: 'userName',
        message: 'UserName can only contain letters, numbers, dots, dashes and underscores.',
        'First Name': 'Zachary',
        'Last Name': 'Zane',
        Email: 'not-an-email',
        // a cell a spreadsheet would run as a formula is neutralised
        Username: "'=cmd",
      },
      {
        row: '3',
        field: 'email',
        message: 'Email is invalid.',
        'First Name': 'Zachary',
        'Last Name': 'Zane',
        Email: 'not-an-email',
        Username: "'=cmd",
      },
    ])
    expect(errors.text()).not.toContain(PASSWORD)
  })
})

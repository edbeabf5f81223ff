import { PassThrough, Readable } from 'node:stream'
import { text } from 'node:stream/consumers'
import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
import {
  assignMany,
  importAssignments,
  type AssignmentImportOptions,
  type AssignmentRowError,
} from '#app/modules/assignments/import.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { listAssignedCourses } from '#app/modules/courses/learner.server.ts'
import { sequelize } from '#db/client.ts'
import { makeAdmin, makeCoach, makeCourse, makeLearner, makeProgram, makeSuperAdmin } from '#tests/factories.ts'

const file = (content: string | Buffer) => Readable.from([Buffer.from(content)])

async function run(content: string | Buffer, options: AssignmentImportOptions = {}) {
  const errors: AssignmentRowError[] = []
  const summary = await importAssignments(await makeAdmin(), file(content), {
    ...options,
    onRowError: (e) => errors.push(e),
  })
  return { summary, errors }
}

async function assignmentCount(userId: string) {
  const [row] = (await (
    await sequelize()
  ).query(
    `SELECT (SELECT count(*) FROM course_assignments WHERE user_id = :userId)
          + (SELECT count(*) FROM program_assignments WHERE user_id = :userId) AS n`,
    { replacements: { userId }, plain: false, raw: true },
  )) as unknown as [{ n: string }[]]
  return Number(row[0].n)
}

describe('importAssignments', () => {
  it('reads UTF-8 with a BOM, semicolons, CRLF, aliased headers and quoted fields', async () => {
    const [ana, bo] = [await makeLearner(), await makeLearner()]
    const course = await makeCourse({ title: 'Data; Warehousing' })
    const other = await makeCourse({ title: 'SQL Basics' })
    const csv = `\ufeffE-Mail ;Course Title\r\n${ana.email};"Data; Warehousing"\r\n${bo.userName.toUpperCase()};${other.id}\r\n`
    const { summary, errors } = await run(csv)
    expect(errors).toEqual([])
    expect(summary).toMatchObject({ rows: 2, assigned: 2, already: 0, failed: 0, committed: true })
    expect((await listAssignedCourses(ana)).map((c) => c._id)).toEqual([course.id])
    expect((await listAssignedCourses(bo)).map((c) => c._id)).toEqual([other.id])
  })

  it('takes "user name" and "login" as the user column, and a row may have a course, a program or both', async () => {
    const learner = await makeLearner()
    const [one, two] = [await makeCourse({ title: 'One' }), await makeCourse({ title: 'Two' })]
    const program = await makeProgram([two.id])
    const csv = `User Name,course,PROGRAM ID\n${learner.userName},One,${program.id}\n`
    const { summary } = await run(csv)
    expect(summary).toMatchObject({ rows: 1, assigned: 2 })
    expect((await listAssignedCourses(learner)).map((c) => c._id).sort()).toEqual([one.id, two.id].sort())
    const { summary: byLogin } = await run(`login,program\n${learner.email},${program.id}\n`)
    expect(byLogin).toMatchObject({ assigned: 0, already: 1 })
  })

  it('assigning a program records the program only, as the one-at-a-time service does', async () => {
    const learner = await makeLearner()
    const course = await makeCourse()
    const program = await makeProgram([course.id])
    await run(`user,program\n${learner.email},${program.id}\n`)
    const sql = await sequelize()
    const [courses] = await sql.query('SELECT 1 FROM course_assignments WHERE user_id = :id', {
      replacements: { id: learner.id },
    })
    const [programs] = await sql.query('SELECT 1 FROM program_assignments WHERE user_id = :id', {
      replacements: { id: learner.id },
    })
    expect([courses.length, programs.length]).toEqual([0, 1])
    expect((await listAssignedCourses(learner)).map((c) => c._id)).toEqual([course.id])
  })

  it('refuses an unknown or missing column before reading any row', async () => {
    const learner = await makeLearner()
    await makeCourse({ title: 'Header test' })
    await expect(run(`user,course,kurs\n${learner.email},Header test,x\n`)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Line 1: unknown column "kurs"'),
    })
    await expect(run(`course\nHeader test\n`)).rejects.toThrow('Line 1: no user column.')
    await expect(run(`email,name\n${learner.email},x\n`)).rejects.toThrow('Line 1: unknown column "name"')
    await expect(run(`email\n${learner.email}\n`)).rejects.toThrow('Line 1: no course or program column.')
    await expect(run('')).rejects.toThrow('The file is empty')
    expect(await assignmentCount(learner.id)).toBe(0)
  })

  it('reports each bad row with its line and writes the good ones', async () => {
    const [learner, coach] = [await makeLearner(), await makeCoach()]
    const course = await makeCourse({ title: 'Good course' })
    const csv = [
      'user,course,program',
      `${learner.email},Good course,`, // line 2
      'nobody@example.com,Good course,', // line 3
      `${learner.email},No such course,`, // line 4
      `${learner.email},,`, // line 5
      '', // blank lines are skipped
      `${coach.email},Good course,`, // line 7
      `${learner.email},,No such program`, // line 8
      ',Good course,', // line 9
    ].join('\n')
    const { summary, errors } = await run(csv)
    expect(summary).toMatchObject({ rows: 7, assigned: 1, failed: 6, committed: true })
    expect(errors.map(({ row, field, message }) => ({ row, field, message }))).toEqual([
      { row: 3, field: 'user', message: 'No user with the email or username "nobody@example.com".' },
      { row: 4, field: 'course', message: 'No course with the id or title "No such course".' },
      { row: 5, field: 'course', message: 'Give a course or a program.' },
      { row: 7, field: 'user', message: 'Courses and programs are assigned to learners.' },
      { row: 8, field: 'program', message: 'No program with the id or title "No such program".' },
      { row: 9, field: 'user', message: 'User is required.' },
    ])
    expect((await listAssignedCourses(learner)).map((c) => c._id)).toEqual([course.id])
  })

  it('names an ambiguous title and asks for the id', async () => {
    const learner = await makeLearner()
    await makeCourse({ title: 'Twin' })
    await makeCourse({ title: 'twin' })
    const { errors } = await run(`user,course\n${learner.email},TWIN\n`)
    expect(errors[0].message).toBe('Several courses are titled "Twin"; use the course id.')
  })

  it('counts a repeated row once and assigns nothing twice when the file runs again', async () => {
    const [ana, bo] = [await makeLearner(), await makeLearner()]
    const course = await makeCourse({ title: 'Twice' })
    const csv = `user,course\n${ana.email},Twice\n${ana.userName},${course.id}\n${bo.email},twice\n`
    const first = await run(csv)
    expect(first.summary).toMatchObject({ rows: 3, assigned: 2, already: 0, duplicates: 1, failed: 0 })
    const second = await run(csv)
    expect(second.summary).toMatchObject({ rows: 3, assigned: 0, already: 2, duplicates: 1, failed: 0 })
    expect(await assignmentCount(ana.id)).toBe(1)
  })

  it('writes in batches of a thousand rows across a large file', async () => {
    const learner = await makeLearner()
    const course = await makeCourse({ title: 'Big' })
    const rows = Array.from({ length: 2500 }, () => `${learner.email},Big`)
    const progress: number[] = []
    const { summary } = await run(`user,course\n${rows.join('\n')}\n`, {
      onProgress: ({ rows }) => progress.push(rows),
    })
    expect(summary).toMatchObject({ rows: 2500, assigned: 1, duplicates: 2499 })
    expect(progress).toEqual([1000, 2000, 2500])
    expect((await listAssignedCourses(learner)).map((c) => c._id)).toEqual([course.id])
  })

  it('atomic: writes nothing when any row fails, everything when none does', async () => {
    const [ana, bo] = [await makeLearner(), await makeLearner()]
    await makeCourse({ title: 'Atomic' })
    const good = `${ana.email},Atomic`
    const bad = Array.from({ length: 1200 }, () => good)
    bad.push('ghost@example.com,Atomic', `${bo.email},Atomic`)
    const failed = await run(`user,course\n${bad.join('\n')}\n`, { atomic: true })
    expect(failed.summary).toMatchObject({ assigned: 2, failed: 1, committed: false, atomic: true })
    expect(await assignmentCount(ana.id)).toBe(0)
    expect(await assignmentCount(bo.id)).toBe(0)
    const ok = await run(`user,course\n${good}\n${bo.email},Atomic\n`, { atomic: true })
    expect(ok.summary).toMatchObject({ assigned: 2, failed: 0, committed: true })
    expect(await assignmentCount(ana.id)).toBe(1)
  })

  it('dry run: counts what would happen and writes nothing', async () => {
    const [ana, bo] = [await makeLearner(), await makeLearner()]
    await makeCourse({ title: 'Dry' })
    await run(`user,course\n${ana.email},Dry\n`)
    const dry = await run(`user,course\n${ana.email},Dry\n${bo.email},Dry\nghost,Dry\n`, { dryRun: true })
    expect(dry.summary).toMatchObject({ rows: 3, assigned: 1, already: 1, failed: 1, dryRun: true, committed: false })
    expect(await assignmentCount(bo.id)).toBe(0)
    const atomicDry = await run(`user,course\n${bo.email},Dry\n`, { dryRun: true, atomic: true })
    expect(atomicDry.summary).toMatchObject({ assigned: 1, committed: false })
    expect(await assignmentCount(bo.id)).toBe(0)
  })

  it('lets admins and the super admin import, and refuses coaches and learners', async () => {
    const learner = await makeLearner()
    await makeCourse({ title: 'Allowed' })
    const csv = `user,course\n${learner.email},Allowed\n`
    for (const actor of [await makeCoach(), learner])
      await expect(importAssignments(actor, file(csv))).rejects.toMatchObject({ status: 403 })
    expect(await assignmentCount(learner.id)).toBe(0)
    expect(await importAssignments(await makeSuperAdmin(), file(csv))).toMatchObject({ assigned: 1 })
    for (const actor of [await makeCoach(), learner])
      await expect(assignMany(actor, { action: 'unassign', course: 'Allowed' }, 'all-learners')).rejects.toMatchObject({
        status: 403,
      })
  })

  it('writes an error CSV: row, field, message and the row as it was', async () => {
    const learner = await makeLearner()
    await makeCourse({ title: 'Errors' })
    const sink = new PassThrough()
    const written = text(sink)
    const csv = `Email;Course\n${learner.email};Errors\nghost@example.com;"Errors"\n${learner.email};=cmd()\n${learner.email};Errors;extra\n`
    const summary = await importAssignments(await makeAdmin(), file(csv), { errorSink: sink })
    expect(summary).toMatchObject({ assigned: 1, failed: 3 })
    expect(parse(await written, { relax_column_count: true })).toEqual([
      ['row', 'field', 'message', 'Email', 'Course'],
      ['3', 'Email', 'No user with the email or username "ghost@example.com".', 'ghost@example.com', 'Errors'],
      ['4', 'Course', 'No course with the id or title "=cmd()".', learner.email, "'=cmd()"],
      ['5', '', 'This row has 3 fields; the header has 2.', learner.email, 'Errors', 'extra'],
    ])
  })

  it('names the line of a broken quote, and keeps the batches written before it', async () => {
    const learner = await makeLearner()
    const course = await makeCourse({ title: 'Quoted' })
    // ten rows past the last full batch: they are parsed with the broken line in the same chunk
    const rows = Array.from({ length: 2010 }, () => `${learner.email},Quoted`)
    const lines = ['user,course', ...rows, `${learner.email},"Quoted`, `${learner.email},Quoted`]
    const sink = new PassThrough()
    const written = text(sink)
    const summary = await importAssignments(await makeAdmin(), file(lines.join('\n')), { errorSink: sink })
    const reason =
      'The file cannot be read past line 2011: a quoted value starts on line 2012 and is never closed (the file may be cut off).'
    expect(summary).toEqual({
      rows: 2010,
      assigned: 1,
      already: 0,
      updated: 0,
      duplicates: 2009,
      failed: 0,
      dryRun: false,
      atomic: false,
      committed: true,
      stopped: {
        line: 2012,
        message: `${reason} The 2010 rows before it were handled as reported; nothing from line 2012 on was imported.`,
      },
    })
    expect((await listAssignedCourses(learner)).map((c) => c._id)).toEqual([course.id])
    expect(parse(await written, { relax_column_count: true })).toEqual([
      ['row', 'field', 'message', 'user', 'course'],
      ['2012', '', summary.stopped!.message],
    ])
    const stray = await run(`user,course\n${learner.email},Quoted\n\n${learner.email},Qu"oted\n`)
    expect(stray.summary.stopped).toMatchObject({
      line: 4,
      message: expect.stringMatching(/^The file cannot be read past line 3: line 4 has a quote inside a value/),
    })
    const after = await run(`user,course\n${learner.email},"Quoted"x\n`)
    expect(after.summary.stopped?.message).toMatch(/: line 2 has text right after a closing quote\./)
  })

  it('a blank line before the broken one counts, and a broken header is a 400 error', async () => {
    const learner = await makeLearner()
    await makeCourse({ title: 'Blank' })
    const { summary } = await run(`user,course\n${learner.email},Blank\n\n\n${learner.email},"Blank\n`)
    expect(summary).toMatchObject({ rows: 1, assigned: 1, stopped: { line: 5 } })
    await expect(run(`"user,course\n${learner.email},Blank\n`)).rejects.toMatchObject({
      status: 400,
      message:
        'The file cannot be read: a quoted value starts on line 1 and is never closed (the file may be cut off).',
    })
  })

  it('atomic: a broken line rolls back everything before it', async () => {
    const learner = await makeLearner()
    await makeCourse({ title: 'Broken atomic' })
    const csv = `user,course\n${learner.email},Broken atomic\n${learner.email},"Broken atomic\n`
    const { summary } = await run(csv, { atomic: true })
    expect(summary).toMatchObject({
      rows: 1,
      assigned: 1,
      committed: false,
      stopped: { line: 3, message: expect.stringMatching(/ on line 3 .* Nothing was imported\.$/) },
    })
    expect(await assignmentCount(learner.id)).toBe(0)
  })
})

describe('assignMany', () => {
  it('assigns to every learner, then unassigns, keeping progress rows', async () => {
    const [ana, bo, coach] = [await makeLearner(), await makeLearner(), await makeCoach()]
    const course = await makeCourse({ title: 'Everyone' })
    const first = await assignMany(SYSTEM, { action: 'assign', course: 'everyone' }, 'all-learners')
    expect(first).toMatchObject({ action: 'assign', course: { id: course.id, title: 'Everyone' }, failed: 0 })
    expect(first.changed).toBe(first.users)
    expect((await listAssignedCourses(ana)).map((c) => c._id)).toContain(course.id)
    expect(await assignmentCount(coach.id)).toBe(0)
    const again = await assignMany(SYSTEM, { action: 'assign', course: course.id }, 'all-learners')
    expect(again).toMatchObject({ changed: 0, unchanged: first.users })
    const list = async function* () {
      yield { line: 1, user: bo.userName }
      yield { line: 2, user: 'ghost' }
    }
    const removed = await assignMany(SYSTEM, { action: 'unassign', course: 'Everyone' }, list())
    expect(removed).toMatchObject({ users: 2, changed: 1, unchanged: 0, failed: 1 })
    expect((await listAssignedCourses(bo)).map((c) => c._id)).not.toContain(course.id)
    expect((await listAssignedCourses(ana)).map((c) => c._id)).toContain(course.id)
  })

  it('refuses an unknown target and one that is both or neither', async () => {
    await expect(assignMany(SYSTEM, { action: 'assign', course: 'Nope' }, 'all-learners')).rejects.toMatchObject({
      status: 404,
      message: 'No course with the id or title "Nope".',
    })
    await expect(assignMany(SYSTEM, { action: 'assign' }, 'all-learners')).rejects.toThrow(
      'Give either a course or a program.',
    )
  })
})

import { mkdir, mkdtemp, readdir, readFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parse } from 'csv-parse/sync'
import { beforeAll, describe, expect, it } from 'vitest'
import { ZodError } from 'zod'
import { ASSIGNMENT_EXPORT_HEADERS, writeAssignments } from '#app/modules/assignments/export.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { addSchedule, findRun, runExport, runSchedule } from '#app/modules/exports/service.server.ts'
import * as download from '#app/routes/admin+/exports_.assignments.ts'
import { sequelize } from '#db/client.ts'
import { portal } from '#tests/cli.ts'
import {
  assignCourse,
  assignProgram,
  makeCoach,
  makeCourse,
  makeLab,
  makeLearner,
  makeProgram,
  makeUser,
  recordLabAttempt,
  recordWatched,
} from '#tests/factories.ts'
import { memorySink } from '#tests/fixtures/files.ts'
import { tryOf } from '#tests/jobs.ts'
import { call } from '#tests/requests.ts'
import { sessionCookieFor } from '#tests/sessions.ts'

// The assignments export through its service, its download route, `portal export assignments` and a schedule of
// kind assignments, on a real database. Every status has its learner; one lives in Auckland, where a due day
// ends eleven hours before it ends in UTC (NZDT, UTC+13).

type Row = Record<string, string>

const NOW = new Date('2026-12-10T12:00:00Z')

async function sql(text: string, bind: unknown[] = []) {
  return (await sequelize()).query(text, { bind })
}

const dueOn = (table: 'course' | 'program', userId: string, day: string) =>
  sql(`UPDATE ${table}_assignments SET due_date = $2 WHERE user_id = $1`, [userId, day])

async function exportRows(input: object = {}, format: 'csv' | 'jsonl' = 'csv', actor = SYSTEM) {
  const { sink, text } = memorySink()
  const progress = await writeAssignments(actor, input, sink, { format, now: NOW })
  if (format === 'jsonl')
    return {
      ...progress,
      text: text(),
      rows: text()
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)) as Row[],
    }
  return { ...progress, text: text(), rows: parse(text(), { columns: true }) as Row[] }
}

let course: Awaited<ReturnType<typeof makeCourse>>
let labCourse: Awaited<ReturnType<typeof makeCourse>>
let program: { id: string }
let people: Record<
  'done' | 'going' | 'idle' | 'late' | 'auckland' | 'labber' | 'formula',
  { id: string; email: string }
>

beforeAll(async () => {
  course = await makeCourse({ title: 'Compliance 101', videos: [{ duration: 100 }, { duration: 100 }] })
  labCourse = await makeCourse({ title: 'SQL Basics', videos: [{ duration: 100 }] })
  const lab = await makeLab(labCourse.id, { minutes: 10 })
  program = await makeProgram([course.id, labCourse.id])
  await sql(`UPDATE programs SET title = 'Onboarding' WHERE id = $1`, [program.id])

  const learner = (lastName: string, firstName = 'Pat') => makeUser({ lastName, firstName })
  people = {
    done: await learner('A-Done'),
    going: await learner('B-Going'),
    idle: await learner('C-Idle'),
    late: await learner('D-Late'),
    auckland: await learner('E-Auckland'),
    labber: await learner('F-Labber'),
    formula: await learner('G-Formula', '=HYPERLINK("http://evil")'),
  }
  for (const who of Object.values(people)) await assignCourse(who.id, course.id)

  // completed, although its day has passed: completed wins
  for (const video of course.videos) await recordWatched(people.done.id, course.id, video, 100)
  await dueOn('course', people.done.id, '2020-01-01')
  // half of one video of two: in progress, a quarter
  await recordWatched(people.going.id, course.id, course.videos[0], 50)
  await dueOn('course', people.going.id, '2099-06-30')
  await dueOn('course', people.idle.id, '2099-06-30')
  // something watched, but its day has passed
  await recordWatched(people.late.id, course.id, course.videos[0], 10)
  await dueOn('course', people.late.id, '2020-01-01')

  // Auckland: due at the end of 15 Dec there; the whole first course done, nothing of the second
  await sql(`UPDATE users SET time_zone = 'Pacific/Auckland' WHERE id = $1`, [people.auckland.id])
  await dueOn('course', people.auckland.id, '2099-12-15')
  for (const video of course.videos) await recordWatched(people.auckland.id, course.id, video, 100)
  await assignProgram(people.auckland.id, program.id)
  await sql(`UPDATE program_assignments SET due_at = '2099-12-20T09:30:00Z' WHERE user_id = $1`, [people.auckland.id])
  await sql(
    `INSERT INTO assignment_reminders (user_id, course_id, due, step, created_at)
     VALUES ($1, $2, '2099-12-15', 'before-7', '2099-12-08T19:00:00Z'),
            ($1, $2, '2099-12-15', 'before-1', '2099-12-14T19:00:00Z'),
            ($1, $2, '2099-11-01', 'after-7', '2099-12-20T19:00:00Z')`,
    [people.auckland.id, course.id],
  )

  // a lab attempted, nothing watched: in progress
  await assignCourse(people.labber.id, labCourse.id)
  await recordLabAttempt(people.labber.id, lab.exercises[0].id, false)
})

const byName = (rows: Row[], lastName: string, title = 'Compliance 101') =>
  rows.find((r) => r['Last Name'] === lastName && r.Title === title)

describe('the assignments export', () => {
  it('has a row per assignment with its status, percent, due instant and last reminder', async () => {
    const { rows, text } = await exportRows()
    expect(text.split('\r\n')[0]).toBe(ASSIGNMENT_EXPORT_HEADERS.join(','))
    expect(rows).toHaveLength(9)
    expect(byName(rows, 'A-Done')).toMatchObject({
      Kind: 'course',
      Status: 'completed',
      Percent: '100',
      'Due Date': '2020-01-01',
      'Due At': '2020-01-02T00:00:00.000Z',
      'Time Zone': 'UTC',
      Email: people.done.email,
    })
    expect(byName(rows, 'B-Going')).toMatchObject({ Status: 'in-progress', Percent: '25' })
    expect(byName(rows, 'C-Idle')).toMatchObject({ Status: 'not-started', Percent: '0', 'Last Reminder': '' })
    expect(byName(rows, 'D-Late')).toMatchObject({ Status: 'overdue', Percent: '5' })
    expect(byName(rows, 'F-Labber', 'SQL Basics')).toMatchObject({ Status: 'in-progress', 'Due Date': '' })
    // no due date: never overdue, its due columns empty
    expect(byName(rows, 'F-Labber')).toMatchObject({ Status: 'not-started', 'Due Date': '', 'Due At': '' })
  })

  it("reads a due day in the learner's time zone, and an exact time as it was set", async () => {
    const { rows } = await exportRows()
    expect(byName(rows, 'E-Auckland')).toMatchObject({
      'Due Date': '2099-12-15',
      'Due At': '2099-12-15T11:00:00.000Z',
      'Time Zone': 'Pacific/Auckland',
      Status: 'completed',
      // the latest reminder of the due date as it stands, not one of an earlier date
      'Last Reminder': 'before-1',
      'Last Reminder At': '2099-12-14T19:00:00.000Z',
    })
    // a program: the mean of its courses' percents (100 and 0), in progress as one of them is begun
    expect(byName(rows, 'E-Auckland', 'Onboarding')).toMatchObject({
      Kind: 'program',
      ID: program.id,
      Status: 'in-progress',
      Percent: '50',
      'Due Date': '2099-12-20T09:30:00.000Z',
      'Due At': '2099-12-20T09:30:00.000Z',
    })
  })

  it('filters by status, course, program and due days', async () => {
    const late = (await exportRows({ status: 'overdue' })).rows
    expect(late.map((r) => r['Last Name'])).toEqual(['D-Late'])
    const sql101 = (await exportRows({ courses: [labCourse.id] })).rows
    expect(sql101.map((r) => [r['Last Name'], r.Title])).toEqual([['F-Labber', 'SQL Basics']])
    const programs = (await exportRows({ programs: [program.id] })).rows
    expect(programs.map((r) => r.Kind)).toEqual(['program'])
    const window = (await exportRows({ dueAfter: '2099-06-29', dueBefore: '2099-12-16' })).rows
    expect(window.map((r) => r['Last Name']).sort()).toEqual(['B-Going', 'C-Idle', 'E-Auckland'])
    // strictly before: the Auckland course, due on the 15th there, is not before the 15th
    expect((await exportRows({ dueAfter: '2099-12-01', dueBefore: '2099-12-15' })).rows).toEqual([])
    await expect(exportRows({ status: 'late' })).rejects.toBeInstanceOf(ZodError)
    await expect(exportRows({ dueBefore: '15/12/2099' })).rejects.toThrow(/Due before must be a date/)
  })

  it('neutralises a formula in a cell, and writes the same fields as JSON Lines', async () => {
    const { text } = await exportRows()
    expect(text).toContain(`'=HYPERLINK(""http://evil"")`)
    expect(text).not.toMatch(/(^|,)=HYPERLINK/m)
    const { rows } = await exportRows({ status: 'overdue' }, 'jsonl')
    expect(rows).toEqual([
      expect.objectContaining({ lastName: 'D-Late', status: 'overdue', percent: 5, lastReminder: null }),
    ])
  })

  it('is for those who read the people lists: coaches may, learners may not', async () => {
    const coach = await makeCoach()
    await expect(exportRows({}, 'csv', coach)).resolves.toMatchObject({ rows: expect.any(Array) })
    await expect(exportRows({}, 'csv', await makeLearner())).rejects.toThrow(/permission/)
  })

  it('downloads from the Scheduled exports page, a wrong filter refused in words', async () => {
    const coach = await makeCoach()
    const cookie = await sessionCookieFor(coach.email)
    const ok = await call(download.loader, '/admin/exports/assignments?status=overdue&format=csv', {
      headers: { Cookie: cookie },
    })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('Content-Disposition')).toMatch(/assignments-overdue-\d{4}-\d{2}-\d{2}\.csv/)
    const rows = parse(await ok.text(), { columns: true }) as Row[]
    expect(rows.map((r) => r['Last Name'])).toEqual(['D-Late'])
    const refused = await call(download.loader, '/admin/exports/assignments?status=late', {
      headers: { Cookie: cookie },
    })
    expect(refused.status).toBe(400)
    expect(await refused.text()).toMatch(/Status must be one of completed, overdue, in-progress, not-started/)
  })
})

describe('portal export assignments', () => {
  it('writes CSV to standard output, a summary with --json, and exits 2 on wrong usage', async () => {
    const csv = await portal(['export', 'assignments', '--status', 'overdue'])
    expect(csv.code).toBe(0)
    expect((parse(csv.stdout, { columns: true }) as Row[]).map((r) => r['Last Name'])).toEqual(['D-Late'])

    const dir = await mkdtemp(path.join(os.tmpdir(), 'assignments-'))
    const out = path.join(dir, 'all.jsonl')
    const summary = await portal([
      'export',
      'assignments',
      '--course',
      'SQL Basics',
      '--format',
      'jsonl',
      '--out',
      out,
      '--json',
    ])
    expect(summary.code).toBe(0)
    expect(JSON.parse(summary.stdout)).toMatchObject({ rows: 1, format: 'jsonl', location: out })
    expect(JSON.parse(await readFile(out, 'utf8'))).toMatchObject({ lastName: 'F-Labber', title: 'SQL Basics' })

    const wrong = await portal(['export', 'assignments', '--status', 'late'])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toMatch(/--status: Status must be one of/)
    expect((await portal(['export', 'assignments', '--json'])).code).toBe(2)
    const unknown = await portal(['export', 'assignments', '--program', 'No such program'])
    expect(unknown.code).toBe(2)
  })
})

describe('a schedule of assignments', () => {
  it('writes the assignments as they stand at its run into <name>_<day>.csv', async () => {
    const root = path.join(process.env.DATA_DIR!, 'exports')
    await mkdir(root, { recursive: true })
    const dir = `${await mkdtemp(path.join(root, 'assignments-'))}/`
    const made = await addSchedule(SYSTEM, {
      name: 'late-learners',
      cron: '0 6 * * *',
      kind: 'assignments',
      // an access log's days mean nothing here and are left aside
      range: 'yesterday',
      status: 'overdue',
      destination: dir,
    })
    expect(made).toMatchObject({ kind: 'assignments', range: null, status: 'overdue' })
    const queued = await runSchedule(SYSTEM, 'late-learners')
    await runExport(tryOf(queued.id, { lastTry: true }))
    const run = await findRun(SYSTEM, queued.id)
    expect(run).toMatchObject({ status: 'succeeded', rows: 1 })
    const [file] = await readdir(dir)
    expect(file).toMatch(/^late-learners_\d{4}-\d{2}-\d{2}\.csv$/)
    const rows = parse(await readFile(path.join(dir, file), 'utf8'), { columns: true }) as Row[]
    expect(rows.map((r) => [r['Last Name'], r.Status])).toEqual([['D-Late', 'overdue']])
  })

  it('is added with portal exports schedule add --kind assignments, which needs no --range', async () => {
    const dir = `${await mkdtemp(path.join(os.tmpdir(), 'assignments-cli-'))}/`
    const args = ['exports', 'schedule', 'add', '--name', 'cli-late', '--cron', '0 6 * * *', '--to', dir]
    const added = await portal([...args, '--kind', 'assignments', '--status', 'overdue', '--json'])
    expect(added.code).toBe(0)
    expect(JSON.parse(added.stdout)).toMatchObject({ kind: 'assignments', range: null, status: 'overdue' })
    const noRange = await portal([...args, '--name', 'cli-log'])
    expect(noRange.code).toBe(2)
    expect(noRange.stderr).toMatch(/missing --range/)
  })

  it('still needs a range for the access log, and a status only for the assignments', async () => {
    const base = { name: 'x', cron: '0 6 * * *', destination: '/var/exports/' }
    const issues = async (input: object) => {
      const error = await addSchedule(SYSTEM, { ...base, ...input }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ZodError)
      return Object.fromEntries((error as ZodError).issues.map((i) => [i.path.join('.'), i.message]))
    }
    expect(await issues({})).toEqual({ range: 'Range is required.' })
    expect(await issues({ range: 'yesterday', status: 'overdue' })).toEqual({
      status: 'Only an assignments export has a status.',
    })
    expect(await issues({ kind: 'reports' })).toMatchObject({ kind: 'Kind must be one of access-log, assignments.' })
  })
})

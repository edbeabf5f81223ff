import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import {
  assignMany,
  importAssignments,
  type AssignmentImportOptions,
  type AssignmentRowError,
} from '#app/modules/assignments/import.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { DUE_DATE_MESSAGE, TIME_ZONE_CHOICE_MESSAGE } from '#app/modules/deadlines/due.ts'
import { importUsers, type ImportError } from '#app/modules/users/import.server.ts'
import * as assignCourseRoute from '#app/routes/api+/category.assignCourse.$userId.ts'
import * as assignProgramRoute from '#app/routes/api+/program.assignProgram.ts'
import { sequelize } from '#db/client.ts'
import { makeAdmin, makeCourse, makeLearner, makeProgram } from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'

// Due dates where assignments are made in bulk: the assignments import (a dueDate column), one course or
// program for many learners (assignMany), the users import (courses and programs with "@date", a timeZone
// column) and the /api's assign calls. A day is stored as the day; an instant as that instant; a local
// time as the instant it is in the learner's own time zone.

const unique = () => randomBytes(3).toString('hex')
const file = (content: string) => Readable.from([Buffer.from(content)])

async function importFile(content: string, options: AssignmentImportOptions = {}) {
  const errors: AssignmentRowError[] = []
  const summary = await importAssignments(await makeAdmin(), file(content), {
    ...options,
    onRowError: (e) => errors.push(e),
  })
  return { summary, errors }
}

type Due = { dueDate: string | null; dueAt: string | null; plan: unknown }

/** The stored due date of an assignment: the day as YYYY-MM-DD, the instant as ISO, the plan. */
async function dueOf(kind: 'course' | 'program', userId: string, targetId: string): Promise<Due | undefined> {
  const [table, column] =
    kind === 'course' ? ['course_assignments', 'course_id'] : ['program_assignments', 'program_id']
  const [row] = await (
    await sequelize()
  ).query<{ due_date: string | null; due_at: Date | null; reminder_plan: unknown }>(
    `SELECT to_char(due_date, 'YYYY-MM-DD') AS due_date, due_at, reminder_plan FROM ${table}
      WHERE user_id = :userId AND ${column} = :targetId`,
    { replacements: { userId, targetId }, type: 'SELECT' as never },
  )
  if (!row) return undefined
  return { dueDate: row.due_date, dueAt: row.due_at && new Date(row.due_at).toISOString(), plan: row.reminder_plan }
}

async function setZone(userId: string, zone: string | null) {
  await (
    await sequelize()
  ).query('UPDATE users SET time_zone = :zone WHERE id = :userId', {
    replacements: { zone, userId },
  })
}

const day = (date: string) => ({ dueDate: date, dueAt: null, plan: null })
const at = (iso: string) => ({ dueDate: null, dueAt: iso, plan: null })

describe('the assignments import: a dueDate column', () => {
  it('reads days in several forms, instants, and local times in each learner’s time zone', async () => {
    const [ana, bo, cy, dee] = [await makeLearner(), await makeLearner(), await makeLearner(), await makeLearner()]
    await setZone(bo.id, 'America/New_York')
    await setZone(cy.id, 'Asia/Tokyo')
    const course = await makeCourse()
    const program = await makeProgram([course.id])
    const csv =
      `user,course,program,Due Date\n` +
      `${ana.email},${course.id},,15 Dec 2026\n` +
      `${bo.email},${course.id},${program.id},2026-12-15 17:00\n` +
      `${cy.email},${course.id},,2026-12-15 17:00\n` +
      `${dee.email},${course.id},,2026-12-15T17:00:00+01:00\n`
    const { summary, errors } = await importFile(csv)
    expect(errors).toEqual([])
    expect(summary).toMatchObject({ rows: 4, assigned: 5, already: 0, updated: 0, failed: 0, committed: true })
    expect(await dueOf('course', ana.id, course.id)).toEqual(day('2026-12-15'))
    // 17:00 in New York in December is 22:00 UTC; in Tokyo 08:00 UTC
    expect(await dueOf('course', bo.id, course.id)).toEqual(at('2026-12-15T22:00:00.000Z'))
    expect(await dueOf('program', bo.id, program.id)).toEqual(at('2026-12-15T22:00:00.000Z'))
    expect(await dueOf('course', cy.id, course.id)).toEqual(at('2026-12-15T08:00:00.000Z'))
    expect(await dueOf('course', dee.id, course.id)).toEqual(at('2026-12-15T16:00:00.000Z'))
  })

  it('takes "due" and "dueDate" as the header; a date changes an existing assignment, an empty cell keeps it', async () => {
    const [ana, bo] = [await makeLearner(), await makeLearner()]
    const course = await makeCourse()
    await importFile(
      `email,course,dueDate\n${ana.email},${course.id},2026-12-15\n${bo.email},${course.id},2026/11/01\n`,
    )
    const { summary, errors } = await importFile(
      `email;course;DUE\n${ana.email};${course.id};15.01.2027\n${bo.email};${course.id};\n`,
    )
    expect(errors).toEqual([])
    expect(summary).toMatchObject({ assigned: 0, already: 2, updated: 1 })
    expect(await dueOf('course', ana.id, course.id)).toEqual(day('2027-01-15'))
    expect(await dueOf('course', bo.id, course.id)).toEqual(day('2026-11-01'))
    // the same date again changes nothing
    const again = await importFile(`email,course,due\n${ana.email},${course.id},2027-01-15\n`)
    expect(again.summary).toMatchObject({ assigned: 0, already: 1, updated: 0 })
  })

  it('reports a bad date on its row with the row number, and writes the good rows', async () => {
    const [ana, bo, cy] = [await makeLearner(), await makeLearner(), await makeLearner()]
    const course = await makeCourse()
    const csv = `user,course,due date\n${ana.email},${course.id},2026-12-15\n${bo.email},${course.id},12/05/2026\n\n${cy.email},${course.id},2026-02-30\n`
    const { summary, errors } = await importFile(csv)
    expect(errors.map(({ row, field, message }) => ({ row, field, message }))).toEqual([
      { row: 3, field: 'due date', message: DUE_DATE_MESSAGE },
      { row: 5, field: 'due date', message: DUE_DATE_MESSAGE },
    ])
    expect(summary).toMatchObject({ rows: 3, assigned: 1, failed: 2, committed: true })
    expect(await dueOf('course', bo.id, course.id)).toBeUndefined()
    expect(await dueOf('course', cy.id, course.id)).toBeUndefined()
  })

  it('atomic: a bad date fails the whole file and writes nothing; a dry run writes nothing either', async () => {
    const [ana, bo] = [await makeLearner(), await makeLearner()]
    const course = await makeCourse()
    const csv = `user,course,due\n${ana.email},${course.id},2026-12-15\n${bo.email},${course.id},soon\n`
    const { summary, errors } = await importFile(csv, { atomic: true })
    expect(errors.map((e) => [e.row, e.message])).toEqual([[3, DUE_DATE_MESSAGE]])
    expect(summary).toMatchObject({ assigned: 1, failed: 1, committed: false })
    expect(await dueOf('course', ana.id, course.id)).toBeUndefined()

    const dry = await importFile(`user,course,due\n${ana.email},${course.id},2026-12-15\n`, { dryRun: true })
    expect(dry.summary).toMatchObject({ assigned: 1, committed: false })
    expect(await dueOf('course', ana.id, course.id)).toBeUndefined()
  })

  it('sets the dates of a large file in its batches', async () => {
    const course = await makeCourse()
    const learners = await Promise.all(Array.from({ length: 30 }, () => makeLearner()))
    await setZone(learners[0].id, 'Pacific/Kiritimati')
    const lines = learners.map((l, i) => `${l.email},${course.id},${i % 2 ? '2026-12-15' : '2026-12-15 09:30'}`)
    // a thousand rows a batch: the learners again and again, the first row of each naming the assignment
    const rows = Array.from({ length: 1100 }, (_, i) => lines[i % lines.length])
    const { summary } = await importFile(`user,course,due\n${rows.join('\n')}\n`)
    expect(summary).toMatchObject({ rows: 1100, assigned: 30, duplicates: 1070, failed: 0 })
    expect(await dueOf('course', learners[1].id, course.id)).toEqual(day('2026-12-15'))
    // UTC+14: 09:30 there is 19:30 UTC the day before
    expect(await dueOf('course', learners[0].id, course.id)).toEqual(at('2026-12-14T19:30:00.000Z'))
    expect(await dueOf('course', learners[2].id, course.id)).toEqual(at('2026-12-15T09:30:00.000Z'))
  })
})

describe('one course or program for many learners (assignMany)', () => {
  it('gives every learner the due date and plan, changes those assigned already, and removes them with null', async () => {
    const [ana, bo] = [await makeLearner(), await makeLearner()]
    await setZone(bo.id, 'Europe/Berlin')
    const course = await makeCourse()
    const learners = async function* () {
      yield { line: 1, user: ana.email }
      yield { line: 2, user: bo.userName }
    }
    await assignMany(SYSTEM, { action: 'assign', course: course.id }, learners())
    expect(await dueOf('course', ana.id, course.id)).toEqual({ dueDate: null, dueAt: null, plan: null })

    const plan = { before: [3], after: [1] }
    const dated = await assignMany(
      SYSTEM,
      { action: 'assign', course: course.id, dueDate: '2026-12-15 17:00', reminderPlan: plan },
      learners(),
    )
    expect(dated).toMatchObject({ changed: 0, unchanged: 2, updated: 2 })
    expect(await dueOf('course', ana.id, course.id)).toEqual({ ...at('2026-12-15T17:00:00.000Z'), plan })
    expect(await dueOf('course', bo.id, course.id)).toEqual({ ...at('2026-12-15T16:00:00.000Z'), plan })

    // absent keeps, null removes
    const kept = await assignMany(SYSTEM, { action: 'assign', course: course.id }, learners())
    expect(kept).toMatchObject({ updated: 0 })
    const removed = await assignMany(SYSTEM, { action: 'assign', course: course.id, dueDate: null }, learners())
    expect(removed).toMatchObject({ updated: 2 })
    expect(await dueOf('course', bo.id, course.id)).toEqual({ dueDate: null, dueAt: null, plan })
  })

  it('every learner at once, a program too; a bad date is refused before anything is written', async () => {
    const course = await makeCourse()
    const program = await makeProgram([course.id])
    const learner = await makeLearner()
    await expect(
      assignMany(SYSTEM, { action: 'assign', program: program.id, dueDate: '31/31/2026' }, 'all-learners'),
    ).rejects.toThrow(DUE_DATE_MESSAGE)
    expect(await dueOf('program', learner.id, program.id)).toBeUndefined()
    const summary = await assignMany(
      SYSTEM,
      { action: 'assign', program: program.id, dueDate: 'Dec 15, 2026' },
      'all-learners',
    )
    expect(summary.changed).toBeGreaterThanOrEqual(1)
    expect(await dueOf('program', learner.id, program.id)).toEqual(day('2026-12-15'))
    const moved = await assignMany(
      SYSTEM,
      { action: 'assign', program: program.id, dueDate: '2027-01-31' },
      'all-learners',
    )
    expect(moved.changed).toBe(0)
    expect(moved.updated).toBe(moved.users)
    expect(await dueOf('program', learner.id, program.id)).toEqual(day('2027-01-31'))
  })
})

describe('the users import: courses and programs with due dates, a timeZone column', () => {
  const header = 'firstName,lastName,email,userName,courses,programs,timeZone'
  const person = (t: string, courses: string, programs = '', zone = '') =>
    `Adaline,Lovelace,ada-${t}@example.com,ada-${t},"${courses}",${programs},${zone}`
  const run = async (text: string, options = {}) => importUsers(SYSTEM, Readable.from([Buffer.from(text)]), options)
  const idOf = async (email: string) => {
    const [row] = await (
      await sequelize()
    ).query<{ id: string; time_zone: string | null }>('SELECT id, time_zone FROM users WHERE email = :email', {
      replacements: { email },
      type: 'SELECT' as never,
    })
    return row
  }

  it('reads title@date per course and program, a local time in the zone the row gives the account', async () => {
    const t = unique()
    const basics = await makeCourse({ title: `SQL Basics ${t}` })
    const joins = await makeCourse({ title: `Joins ${t}` })
    // a title with an "@" of its own is still that title
    const mail = await makeCourse({ title: `Mail @ Work ${t}` })
    const program = await makeProgram([joins.id])
    const result = await run(
      `${header}\n` +
        person(
          t,
          `SQL Basics ${t}@2026-12-15; Joins ${t} @ 2026-12-15 17:00; Mail @ Work ${t}`,
          `${program.id}@15 Jan 2027`,
          'Asia/Tokyo',
        ) +
        '\n',
    )
    expect(result.errors).toEqual([])
    expect(result.counts).toMatchObject({ created: 1, assigned: 4, failed: 0 })
    const ada = await idOf(`ada-${t}@example.com`)
    expect(ada.time_zone).toBe('Asia/Tokyo')
    expect(await dueOf('course', ada.id, basics.id)).toEqual(day('2026-12-15'))
    expect(await dueOf('course', ada.id, joins.id)).toEqual(at('2026-12-15T08:00:00.000Z'))
    expect(await dueOf('course', ada.id, mail.id)).toEqual({ dueDate: null, dueAt: null, plan: null })
    expect(await dueOf('program', ada.id, program.id)).toEqual(day('2027-01-15'))

    // updating: a date changes an existing assignment's, no date keeps it; an empty zone keeps the account's
    const again = await run(`${header}\n${person(t, `SQL Basics ${t}@2027-02-01; Joins ${t}`)}\n`, {
      onExisting: 'update',
    })
    expect(again.errors).toEqual([])
    expect(await dueOf('course', ada.id, basics.id)).toEqual(day('2027-02-01'))
    expect(await dueOf('course', ada.id, joins.id)).toEqual(at('2026-12-15T08:00:00.000Z'))
    expect((await idOf(`ada-${t}@example.com`)).time_zone).toBe('Asia/Tokyo')
  })

  it('reports a bad date and a bad time zone on their row; atomic writes nothing', async () => {
    const t = unique()
    await makeCourse({ title: `Dated ${t}` })
    const text =
      `${header}\n` +
      `${person(`${t}a`, `Dated ${t}@2026-12-15`)}\n` +
      `${person(`${t}b`, `Dated ${t}@next week`)}\n` +
      `${person(`${t}c`, `Dated ${t}`, '', 'Mars/Olympus')}\n`
    const atomic = await run(text, { atomic: true })
    expect(atomic.errors.map(({ row, field, message }: ImportError) => ({ row, field, message }))).toEqual([
      { row: 3, field: 'courses', message: `"Dated ${t}@next week": ${DUE_DATE_MESSAGE}` },
      { row: 4, field: 'timeZone', message: TIME_ZONE_CHOICE_MESSAGE },
    ])
    expect(atomic.committed).toBe(false)
    expect(await idOf(`ada-${t}a@example.com`)).toBeUndefined()
    const result = await run(text)
    expect(result.counts).toMatchObject({ created: 1, failed: 2 })
  })
})

describe('the /api assign calls: dueDate and reminderPlan', () => {
  it('set, change, keep and remove a course’s due date; a bad date is a 400 naming the field', async () => {
    const admin = await makeAdmin()
    const learner = await makeLearner()
    await setZone(learner.id, 'America/Los_Angeles')
    const course = await makeCourse()
    const assign = (json: unknown) =>
      call(assignCourseRoute.action as never, '/x', {
        method: 'POST',
        json,
        token: admin.token,
        params: { userId: learner.id },
      })
    expect(await body(await assign({ courseId: course.id, dueDate: '2026-12-15' }))).toEqual({
      message: 'Course assigned.',
    })
    expect(await dueOf('course', learner.id, course.id)).toEqual(day('2026-12-15'))
    const changed = await assign({
      courseId: course.id,
      dueDate: '2026-07-01 09:00',
      reminderPlan: { before: [2], after: [] },
    })
    expect(await body(changed)).toEqual({
      message: 'This course was already assigned; its due date or reminder plan is changed.',
    })
    // 09:00 in Los Angeles in July (UTC−7)
    expect(await dueOf('course', learner.id, course.id)).toEqual({
      ...at('2026-07-01T16:00:00.000Z'),
      plan: { before: [2], after: [] },
    })
    expect(await body(await assign({ courseId: course.id }))).toEqual({ message: 'This course was already assigned.' })
    expect((await dueOf('course', learner.id, course.id))?.dueAt).toBe('2026-07-01T16:00:00.000Z')
    await assign({ courseId: course.id, dueDate: null, reminderPlan: null })
    expect(await dueOf('course', learner.id, course.id)).toEqual({ dueDate: null, dueAt: null, plan: null })

    for (const dueDate of [
      '12/05/2026',
      'tomorrow',
      42,
      { kind: 'day', date: '2026-02-31' },
      { kind: 'local', date: '2026-12-15', time: '25:00' },
    ]) {
      const refused = await assign({ courseId: course.id, dueDate })
      expect(refused.status).toBe(400)
      expect(await body(refused)).toEqual({ message: DUE_DATE_MESSAGE, errors: { dueDate: DUE_DATE_MESSAGE } })
    }
    expect(await dueOf('course', learner.id, course.id)).toEqual({ dueDate: null, dueAt: null, plan: null })
  })

  it('a program’s due date and plan through PUT assignProgram; a bad plan is a 400', async () => {
    const admin = await makeAdmin()
    const learner = await makeLearner()
    const program = await makeProgram([(await makeCourse()).id])
    const put = (json: unknown) =>
      call(assignProgramRoute.action as never, '/x', { method: 'PUT', json, token: admin.token })
    const first = await put({ userId: learner.id, programId: program.id, dueDate: '2026-12-15T17:00:00Z' })
    expect(await body(first)).toEqual({ message: 'Program assigned.' })
    expect(await dueOf('program', learner.id, program.id)).toEqual(at('2026-12-15T17:00:00.000Z'))
    const bad = await put({ userId: learner.id, programId: program.id, dueDate: '2026-13-01' })
    expect(bad.status).toBe(400)
    expect(await body(bad)).toMatchObject({ errors: { dueDate: DUE_DATE_MESSAGE } })
    const badPlan = await put({ userId: learner.id, programId: program.id, reminderPlan: { before: [-1], after: [] } })
    expect(badPlan.status).toBe(400)
    expect(await body(badPlan)).toHaveProperty('errors')
    expect(await dueOf('program', learner.id, program.id)).toEqual(at('2026-12-15T17:00:00.000Z'))
  })
})

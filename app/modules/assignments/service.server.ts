import { db, query, sql } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import { ROLE, type Actor } from '../auth/roles.ts'
import type { DueInput } from '../deadlines/due.ts'
import type { ReminderPlan } from '../deadlines/plan.ts'
import { storedDue } from '../deadlines/service.server.ts'
import { invalid, notFound } from '../errors.ts'
import { findUserRecord } from '../users/service.server.ts'
import {
  AssignCourseSchema,
  AssignmentDueSchema,
  AssignProgramSchema,
  NO_COURSE,
  NO_PROGRAM,
  type AssignCourseInput,
  type AssignmentDueInput,
  type AssignProgramInput,
} from './schema.ts'

// Who learns what: a course assigned directly, or every course of an assigned program. Assigning
// twice is harmless (the first assignment stands).

async function requireLearner(userId: string) {
  const { User } = await db()
  const user = await User.findByPk(userId, { attributes: ['id', 'roleId'] })
  if (!user) throw notFound('User not found.')
  if (user.roleId !== ROLE.learner) throw invalid('Courses and programs are assigned to learners.')
  return user
}

// Each assignment is one statement that finds the course or program and inserts in one go: the row it
// found is locked until the insert commits, so one removed at the same moment is either not found here
// or removed after the assignment (which goes with it), never a broken reference. An assignment already
// there is kept, with its due date and plan changed when the call gives them (:setDue, :setPlan).
const assignStatement = (table: 'course_assignments' | 'program_assignments', column: string, parent: string) =>
  sql(
    `WITH parent AS (SELECT id FROM ${parent} WHERE id = :parentId FOR KEY SHARE),
          written AS (
            INSERT INTO ${table} AS t (user_id, ${column}, assigned_by, due_date, due_at, reminder_plan)
            SELECT :userId, id, :by, :dueDate::date, :dueAt::timestamptz, :plan::jsonb FROM parent
            ON CONFLICT (user_id, ${column}) DO UPDATE
               SET due_date = CASE WHEN :setDue THEN EXCLUDED.due_date ELSE t.due_date END,
                   due_at = CASE WHEN :setDue THEN EXCLUDED.due_at ELSE t.due_at END,
                   reminder_plan = CASE WHEN :setPlan THEN EXCLUDED.reminder_plan ELSE t.reminder_plan END
             WHERE :setDue OR :setPlan
            RETURNING (xmax = 0) AS fresh)
     SELECT EXISTS (SELECT 1 FROM parent) AS found,
            EXISTS (SELECT 1 FROM written WHERE fresh) AS assigned,
            EXISTS (SELECT 1 FROM written WHERE NOT fresh) AS changed`,
  )

/** What assigning a course or a program takes: its statement, and the field and message when it is not found. */
const ASSIGN = {
  course: {
    statement: assignStatement('course_assignments', 'course_id', 'courses'),
    field: 'courseId',
    missing: NO_COURSE,
  },
  program: {
    statement: assignStatement('program_assignments', 'program_id', 'programs'),
    field: 'programId',
    missing: NO_PROGRAM,
  },
} as const

type DueFields = { dueDate?: DueInput | null; reminderPlan?: ReminderPlan | null }

/** The steps both share, once the actor may assign and the input is read: a learner, then one statement. */
async function assignToLearner(
  actor: Actor,
  kind: keyof typeof ASSIGN,
  userId: string,
  parentId: string,
  { dueDate, reminderPlan }: DueFields,
) {
  await requireLearner(userId)
  const { statement, field, missing } = ASSIGN[kind]
  const due = await storedDue(userId, dueDate ?? null)
  const [row] = await query<{ found: boolean; assigned: boolean; changed: boolean }>(statement, {
    userId,
    parentId,
    by: actor.id,
    dueDate: due.dueDate,
    dueAt: due.dueAt,
    plan: reminderPlan ? JSON.stringify(reminderPlan) : null,
    setDue: dueDate !== undefined,
    setPlan: reminderPlan !== undefined,
  })
  if (!row.found) throw invalid(missing, { [field]: missing })
  return { assigned: row.assigned, changed: row.changed }
}

/** POST /api/category/assignCourse/{userId}. */
export async function assignCourse(actor: Actor, input: AssignCourseInput) {
  requirePermission(actor, 'manage:people', 'Only admins can assign courses.')
  const { userId, courseId, ...due } = AssignCourseSchema.parse(input)
  return assignToLearner(actor, 'course', userId, courseId, due)
}

/** PUT /api/program/assignProgram: every course of the program, now and as it changes. */
export async function assignProgram(actor: Actor, input: AssignProgramInput) {
  requirePermission(actor, 'manage:people', 'Only admins can assign programs.')
  const { userId, programId, ...due } = AssignProgramSchema.parse(input)
  return assignToLearner(actor, 'program', userId, programId, due)
}

// Changing an assignment's due date or plan is its own statement rather than assigning again: an assignment
// removed meanwhile is a 404, never assigned anew by a form that only meant to move its date.
const setDueStatement = (table: 'course_assignments' | 'program_assignments', column: string) =>
  sql(
    `UPDATE ${table}
        SET due_date = CASE WHEN :setDue THEN :dueDate::date ELSE due_date END,
            due_at = CASE WHEN :setDue THEN :dueAt::timestamptz ELSE due_at END,
            reminder_plan = CASE WHEN :setPlan THEN :plan::jsonb ELSE reminder_plan END
      WHERE user_id = :userId AND ${column} = :parentId
      RETURNING 1`,
  )
const SET_DUE = {
  course: setDueStatement('course_assignments', 'course_id'),
  program: setDueStatement('program_assignments', 'program_id'),
} as const

const NOT_ASSIGNED = {
  course: 'This course is not assigned to the learner directly.',
  program: 'This program is not assigned to the learner.',
} as const

/**
 * Change the due date (null: none) and the reminder plan (null: the portal's; two empty lists: none) of a
 * course assigned directly or a program; absent, each is kept. Admins; 404 when it is not assigned.
 */
export async function setAssignmentDue(actor: Actor, input: AssignmentDueInput) {
  requirePermission(actor, 'manage:people', 'Only admins can change due dates.')
  const { userId, kind, id, dueDate, reminderPlan } = AssignmentDueSchema.parse(input)
  const due = await storedDue(userId, dueDate ?? null)
  const rows = await query(SET_DUE[kind], {
    userId,
    parentId: id,
    dueDate: due.dueDate,
    dueAt: due.dueAt,
    plan: reminderPlan ? JSON.stringify(reminderPlan) : null,
    setDue: dueDate !== undefined,
    setPlan: reminderPlan !== undefined,
  })
  if (rows.length === 0) throw notFound(NOT_ASSIGNED[kind])
}

/**
 * A program page's assigning: the program to each learner named (username or email), with one due date
 * for all of them (absent: a learner who has it already keeps theirs). Names that are no learner are
 * returned, not assigned; the others are.
 */
export async function assignProgramToLearners(
  actor: Actor,
  programId: string,
  input: { learners: string[]; dueDate?: DueInput | null },
) {
  requirePermission(actor, 'manage:people', 'Only admins can assign programs.')
  const missing: string[] = []
  let assigned = 0
  let changed = 0
  const users: string[] = []
  for (const name of input.learners) {
    const user = await findUserRecord(name)
    if (!user || user.roleId !== ROLE.learner) missing.push(name)
    else users.push(user.id)
  }
  if (missing.length)
    throw invalid(`Not a learner: ${missing.join(', ')}.`, { learners: `Not a learner: ${missing.join(', ')}.` })
  for (const userId of users) {
    const done = await assignProgram(actor, { userId, programId, dueDate: input.dueDate ?? undefined })
    if (done.assigned) assigned += 1
    else if (done.changed) changed += 1
  }
  return { assigned, changed, unchanged: users.length - assigned - changed }
}

import { db, query, sql } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import { ROLE, type Actor } from '../auth/roles.ts'
import { invalid, notFound } from '../errors.ts'
import {
  AssignCourseSchema,
  AssignProgramSchema,
  NO_COURSE,
  NO_PROGRAM,
  type AssignCourseInput,
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
// or removed after the assignment (which goes with it), never a broken reference.
const assignStatement = (table: 'course_assignments' | 'program_assignments', column: string, parent: string) =>
  sql(
    `WITH parent AS (SELECT id FROM ${parent} WHERE id = :parentId FOR KEY SHARE),
          inserted AS (
            INSERT INTO ${table} (user_id, ${column}, assigned_by) SELECT :userId, id, :by FROM parent
            ON CONFLICT (user_id, ${column}) DO NOTHING RETURNING user_id)
     SELECT EXISTS (SELECT 1 FROM parent) AS found, EXISTS (SELECT 1 FROM inserted) AS assigned`,
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

/** The steps both share, once the actor may assign and the input is read: a learner, then one statement. */
async function assignToLearner(actor: Actor, kind: keyof typeof ASSIGN, userId: string, parentId: string) {
  await requireLearner(userId)
  const { statement, field, missing } = ASSIGN[kind]
  const [row] = await query<{ found: boolean; assigned: boolean }>(statement, { userId, parentId, by: actor.id })
  if (!row.found) throw invalid(missing, { [field]: missing })
  return { assigned: row.assigned }
}

/** POST /api/category/assignCourse/{userId}. */
export async function assignCourse(actor: Actor, input: AssignCourseInput) {
  requirePermission(actor, 'manage:people', 'Only admins can assign courses.')
  const { userId, courseId } = AssignCourseSchema.parse(input)
  return assignToLearner(actor, 'course', userId, courseId)
}

/** PUT /api/program/assignProgram: every course of the program, now and as it changes. */
export async function assignProgram(actor: Actor, input: AssignProgramInput) {
  requirePermission(actor, 'manage:people', 'Only admins can assign programs.')
  const { userId, programId } = AssignProgramSchema.parse(input)
  return assignToLearner(actor, 'program', userId, programId)
}

import { db, query, sql } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import { ROLE, type Actor } from '../auth/roles.ts'
import { invalid, notFound } from '../errors.ts'
import { AssignCourseSchema, AssignProgramSchema, type AssignCourseInput, type AssignProgramInput } from './schema.ts'

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
const ASSIGN_COURSE = assignStatement('course_assignments', 'course_id', 'courses')
const ASSIGN_PROGRAM = assignStatement('program_assignments', 'program_id', 'programs')

/** POST /api/category/assignCourse/{userId}. */
export async function assignCourse(actor: Actor, input: AssignCourseInput) {
  requirePermission(actor, 'manage:people', 'Only admins can assign courses.')
  const { userId, courseId } = AssignCourseSchema.parse(input)
  await requireLearner(userId)
  const [row] = await query<{ found: boolean; assigned: boolean }>(ASSIGN_COURSE, {
    userId,
    parentId: courseId,
    by: actor.id,
  })
  if (!row.found)
    throw invalid('Course is a required field to assign', { courseId: 'Course is a required field to assign' })
  return { assigned: row.assigned }
}

/** PUT /api/program/assignProgram: every course of the program, now and as it changes. */
export async function assignProgram(actor: Actor, input: AssignProgramInput) {
  requirePermission(actor, 'manage:people', 'Only admins can assign programs.')
  const { userId, programId } = AssignProgramSchema.parse(input)
  await requireLearner(userId)
  const [row] = await query<{ found: boolean; assigned: boolean }>(ASSIGN_PROGRAM, {
    userId,
    parentId: programId,
    by: actor.id,
  })
  if (!row.found)
    throw invalid('Course is required field to assign', { programId: 'Course is required field to assign' })
  return { assigned: row.assigned }
}

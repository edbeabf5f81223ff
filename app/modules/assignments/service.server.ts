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

const ASSIGN_COURSE = sql(
  `INSERT INTO course_assignments (user_id, course_id, assigned_by) VALUES (:userId, :courseId, :by)
   ON CONFLICT (user_id, course_id) DO NOTHING RETURNING user_id`,
)
const ASSIGN_PROGRAM = sql(
  `INSERT INTO program_assignments (user_id, program_id, assigned_by) VALUES (:userId, :programId, :by)
   ON CONFLICT (user_id, program_id) DO NOTHING RETURNING user_id`,
)

/** POST /api/category/assignCourse/{userId}. */
export async function assignCourse(actor: Actor, input: AssignCourseInput) {
  requirePermission(actor, 'manage:people', 'Only admins can assign courses.')
  const { userId, courseId } = AssignCourseSchema.parse(input)
  await requireLearner(userId)
  const { Course } = await db()
  if (!(await Course.findByPk(courseId, { attributes: ['id'] })))
    throw invalid('Course is a required field to assign', { courseId: 'Course is a required field to assign' })
  const inserted = await query(ASSIGN_COURSE, { userId, courseId, by: actor.id })
  return { assigned: inserted.length > 0 }
}

/** PUT /api/program/assignProgram: every course of the program, now and as it changes. */
export async function assignProgram(actor: Actor, input: AssignProgramInput) {
  requirePermission(actor, 'manage:people', 'Only admins can assign programs.')
  const { userId, programId } = AssignProgramSchema.parse(input)
  await requireLearner(userId)
  const { Program } = await db()
  if (!(await Program.findByPk(programId, { attributes: ['id'] })))
    throw invalid('Course is required field to assign', { programId: 'Course is required field to assign' })
  const inserted = await query(ASSIGN_PROGRAM, { userId, programId, by: actor.id })
  return { assigned: inserted.length > 0 }
}

import { query, sql } from '#db/client.ts'
import { can } from '../auth/permissions.ts'
import { type Actor } from '../auth/roles.ts'
import { isUuid } from '../ids.ts'

// Who may open a course: kept apart from the course service so that modules the service uses
// (files) can ask without importing it back.

/** SQL for the ids of the courses assigned to :userId, directly or through a program. */
export const ASSIGNED_COURSE_IDS = `
  SELECT course_id FROM course_assignments WHERE user_id = :userId
  UNION
  SELECT pc.course_id FROM program_assignments pa
  JOIN program_courses pc ON pc.program_id = pa.program_id
  WHERE pa.user_id = :userId`

const ASSIGNED = sql(`SELECT 1 FROM (${ASSIGNED_COURSE_IDS}) a WHERE a.course_id = :courseId`)

/** May this user open this course? Admin side: any course; a learner: only assigned ones. */
export async function canOpenCourse(actor: Actor, courseId: string) {
  if (!isUuid(courseId)) return false
  if (can(actor, 'read:course:any')) return true
  if (!actor.id || !can(actor, 'read:course:assigned')) return false
  const rows = await query(ASSIGNED, { userId: actor.id, courseId })
  return rows.length > 0
}

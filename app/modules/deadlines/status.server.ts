import { courseDoneSql, dueAtSql, programDoneSql } from './service.server.ts'

// Where a learner stands with an assignment, in SQL, for whatever lists or exports assignments by status:
// completed (by the completion rule), overdue (not completed and the instant it falls due has passed),
// in progress (something of it watched or a lab of it attempted), or not started.

/** SQL: whether the learner has begun the course: a second of one of its videos played, or a lab of it attempted. */
const courseStartedSql = (userId: string, courseId: string) => `(
  EXISTS (SELECT 1 FROM video_progress vp
           WHERE vp.user_id = ${userId} AND vp.course_id = ${courseId} AND vp.watched_seconds > 0)
  OR EXISTS (SELECT 1 FROM lab_attempts la
               JOIN lab_exercises lx ON lx.id = la.exercise_id
               JOIN labs lab ON lab.id = lx.lab_id
              WHERE la.user_id = ${userId} AND lab.course_id = ${courseId}))`

/** SQL: whether the learner has begun any course of the program. */
const programStartedSql = (userId: string, programId: string) => `EXISTS (
  SELECT 1 FROM program_courses pc
   WHERE pc.program_id = ${programId} AND ${courseStartedSql(userId, 'pc.course_id')})`

/**
 * SQL: the status of a course assignment `a` (with user_id and course_id) of the learner `u`, one of
 * ASSIGNMENT_STATUSES; `:now` (a timestamptz) and `:defaultZone` must be bound.
 */
export const courseStatusSql = (a: string, u: string) => `CASE
  WHEN ${courseDoneSql(`${a}.user_id`, `${a}.course_id`)} THEN 'completed'
  WHEN ${dueAtSql(a, u)} <= :now THEN 'overdue'
  WHEN ${courseStartedSql(`${a}.user_id`, `${a}.course_id`)} THEN 'in-progress'
  ELSE 'not-started' END`

/** SQL: the status of a program assignment `a` (with user_id and program_id), as courseStatusSql. */
export const programStatusSql = (a: string, u: string) => `CASE
  WHEN ${programDoneSql(`${a}.user_id`, `${a}.program_id`)} THEN 'completed'
  WHEN ${dueAtSql(a, u)} <= :now THEN 'overdue'
  WHEN ${programStartedSql(`${a}.user_id`, `${a}.program_id`)} THEN 'in-progress'
  ELSE 'not-started' END`

import { query, sql } from '#db/client.ts'
import { courseDurationSql, toDuration, visibleVideoSql } from '../courses/duration.server.ts'
import { lockingPrerequisiteSql } from './prerequisites.ts'

// The progress rules, written once, for the course pages, My Courses and the heartbeat alike:
// which videos are locked, and how far along a course is.

/** The toast for a video whose prerequisites are not finished, in the old client's words. */
export const lockMessage = (titles: string[]) => `You have to finish ${titles.join(', ')} videos to unlock this video`

/**
 * Per video of the course: the titles of the prerequisites not yet completed by this learner. A
 * prerequisite that is hidden, or has no duration (it can never be completed), locks nothing.
 */
export async function lockedVideos(userId: string, courseId: string): Promise<Map<string, string[]>> {
  const rows = await query<{ video_id: string; titles: string[] }>(LOCKED_VIDEOS, { userId, courseId })
  return new Map(rows.map((r) => [r.video_id, r.titles]))
}

/**
 * The prerequisites that lock a video of :courseId for :userId, one row each (video_id, title, order_id):
 * those that lock at all and that the learner has not completed yet. A subquery with its own names, to
 * select from under any alias.
 */
export const UNFINISHED_PREREQUISITES_SQL = `
  SELECT vp.video_id, p.title, p.order_id
    FROM video_prerequisites vp
    JOIN content_entries p ON p.id = vp.prerequisite_id AND ${lockingPrerequisiteSql('p')}
    LEFT JOIN video_progress pr ON pr.video_id = p.id AND pr.user_id = :userId
   WHERE vp.course_id = :courseId AND NOT COALESCE(pr.completed, false)`

const LOCKED_VIDEOS = sql(
  `SELECT u.video_id, array_agg(u.title ORDER BY u.order_id) AS titles
     FROM (${UNFINISHED_PREREQUISITES_SQL}) u
    GROUP BY u.video_id`,
)

type CourseProgress = {
  /** seconds of visible video; null when a visible video has no duration */
  duration: number | null
  /** unique seconds watched of the visible videos, each video counted up to its duration */
  watched: number
  videoCount: number
  /** of the visible videos and labs, capped at 100 */
  percent: number
}

/**
 * Course percent (docs/product.md#progress): min(100, round(100 × done ÷ weight)), where the weight is the
 * known duration of the visible videos plus 60 × minutes of each visible lab, and what is done the seconds
 * watched of those videos plus each lab's share of its minutes by the points passed.
 */
function coursePercent(done: number, weight: number) {
  if (weight <= 0) return 0
  return Math.min(100, Math.round((100 * done) / weight))
}

/**
 * A learner's progress in one course, as a subquery of one row for `LEFT JOIN LATERAL (…) alias ON true`
 * (or to select from): `courseId` is the SQL that names the course (a column of the caller's query, or a
 * parameter), `userId` the SQL that names the learner (`:userId` unless given: a column, for a list of many
 * learners). Its columns are those of CourseProgressRow. A lab's credit is read from
 * lab_progress (the points the learner passed, kept by triggers), its total points only for a lab the
 * learner has passed something of.
 */
export const courseProgressSql = (courseId: string, userId = ':userId') => `
  SELECT v.duration, v.known_duration, v.watched, v.video_count, l.lab_seconds, l.lab_credit
    FROM (SELECT ${courseDurationSql('e')} AS duration,
                 COALESCE(SUM(e.duration), 0) AS known_duration,
                 COALESCE(SUM(LEAST(COALESCE(p.watched_seconds, 0), COALESCE(e.duration, 0))), 0) AS watched,
                 COUNT(e.id) AS video_count
            FROM content_entries e
            LEFT JOIN video_progress p ON p.video_id = e.id AND p.user_id = ${userId}
           WHERE e.course_id = ${courseId} AND ${visibleVideoSql('e')}) v
   CROSS JOIN
         (SELECT COALESCE(SUM(60 * lab.minutes), 0) AS lab_seconds,
                 COALESCE(SUM(CASE WHEN lp.passed_points > 0 THEN 60.0 * lab.minutes * lp.passed_points
                                    / (SELECT SUM(x.points) FROM lab_exercises x WHERE x.lab_id = lab.id) END), 0)
                   AS lab_credit
            FROM labs lab
            LEFT JOIN lab_progress lp ON lp.lab_id = lab.id AND lp.user_id = ${userId}
           WHERE lab.course_id = ${courseId} AND lab.visibility) l`

export type CourseProgressRow = {
  duration: string | null
  known_duration: string
  watched: string
  video_count: string
  /** 60 × minutes of the visible labs */
  lab_seconds: string
  /** of those, the learner's: each lab's seconds by the share of its points passed */
  lab_credit: string
}

export function toCourseProgress(row: CourseProgressRow): CourseProgress {
  const watched = Number(row.watched)
  return {
    duration: toDuration(row.duration),
    watched,
    videoCount: Number(row.video_count),
    // the videos with a duration still count when another lacks one
    percent: coursePercent(watched + Number(row.lab_credit), Number(row.known_duration) + Number(row.lab_seconds)),
  }
}

const COURSE_PROGRESS = sql(courseProgressSql(':courseId'))

/** One course's progress for one learner (nothing watched of nothing when there is no such course). */
export async function courseProgress(userId: string, courseId: string): Promise<CourseProgress> {
  const [row] = await query<CourseProgressRow>(COURSE_PROGRESS, { userId, courseId })
  return toCourseProgress(row)
}

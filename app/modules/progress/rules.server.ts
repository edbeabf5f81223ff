import { QueryTypes } from 'sequelize'
import { sequelize } from '#db/client.ts'
import { LOCKING_PREREQUISITE_SQL } from './prerequisites.ts'

// The progress rules, written once, for the course pages, My Courses and the heartbeat alike:
// which videos are locked, and how far along a course is.

/** The toast for a video whose prerequisites are not finished, in the old client's words. */
export const lockMessage = (titles: string[]) => `You have to finish ${titles.join(', ')} videos to unlock this video`

/**
 * Per video of the course: the titles of the prerequisites not yet completed by this learner. A
 * prerequisite that is hidden, or has no duration (it can never be completed), locks nothing.
 */
export async function lockedVideos(userId: string, courseId: string): Promise<Map<string, string[]>> {
  const rows = await (
    await sequelize()
  ).query<{ video_id: string; titles: string[] }>(
    `SELECT vp.video_id, array_agg(p.title ORDER BY p.order_id) AS titles
       FROM ${UNFINISHED_PREREQUISITES_SQL}
      GROUP BY vp.video_id`,
    { replacements: { userId, courseId }, type: QueryTypes.SELECT },
  )
  return new Map(rows.map((r) => [r.video_id, r.titles]))
}

/**
 * The FROM and WHERE of the prerequisites `p` (of videos `vp.video_id`) that lock a video of :courseId for
 * :userId: those that lock at all and that the learner has not completed yet.
 */
export const UNFINISHED_PREREQUISITES_SQL = `video_prerequisites vp
       JOIN content_entries p ON p.id = vp.prerequisite_id AND ${LOCKING_PREREQUISITE_SQL}
       LEFT JOIN video_progress pr ON pr.video_id = p.id AND pr.user_id = :userId
      WHERE vp.course_id = :courseId AND NOT COALESCE(pr.completed, false)`

export type CourseProgress = {
  /** seconds of visible video; null when a visible video has no duration */
  duration: number | null
  /** unique seconds watched of the visible videos, each video counted up to its duration */
  watched: number
  videoCount: number
  /** capped at 100 */
  percent: number
}

/** Course percent (docs/product.md#progress): min(100, round(100 × watched / duration)) over visible videos. */
export function coursePercent(watched: number, duration: number) {
  if (duration <= 0) return 0
  return Math.min(100, Math.round((100 * watched) / duration))
}

/** The content entries `e` that make up a course's length and progress: its visible videos. */
export const VISIBLE_VIDEO_SQL = `e.kind = 'video' AND e.visibility`

/**
 * A course's duration, aggregated over its visible videos `e`: their sum, or NULL ("Course Duration not
 * available") when there is none or one has no duration. The catalogue and the learner's pages share it.
 */
export const COURSE_DURATION_SQL = `CASE WHEN COUNT(e.id) > 0
    AND COUNT(e.id) FILTER (WHERE e.duration IS NULL OR e.duration = 0) = 0 THEN SUM(e.duration) END`

/** The SQL that sums a learner's progress per course; `:userId` and the courses come from the caller. */
export const COURSE_PROGRESS_COLUMNS = `
  ${COURSE_DURATION_SQL} AS duration,
  COALESCE(SUM(e.duration), 0) AS known_duration,
  COALESCE(SUM(LEAST(COALESCE(p.watched_seconds, 0), COALESCE(e.duration, 0))), 0) AS watched,
  COUNT(e.id) AS video_count`
export const COURSE_PROGRESS_JOINS = `
  LEFT JOIN content_entries e ON e.course_id = c.id AND ${VISIBLE_VIDEO_SQL}
  LEFT JOIN video_progress p ON p.video_id = e.id AND p.user_id = :userId`

export type CourseProgressRow = {
  duration: string | null
  known_duration: string
  watched: string
  video_count: string
}

export function toCourseProgress(row: CourseProgressRow): CourseProgress {
  return {
    duration: row.duration === null ? null : Number(row.duration),
    watched: Number(row.watched),
    videoCount: Number(row.video_count),
    // the videos with a duration still count when another lacks one
    percent: coursePercent(Number(row.watched), Number(row.known_duration)),
  }
}

/** One course's progress for one learner. */
export async function courseProgress(userId: string, courseId: string): Promise<CourseProgress> {
  const [row] = await (
    await sequelize()
  ).query<CourseProgressRow>(
    `SELECT ${COURSE_PROGRESS_COLUMNS} FROM courses c ${COURSE_PROGRESS_JOINS} WHERE c.id = :courseId GROUP BY c.id`,
    { replacements: { userId, courseId }, type: QueryTypes.SELECT },
  )
  return row ? toCourseProgress(row) : { duration: null, watched: 0, videoCount: 0, percent: 0 }
}

import { query, sql } from '#db/client.ts'

// How long a course is (ADR 007), written once and in SQL only: the sum of its visible videos'
// durations, or unknown ("Course Duration not available") when it has no visible video or one of them
// has no duration. The catalogue, My Courses, the course pages and the /api all read it from here.

/** The content entries aliased `entry` that make up a course's length and progress: its visible videos. */
export const visibleVideoSql = (entry: string) => `${entry}.kind = 'video' AND ${entry}.visibility`

/**
 * A course's duration, aggregated over its visible videos aliased `entry` (see visibleVideoSql): their
 * sum, or NULL when there is none or one has no duration.
 */
export const courseDurationSql = (entry: string) => `CASE WHEN COUNT(${entry}.id) > 0
    AND COUNT(${entry}.id) FILTER (WHERE ${entry}.duration IS NULL OR ${entry}.duration = 0) = 0 THEN SUM(${entry}.duration) END`

/** The duration as PostgreSQL answers it (a sum is a bigint, read as text) in seconds, or null. */
export const toDuration = (value: string | number | null): number | null => (value === null ? null : Number(value))

const COURSE_DURATION = sql(
  `SELECT ${courseDurationSql('e')} AS duration FROM content_entries e
    WHERE e.course_id = :courseId AND ${visibleVideoSql('e')}`,
)

/** One course's duration in seconds; null when it is not known (or there is no such course). */
export async function courseDuration(courseId: string): Promise<number | null> {
  const [row] = await query<{ duration: string | null }>(COURSE_DURATION, { courseId })
  return toDuration(row?.duration ?? null)
}

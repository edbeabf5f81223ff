import { QueryTypes } from 'sequelize'
import { sequelize } from '#db/client.ts'
import { isAdminSide, type Actor } from '../auth/roles.ts'
import { forbidden } from '../errors.ts'
import { AccessLogFilterSchema, type AccessLogFilter } from './schema.ts'

// The admin's access log (spec §2, §3 "Access log entry (admin report)"): per learner and video, how
// far they got and when they last watched. "How far" is the furthest second really played (the last
// set bit of the progress bitmap, whatever the video host), the playhead, or the furthest point the
// video audits saw, whichever is greatest; dates are whole UTC days.

/** One past the last second set in the bitmap: the furthest point played. */
const FURTHEST_PLAYED = `length(rtrim(p.watched::text, '0'))`

export type AccessLogEntry = {
  name: string
  firstName: string
  email: string
  courseName: string
  chapter: string
  videoDuration: number | null
  videoProgress: number
  lastViewed: string
}

export async function accessLogReport(
  actor: Actor,
  input: unknown,
  page: { offset?: number; limit?: number } = {},
): Promise<{ rows: AccessLogEntry[]; total: number; filter: AccessLogFilter }> {
  if (!isAdminSide(actor.roleId)) throw forbidden()
  const filter = AccessLogFilterSchema.parse(input)
  const where = [
    filter.startDate ? `p.updated_at >= CAST(:startDate AS date)` : null,
    filter.endDate ? `p.updated_at < CAST(:endDate AS date) + 1` : null,
    filter.courses.length ? `p.course_id IN (:courses)` : null,
  ].filter(Boolean)
  const replacements = {
    startDate: filter.startDate ?? null,
    endDate: filter.endDate ?? null,
    courses: filter.courses.length ? filter.courses : [null],
    limit: page.limit ?? null,
    offset: page.offset ?? 0,
  }
  const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : ''
  const sql = await sequelize()
  const [rows, [{ total }]] = await Promise.all([
    sql.query<{
      first_name: string
      last_name: string
      email: string
      course_name: string
      chapter: string
      video_duration: number | null
      video_progress: number
      last_viewed: Date
    }>(
      `SELECT u.first_name, u.last_name, u.email, c.title AS course_name, e.title AS chapter,
              -- a video the admin gave no duration: the length its player reported
              COALESCE(e.duration, a.video_duration, NULLIF(length(p.watched), 0)) AS video_duration,
              GREATEST(p.last_position, ${FURTHEST_PLAYED}, COALESCE(a.video_progress, 0)) AS video_progress,
              GREATEST(p.updated_at, COALESCE(a.last_viewed_at, p.updated_at)) AS last_viewed
         FROM video_progress p
         JOIN users u ON u.id = p.user_id
         JOIN content_entries e ON e.id = p.video_id
         JOIN courses c ON c.id = p.course_id
         LEFT JOIN video_audits a ON a.user_id = p.user_id AND a.video_id = p.video_id
        ${whereSql}
        ORDER BY p.updated_at DESC, p.user_id, p.video_id
        LIMIT :limit OFFSET :offset`,
      { replacements, type: QueryTypes.SELECT },
    ),
    sql.query<{ total: string }>(`SELECT count(*) AS total FROM video_progress p ${whereSql}`, {
      replacements,
      type: QueryTypes.SELECT,
    }),
  ])
  return {
    total: Number(total),
    filter,
    rows: rows.map((r) => ({
      name: `${r.first_name} ${r.last_name}`.trim(),
      firstName: r.first_name,
      email: r.email,
      courseName: r.course_name,
      chapter: r.chapter,
      videoDuration: r.video_duration,
      videoProgress: r.video_progress,
      lastViewed: new Date(r.last_viewed).toISOString(),
    })),
  }
}

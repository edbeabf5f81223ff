import { mapRows, pipeQuery, query, type RowStream, type Statement } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import { type Actor } from '../auth/roles.ts'
import { AccessLogFilterSchema, type AccessLogFilter } from './schema.ts'

// The admin's access log: per learner and video, how far they got and when they last watched.
//
// Every viewing is one row of video_viewings (migration 0007), written by both the progress heartbeat
// and the video audit, so a learner whose player sends only audits appears too, and Last Viewed and the
// date filter read the same latest view. "How far" is the furthest second really played (the last set
// bit of the progress bitmap, whatever the video host), the playhead, or the furthest point the video
// audits saw, whichever is greatest: the viewing row carries it (`furthest`, migration 0009), with the
// length the player reported, so a row of the report needs no lookup beyond the names. Dates are whole
// days in the filter's time zone (UTC by default).

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

/** One row of the report with the ids an export carries beside the names. */
export type AccessLogRow = {
  learner_id: string
  first_name: string
  last_name: string
  email: string
  course_id: string
  course_name: string
  video_id: string
  video_title: string
  video_duration: number | null
  video_progress: number
  last_viewed: Date
}

export type { Statement }

const NEWEST_FIRST = 'v.last_viewed_at DESC, v.user_id, v.video_id'

/** The viewings a filter selects, as a WHERE clause over `v` (video_viewings). */
function viewingConditions(filter: AccessLogFilter, values: unknown[]) {
  const param = (value: unknown) => `$${values.push(value)}`
  const zone = () => param(filter.timeZone)
  return [
    filter.startDate
      ? `v.last_viewed_at >= CAST(${param(filter.startDate)} AS date)::timestamp AT TIME ZONE ${zone()}`
      : null,
    filter.endDate
      ? `v.last_viewed_at < (CAST(${param(filter.endDate)} AS date) + 1)::timestamp AT TIME ZONE ${zone()}`
      : null,
  ].filter((c): c is string => c !== null)
}

/**
 * The report's rows for a filter, newest view first; a page when `page.limit` is given. With courses
 * chosen, each course's newest viewings come from its own index range and are merged, so the first
 * pages cost the same on ten rows or ten million.
 */
export function accessLogStatement(filter: AccessLogFilter, page: { offset?: number; limit?: number } = {}): Statement {
  const values: unknown[] = []
  const conditions = viewingConditions(filter, values)
  const offset = page.offset ?? 0
  const window = page.limit === undefined ? '' : `LIMIT ${offset + page.limit}`
  const chosen = filter.courses.length
    ? `SELECT v.* FROM unnest(CAST($${values.push(filter.courses)} AS uuid[])) AS chosen (course_id)
         CROSS JOIN LATERAL (
           SELECT v.* FROM video_viewings v
            WHERE v.course_id = chosen.course_id ${conditions.map((c) => `AND ${c}`).join(' ')}
            ORDER BY ${NEWEST_FIRST} ${window}) v`
    : `SELECT v.* FROM video_viewings v ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''}`
  const paging = page.limit === undefined ? '' : `LIMIT ${page.limit} OFFSET ${offset}`
  return {
    text: `
      SELECT u.id AS learner_id, u.first_name, u.last_name, u.email,
             c.id AS course_id, c.title AS course_name, e.id AS video_id, e.title AS video_title,
             -- a video the admin gave no duration: the length its player reported
             COALESCE(e.duration, v.seen_duration) AS video_duration,
             v.furthest AS video_progress,
             v.last_viewed_at AS last_viewed
        FROM (${chosen} ORDER BY ${NEWEST_FIRST} ${paging}) v
        JOIN users u ON u.id = v.user_id
        JOIN content_entries e ON e.id = v.video_id
        JOIN courses c ON c.id = v.course_id
       ORDER BY ${NEWEST_FIRST}`,
    values,
  }
}

/**
 * How many rows the report has for a filter. Whole UTC days are read from the per-day tallies, so the
 * pager's total costs no more on a big database; another time zone counts the rows themselves.
 */
export function accessLogTotalStatement(filter: AccessLogFilter): Statement {
  const values: unknown[] = []
  const param = (value: unknown) => `$${values.push(value)}`
  const courses = filter.courses.length ? `course_id = ANY(CAST(${param(filter.courses)} AS uuid[]))` : null
  if (filter.timeZone === 'UTC') {
    const where = [
      courses,
      filter.startDate ? `day >= CAST(${param(filter.startDate)} AS date)` : null,
      filter.endDate ? `day <= CAST(${param(filter.endDate)} AS date)` : null,
    ].filter(Boolean)
    return {
      text: `SELECT COALESCE(sum(viewings), 0) AS total FROM viewing_day_counts ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`,
      values,
    }
  }
  const where = [courses && `v.${courses}`, ...viewingConditions(filter, values)].filter(Boolean)
  return {
    text: `SELECT count(*) AS total FROM video_viewings v ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`,
    values,
  }
}

/** The filter an admin-side actor may run; anyone else is refused before the input is read. */
export function accessLogFilter(actor: Actor, input: unknown): AccessLogFilter {
  requirePermission(actor, 'read:access-log')
  return AccessLogFilterSchema.parse(input)
}

export async function accessLogReport(
  actor: Actor,
  input: unknown,
  page: { offset?: number; limit?: number } = {},
): Promise<{ rows: AccessLogEntry[]; total: number; filter: AccessLogFilter }> {
  const filter = accessLogFilter(actor, input)
  const [rows, [{ total }]] = await Promise.all([
    query<AccessLogRow>(accessLogStatement(filter, page)),
    query<{ total: string }>(accessLogTotalStatement(filter)),
  ])
  return { total: Number(total), filter, rows: rows.map(toEntry) }
}

/**
 * The whole report for the /api's unpaged calls, streamed from a cursor as the answer is sent; a
 * refused actor or filter throws here, before any row is read.
 */
export function accessLogStream(actor: Actor, input: unknown): RowStream {
  const statement = accessLogStatement(accessLogFilter(actor, input))
  return (sink, signal) => pipeQuery(statement, [mapRows(toEntry), sink], { signal })
}

/** How many rows the report has for a filter (what an export's progress counts towards). */
export async function accessLogTotal(actor: Actor, input: unknown): Promise<number> {
  const [{ total }] = await query<{ total: string }>(accessLogTotalStatement(accessLogFilter(actor, input)))
  return Number(total)
}

function toEntry(r: AccessLogRow): AccessLogEntry {
  return {
    name: `${r.first_name} ${r.last_name}`.trim(),
    firstName: r.first_name,
    email: r.email,
    courseName: r.course_name,
    chapter: r.video_title,
    videoDuration: r.video_duration,
    videoProgress: r.video_progress,
    lastViewed: new Date(r.last_viewed).toISOString(),
  }
}

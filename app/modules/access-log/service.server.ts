import { mapRows, pipeQuery, query, type RowStream, type Statement } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import { type Actor } from '../auth/roles.ts'
import { AccessLogFilterSchema, type AccessLogFilter } from './schema.ts'

// The admin's access log: per learner and video, how far they got and when they last watched; and, when the
// filter asks for them, per learner and lab exercise, how many attempts, whether one passed and when the last
// was made (ADR 037). Both kinds come newest first in one order.
//
// Every viewing is one row of video_viewings (migration 0007), written by both the progress heartbeat
// and the video audit, so a learner whose player sends only audits appears too, and Last Viewed and the
// date filter read the same latest view. "How far" is the furthest second really played (the last set
// bit of the progress bitmap, whatever the video host), the playhead, or the furthest point the video
// audits saw, whichever is greatest: the viewing row carries it (`furthest`, migration 0009), with the
// length the player reported, so a row of the report needs no lookup beyond the names. A learner's attempts
// at an exercise are folded the same way into one row of lab_exercise_results (migration 0020), whose time
// is the last attempt's. Hidden videos and labs, and courses no longer assigned, keep their rows: they are
// history. Dates are whole days in the filter's time zone (UTC by default).

type Person = { name: string; firstName: string; email: string; courseName: string; lastViewed: string }

/** A video row, as the /api has always answered it. */
type VideoEntry = Person & {
  chapter: string
  videoDuration: number | null
  videoProgress: number
}

/** A lab row: one learner's attempts at one exercise, `lastViewed` being the last attempt's time. */
type LabEntry = Person & {
  kind: 'lab'
  /** "Lab › Exercise", for a client that shows one title column */
  chapter: string
  lab: string
  exercise: string
  passed: boolean
  attempts: number
}

/** Without `includeLabs` the rows are videos, as they always were; with it each row says its kind. */
export type AccessLogEntry = VideoEntry | (VideoEntry & { kind: 'video' }) | LabEntry

/** One row of the report with the ids an export carries beside the names; the other kind's fields are null. */
export type AccessLogRow = {
  kind: 'video' | 'lab'
  learner_id: string
  first_name: string
  last_name: string
  email: string
  course_id: string
  course_name: string
  video_id: string | null
  video_title: string | null
  video_duration: number | null
  video_progress: number | null
  lab_id: string | null
  lab_title: string | null
  exercise_id: string | null
  exercise_title: string | null
  passed: boolean | null
  attempts: number | null
  last_viewed: Date
}

export type { Statement }

/**
 * Where each kind of row comes from: its table and time column, its columns as the report's union names them,
 * the order its indexes keep, and the per-day tally of its rows (whole UTC days, per course).
 */
const SOURCES = {
  video: {
    table: 'video_viewings',
    at: 'last_viewed_at',
    columns: `'video' AS kind, user_id, video_id AS item_id, course_id, last_viewed_at AS at,
              video_id, NULL::uuid AS exercise_id, furthest, seen_duration, NULL::integer AS attempts,
              NULL::boolean AS passed`,
    order: 'last_viewed_at DESC, user_id, video_id',
    tally: { table: 'viewing_day_counts', count: 'viewings' },
  },
  lab: {
    table: 'lab_exercise_results',
    at: 'last_attempt_at',
    columns: `'lab', user_id, exercise_id, course_id, last_attempt_at,
              NULL::uuid, exercise_id, NULL::integer, NULL::integer, attempts, passed`,
    order: 'last_attempt_at DESC, user_id, exercise_id',
    tally: { table: 'lab_result_day_counts', count: 'results' },
  },
} as const
type Source = (typeof SOURCES)[keyof typeof SOURCES]

const sourcesOf = (filter: AccessLogFilter): Source[] =>
  filter.includeLabs ? [SOURCES.video, SOURCES.lab] : [SOURCES.video]

/** The rows a filter's days select, as a WHERE clause over a source's time column. */
function dayConditions(filter: AccessLogFilter, at: string, values: unknown[]) {
  const param = (value: unknown) => `$${values.push(value)}`
  const zone = () => param(filter.timeZone)
  return [
    filter.startDate ? `${at} >= CAST(${param(filter.startDate)} AS date)::timestamp AT TIME ZONE ${zone()}` : null,
    filter.endDate ? `${at} < (CAST(${param(filter.endDate)} AS date) + 1)::timestamp AT TIME ZONE ${zone()}` : null,
  ].filter((c): c is string => c !== null)
}

const where = (conditions: string[]) => (conditions.length ? `WHERE ${conditions.join(' AND ')}` : '')

/**
 * The report's rows for a filter, newest first; a page when `page.limit` is given. Each kind of row is read
 * from its own index in that order and the two are merged. With courses chosen, each course's newest rows
 * come from its own index range and are merged, so the first pages cost the same on ten rows or ten million.
 */
export function accessLogStatement(filter: AccessLogFilter, page: { offset?: number; limit?: number } = {}): Statement {
  const values: unknown[] = []
  const offset = page.offset ?? 0
  const window = page.limit === undefined ? '' : `LIMIT ${offset + page.limit}`
  const sources = sourcesOf(filter)
  let rows: string
  if (filter.courses.length) {
    const chosen = `$${values.push(filter.courses)}`
    const perCourse = sources.map(
      (s) => `(SELECT ${s.columns} FROM ${s.table}
                ${where([`course_id = chosen.course_id`, ...dayConditions(filter, s.at, values)])}
                ORDER BY ${s.order} ${window})`,
    )
    rows = `SELECT s.* FROM unnest(CAST(${chosen} AS uuid[])) AS chosen (course_id)
              CROSS JOIN LATERAL (${perCourse.join(' UNION ALL ')}) s`
  } else {
    rows = sources
      .map((s) => `SELECT ${s.columns} FROM ${s.table} ${where(dayConditions(filter, s.at, values))}`)
      .join(' UNION ALL ')
  }
  const paging = page.limit === undefined ? '' : `LIMIT ${page.limit} OFFSET ${offset}`
  // a row looks up its names only: a video row's id is null on the lab side, and the other way round
  const labNames = filter.includeLabs
    ? {
        columns: 'l.id AS lab_id, l.title AS lab_title, x.id AS exercise_id, x.title AS exercise_title',
        joins: `LEFT JOIN lab_exercises x ON x.id = r.exercise_id
                LEFT JOIN labs l ON l.id = x.lab_id`,
      }
    : {
        columns:
          'NULL::uuid AS lab_id, NULL::text AS lab_title, NULL::uuid AS exercise_id, NULL::text AS exercise_title',
        joins: '',
      }
  return {
    text: `
      SELECT r.kind, u.id AS learner_id, u.first_name, u.last_name, u.email,
             c.id AS course_id, c.title AS course_name, e.id AS video_id, e.title AS video_title,
             -- a video the admin gave no duration: the length its player reported
             COALESCE(e.duration, r.seen_duration) AS video_duration,
             r.furthest AS video_progress,
             ${labNames.columns},
             r.passed, r.attempts,
             r.at AS last_viewed
        -- both kinds in one order: the row's time, then its learner and item (a video or an exercise)
        FROM (SELECT * FROM (${rows}) s ORDER BY at DESC, user_id, item_id ${paging}) r
        JOIN users u ON u.id = r.user_id
        JOIN courses c ON c.id = r.course_id
        LEFT JOIN content_entries e ON e.id = r.video_id
        ${labNames.joins}
       ORDER BY r.at DESC, r.user_id, r.item_id`,
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
  const counts = sourcesOf(filter).map((source) => {
    if (filter.timeZone === 'UTC') {
      const conditions = [
        courses,
        filter.startDate ? `day >= CAST(${param(filter.startDate)} AS date)` : null,
        filter.endDate ? `day <= CAST(${param(filter.endDate)} AS date)` : null,
      ].filter((c): c is string => c !== null)
      return `(SELECT COALESCE(sum(${source.tally.count}), 0) FROM ${source.tally.table} ${where(conditions)})`
    }
    const conditions = [courses, ...dayConditions(filter, source.at, values)].filter((c): c is string => c !== null)
    return `(SELECT count(*) FROM ${source.table} ${where(conditions)})`
  })
  return { text: `SELECT ${counts.join(' + ')} AS total`, values }
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
  return { total: Number(total), filter, rows: rows.map(toEntry(filter)) }
}

/**
 * The whole report for the /api's unpaged calls, streamed from a cursor as the answer is sent; a
 * refused actor or filter throws here, before any row is read.
 */
export function accessLogStream(actor: Actor, input: unknown): RowStream {
  const filter = accessLogFilter(actor, input)
  const statement = accessLogStatement(filter)
  return (sink, signal) => pipeQuery(statement, [mapRows(toEntry(filter)), sink], { signal })
}

/** How many rows the report has for a filter (what an export's progress counts towards). */
export async function accessLogTotal(actor: Actor, input: unknown): Promise<number> {
  const [{ total }] = await query<{ total: string }>(accessLogTotalStatement(accessLogFilter(actor, input)))
  return Number(total)
}

/** A row as the page and the /api show it; `kind` only when the filter asked for lab rows too. */
function toEntry(filter: AccessLogFilter): (r: AccessLogRow) => AccessLogEntry {
  return (r) => {
    const person = {
      name: `${r.first_name} ${r.last_name}`.trim(),
      firstName: r.first_name,
      email: r.email,
      courseName: r.course_name,
    }
    const lastViewed = new Date(r.last_viewed).toISOString()
    if (r.kind === 'lab') {
      const lab = r.lab_title ?? ''
      const exercise = r.exercise_title ?? ''
      return {
        kind: 'lab',
        ...person,
        chapter: `${lab} › ${exercise}`,
        lab,
        exercise,
        passed: r.passed ?? false,
        attempts: r.attempts ?? 0,
        lastViewed,
      }
    }
    const video = {
      ...person,
      chapter: r.video_title ?? '',
      videoDuration: r.video_duration,
      videoProgress: r.video_progress ?? 0,
      lastViewed,
    }
    return filter.includeLabs ? { kind: 'video', ...video } : video
  }
}

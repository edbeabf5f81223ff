import { QueryTypes } from 'sequelize'
import { sequelize, type Statement } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import { type Actor } from '../auth/roles.ts'
import { DASHBOARD_DAYS, DashboardQuerySchema, TOP_VIDEOS } from './schema.ts'

// The admin dashboard's figures on viewing. Each is read from a tally that triggers keep current, so
// none of them counts the millions of viewing or progress rows behind it (ADR 014):
//   active learners     learner_activity: the last UTC day each learner watched or opened a page
//   views per day       video_view_days: a learner's first view of a video on a day counts one
//   most-watched videos video_view_days again, summed per video
//   completion          course_completion_counts: per course, the learners assigned (directly or through a
//                       program, once) and those done, kept from course_completion_tallies (per learner and
//                       course, the visible videos and labs completed and whether the learner has the course)
//   lab pass rates      lab_progress (per learner and lab tried, the exercises passed and whether that is all),
//                       joined with the tallies for the learners who have the course: no attempt is read, but
//                       every learner who tried a visible lab is (about 150 ms for 120,000 of them)
// Days are UTC days; "the last 7 days" are today and the six days before.

export type ViewsOnDay = { day: string; views: number }
type CourseCompletion = {
  courseId: string
  title: string
  /** the course's visible videos and labs: what a learner must complete */
  videos: number
  labs: number
  /** learners who have the course, assigned directly or through one or more programs, each once */
  assigned: number
  /** of those, the learners who completed every visible video and every visible lab */
  completed: number
  /** whole percent of the assigned; null when nobody is assigned or the course has no visible video or lab */
  percent: number | null
}
/** A visible lab and how the learners who have its course fare with it. */
type LabPassRate = {
  labId: string
  title: string
  courseId: string
  courseTitle: string
  /** learners who have the course (as in completion) */
  assigned: number
  /** of those, the learners who made an attempt at the lab */
  tried: number
  /** of those, the learners who passed every exercise of it */
  completed: number
  /** whole percent of the assigned who completed it; null when nobody has the course */
  percent: number | null
}
type WatchedVideo = { videoId: string; title: string; courseId: string; courseTitle: string; views: number }

export type DashboardFigures = {
  /** the last day the figures cover (UTC), yyyy-MM-dd */
  today: string
  activeLearners: { last7Days: number; last30Days: number }
  /** one entry per day, oldest first, days without views included with 0 */
  viewsPerDay: ViewsOnDay[]
  completion: CourseCompletion[]
  /** every visible lab, by course title and the labs' order */
  labPassRates: LabPassRate[]
  topVideos: WatchedVideo[]
}

/** The UTC day the figures end on: the given one, or today. `$1` of every statement below. */
const TODAY = `COALESCE(CAST($1 AS date), utc_day(now()))`

/** The dashboard's queries, each a statement over `today` (null: the database's current UTC day). */
export function dashboardStatements(today: string | null): Record<DashboardQueryName, Statement> {
  const values = [today]
  return {
    activeLearners: {
      text: `SELECT to_char(${TODAY}, 'YYYY-MM-DD') AS today,
                    count(*) FILTER (WHERE last_active_on > ${TODAY} - 7) AS last7,
                    count(*) AS last30
               FROM learner_activity
              WHERE last_active_on > ${TODAY} - 30 AND last_active_on <= ${TODAY}`,
      values,
    },
    viewsPerDay: {
      text: `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, COALESCE(v.views, 0) AS views
               FROM (SELECT CAST(s AS date) AS day
                       FROM generate_series(${TODAY} - ${DASHBOARD_DAYS - 1}, ${TODAY}, interval '1 day') s) d
               LEFT JOIN (SELECT day, sum(views) AS views FROM video_view_days
                           WHERE day > ${TODAY} - ${DASHBOARD_DAYS} AND day <= ${TODAY}
                           GROUP BY day) v ON v.day = d.day
              ORDER BY d.day`,
      values,
    },
    topVideos: {
      text: `SELECT e.id AS video_id, e.title, c.id AS course_id, c.title AS course_title, t.views
               FROM (SELECT video_id, sum(views) AS views FROM video_view_days
                      WHERE day > ${TODAY} - ${DASHBOARD_DAYS} AND day <= ${TODAY}
                      GROUP BY video_id) t
               JOIN content_entries e ON e.id = t.video_id
               JOIN courses c ON c.id = e.course_id
              ORDER BY t.views DESC, lower(e.title), e.id
              LIMIT ${TOP_VIDEOS}`,
      values,
    },
    // completion is as of now, whatever the day
    completion: {
      text: `SELECT c.id AS course_id, c.title, COALESCE(v.videos, 0) AS videos, COALESCE(l.labs, 0) AS labs,
                    COALESCE(k.assigned, 0) AS assigned,
                    CASE WHEN v.videos > 0 OR l.labs > 0 THEN COALESCE(k.completed, 0) ELSE 0 END AS completed
               FROM courses c
               LEFT JOIN course_completion_counts k ON k.course_id = c.id
               LEFT JOIN (SELECT course_id, count(*) AS videos FROM content_entries
                           WHERE kind = 'video' AND visibility GROUP BY course_id) v ON v.course_id = c.id
               LEFT JOIN (SELECT course_id, count(*) AS labs FROM labs
                           WHERE visibility GROUP BY course_id) l ON l.course_id = c.id
              ORDER BY lower(c.title), c.id`,
      values: [],
    },
    // as of now too: the rows of lab_progress of the visible labs, each learner's tally telling whether they
    // have the course; one pass over them, grouped by lab
    labPassRates: {
      text: `SELECT l.id AS lab_id, l.title, c.id AS course_id, c.title AS course_title,
                    COALESCE(k.assigned, 0) AS assigned, COALESCE(r.tried, 0) AS tried,
                    COALESCE(r.completed, 0) AS completed
               FROM labs l
               JOIN courses c ON c.id = l.course_id
               LEFT JOIN course_completion_counts k ON k.course_id = l.course_id
               LEFT JOIN (SELECT p.lab_id, count(*) AS tried, count(*) FILTER (WHERE p.completed) AS completed
                            FROM lab_progress p
                            JOIN labs v ON v.id = p.lab_id AND v.visibility
                            JOIN course_completion_tallies t
                              ON t.user_id = p.user_id AND t.course_id = v.course_id AND t.assigned
                           GROUP BY p.lab_id) r ON r.lab_id = l.id
              WHERE l.visibility
              ORDER BY lower(c.title), c.id, l.order_id, lower(l.title), l.id`,
      values: [],
    },
  }
}
type DashboardQueryName = 'activeLearners' | 'viewsPerDay' | 'topVideos' | 'completion' | 'labPassRates'

/** Everything the dashboard shows on viewing. The admin side reads it (coaches too); learners are refused. */
export async function dashboardFigures(actor: Actor, input: unknown = {}): Promise<DashboardFigures> {
  requirePermission(actor, 'read:dashboard')
  const query = DashboardQuerySchema.parse(input)
  const sql = await sequelize()
  const statements = dashboardStatements(query.today ?? null)
  const run = <T extends object>({ text, values }: Statement) =>
    sql.query<T>(text, { bind: values, type: QueryTypes.SELECT })
  const [[active], days, completion, passRates, top] = await Promise.all([
    run<{ today: string; last7: string; last30: string }>(statements.activeLearners),
    run<{ day: string; views: string }>(statements.viewsPerDay),
    run<{ course_id: string; title: string; videos: string; labs: string; assigned: string; completed: string }>(
      statements.completion,
    ),
    run<{
      lab_id: string
      title: string
      course_id: string
      course_title: string
      assigned: string
      tried: string
      completed: string
    }>(statements.labPassRates),
    run<{ video_id: string; title: string; course_id: string; course_title: string; views: string }>(
      statements.topVideos,
    ),
  ])
  return {
    today: active.today,
    activeLearners: { last7Days: Number(active.last7), last30Days: Number(active.last30) },
    viewsPerDay: days.map((d) => ({ day: d.day, views: Number(d.views) })),
    completion: completion.map((c) => {
      const videos = Number(c.videos)
      const labs = Number(c.labs)
      const assigned = Number(c.assigned)
      const completed = Number(c.completed)
      return {
        courseId: c.course_id,
        title: c.title,
        videos,
        labs,
        assigned,
        completed,
        percent: assigned > 0 && videos + labs > 0 ? Math.round((100 * completed) / assigned) : null,
      }
    }),
    labPassRates: passRates.map((r) => {
      const assigned = Number(r.assigned)
      const completed = Number(r.completed)
      return {
        labId: r.lab_id,
        title: r.title,
        courseId: r.course_id,
        courseTitle: r.course_title,
        assigned,
        tried: Number(r.tried),
        completed,
        percent: assigned > 0 ? Math.round((100 * completed) / assigned) : null,
      }
    }),
    topVideos: top.map((t) => ({
      videoId: t.video_id,
      title: t.title,
      courseId: t.course_id,
      courseTitle: t.course_title,
      views: Number(t.views),
    })),
  }
}

import { db, query, sql } from '#db/client.ts'
import { can, requirePermission } from '../auth/permissions.ts'
import { type Actor } from '../auth/roles.ts'
import { fileInfo } from '../content/dto.ts'
import { courseDoneSql, defaultTimeZone, dueView, hasDueSql, zoneSql } from '../deadlines/service.server.ts'
import { forbidden, notFound, ServiceError } from '../errors.ts'
import { fileLink } from '../files/links.ts'
import { isUuid } from '../ids.ts'
import {
  courseProgress,
  courseProgressSql,
  lockedVideos,
  lockMessage,
  toCourseProgress,
  type CourseProgressRow,
} from '../progress/rules.server.ts'
import { searchPattern } from '../search.ts'
import { canOpenCourse } from './access.server.ts'
import type { CourseCard } from './dto.ts'

// The learner's view of their courses: My Courses with their progress, a course's page and one of
// its videos, with completion and locks.

/** My Courses' orders: the nearest due date first (the page's default), or by title (the /api's and the admin side's). */
export type CourseCardOrder = 'due' | 'title'

const BY_TITLE = 'lower(c.title), c.id'
// the courses still to do that have a due date, overdue first, then the soonest; the rest (no due date, or
// completed) after them by title
const BY_DUE = `(a.due_instant IS NOT NULL AND NOT done.completed) DESC,
             CASE WHEN NOT done.completed THEN a.due_instant END ASC NULLS LAST, ${BY_TITLE}`

// A course is assigned on its own, through programs, or both: each assignment may carry a due date, and the
// course is due at the earliest of them (the course's own when two fall at the same instant), read in the
// learner's time zone.
const assignedCoursesSql = (order: string, filter = 'c.title ILIKE :pattern') =>
  sql(
    `WITH learner AS (SELECT ${zoneSql('u')} AS zone FROM users u WHERE u.id = :userId),
     dues AS (
       SELECT ca.course_id, ca.due_date, ca.due_at, NULL::text AS program_title
         FROM course_assignments ca WHERE ca.user_id = :userId
       UNION ALL
       SELECT pc.course_id, pa.due_date, pa.due_at, p.title
         FROM program_assignments pa
         JOIN program_courses pc ON pc.program_id = pa.program_id
         JOIN programs p ON p.id = pa.program_id
        WHERE pa.user_id = :userId),
     assigned AS (
       SELECT DISTINCT ON (d.course_id) d.course_id, l.zone,
              CASE WHEN ${hasDueSql('d')} THEN d.due_date END AS due_date,
              assignment_due_at(d.due_date, d.due_at, l.zone) AS due_instant,
              CASE WHEN ${hasDueSql('d')} THEN d.program_title END AS due_program
         FROM dues d CROSS JOIN learner l
        ORDER BY d.course_id, assignment_due_at(d.due_date, d.due_at, l.zone) ASC NULLS LAST,
                 d.program_title ASC NULLS FIRST)
   SELECT c.id, c.title, c.description, c.image_key, f.name AS image_name,
          cp.duration, cp.known_duration, cp.watched, cp.video_count, cp.lab_seconds, cp.lab_credit,
          a.due_date::text AS due_date, a.due_instant, a.due_program, a.zone, done.completed
     FROM courses c
     JOIN assigned a ON a.course_id = c.id
     LEFT JOIN files f ON f.key = c.image_key
     LEFT JOIN LATERAL (${courseProgressSql('c.id')}) cp ON true
    CROSS JOIN LATERAL (SELECT ${courseDoneSql(':userId', 'c.id')} AS completed) done
    WHERE ${filter}
    ORDER BY ${order}`,
  )

const ASSIGNED_COURSES: Record<CourseCardOrder, ReturnType<typeof sql>> = {
  due: assignedCoursesSql(BY_DUE),
  title: assignedCoursesSql(BY_TITLE),
}

const ONE_ASSIGNED_COURSE = assignedCoursesSql(BY_TITLE, 'c.id = :courseId')

type AssignedCourseRow = CourseProgressRow & {
  id: string
  title: string
  description: string
  image_key: string | null
  image_name: string | null
  due_date: string | null
  due_instant: Date | null
  due_program: string | null
  zone: string
  completed: boolean
}

/**
 * My Courses: the courses assigned to the user with their progress, due date and completion. Percent is that
 * of the course's visible videos and labs (courseProgressSql), capped at 100. By title unless `order` says
 * `due` (My Courses' default: the nearest due date first).
 */
export async function listAssignedCourses(
  actor: Actor,
  options: { search?: string; userId?: string; order?: CourseCardOrder } = {},
): Promise<CourseCard[]> {
  if (!actor.id) throw forbidden()
  // a learner reads their own; the admin side anyone's (the user details page)
  const userId = options.userId ?? actor.id
  if (userId !== actor.id) requirePermission(actor, 'read:people', 'You can read only your own courses.')
  if (!isUuid(userId)) throw notFound('User not found.')
  const { pattern } = searchPattern(options.search)
  const rows = await query<AssignedCourseRow>(ASSIGNED_COURSES[options.order ?? 'title'], {
    userId,
    pattern,
    defaultZone: defaultTimeZone(),
  })
  return rows.map(courseCard)
}

function courseCard(row: AssignedCourseRow): CourseCard {
  const due = dueView(row)
  return {
    _id: row.id,
    title: row.title,
    description: row.description,
    courseImage: row.image_key ? fileInfo({ key: row.image_key, name: row.image_name ?? '' }) : null,
    ...toCourseProgress(row),
    due,
    dueProgram: due ? row.due_program : null,
    completed: row.completed,
  }
}

/**
 * A course's page, for a learner it is assigned to: when it is due (as My Courses says it) and whether it is
 * completed. Null for anyone else (the admin side has no due date of its own).
 */
export async function courseDue(
  actor: Actor,
  courseId: string,
): Promise<Pick<CourseCard, 'due' | 'dueProgram' | 'completed'> | null> {
  if (!actor.id || !can(actor, 'record:progress:own') || !isUuid(courseId)) return null
  const [row] = await query<AssignedCourseRow>(ONE_ASSIGNED_COURSE, {
    userId: actor.id,
    courseId,
    defaultZone: defaultTimeZone(),
  })
  if (!row) return null
  const { due, dueProgram, completed } = courseCard(row)
  return { due, dueProgram, completed }
}

export type VideoItem = {
  _id: string
  title: string
  description: string
  duration: number | null
  embedUrl: string
  preview: boolean
  orderId: number
  completed: boolean
  /** where the learner stopped last time, in seconds */
  lastPosition: number | null
  /** titles of unfinished prerequisites; empty when the video is open */
  lockedBy: string[]
}

type FileItem = { _id: string; name: string; link: string; orderId: number }

type CourseContents = {
  _id: string
  title: string
  description: string
  imageUrl: string | null
  /** sum of the visible videos' durations; null when one is missing */
  duration: number | null
  percent: number
  videos: VideoItem[]
  documents: FileItem[]
  scenarios: FileItem[]
}

/**
 * A course as the learner sees it: visible videos in order with completion and locks, visible
 * documents and scenarios. Not assigned (or not there): 404 for an unknown id, 403 otherwise.
 * Progress and locks are a learner's: the admin side, which records no progress, sees every video open.
 */
export async function getCourseContents(actor: Actor, courseId: string): Promise<CourseContents> {
  if (!isUuid(courseId)) throw notFound('Course not found.')
  const { Course, ContentEntry, VideoProgress, StoredFile } = await db()
  const course = await Course.findByPk(courseId)
  if (!course) throw notFound('Course not found.')
  if (!(await canOpenCourse(actor, courseId))) throw forbidden('This course is not assigned to you.')

  const entries = await ContentEntry.findAll({
    where: { courseId, visibility: true },
    include: [{ model: StoredFile, as: 'file', attributes: ['name'] }],
    order: [
      ['orderId', 'ASC'],
      ['createdAt', 'ASC'],
    ],
  })
  // the learner's id; progress and locks are theirs alone
  const learner = can(actor, 'record:progress:own') ? actor.id : null
  const progress = learner
    ? await VideoProgress.findAll({
        where: { userId: learner, courseId },
        attributes: ['videoId', 'completed', 'lastPosition'],
      })
    : []
  const completed = new Set(progress.filter((p) => p.completed).map((p) => p.videoId))
  const positions = new Map(progress.map((p) => [p.videoId, p.lastPosition]))
  const locks = learner ? await lockedVideos(learner, courseId) : new Map<string, string[]>()

  const videos: VideoItem[] = entries
    .filter((e) => e.kind === 'video')
    .map((e) => ({
      _id: e.id,
      title: e.title,
      description: e.description,
      duration: e.duration,
      embedUrl: e.embedUrl ?? '',
      preview: e.preview,
      orderId: e.orderId,
      completed: completed.has(e.id),
      lastPosition: positions.get(e.id) ?? null,
      lockedBy: locks.get(e.id) ?? [],
    }))
  const files = (kind: 'document' | 'scenario') =>
    entries
      .filter((e) => e.kind === kind && e.fileKey)
      .map((e) => ({
        _id: e.id,
        name: e.file?.name ?? e.title,
        link: fileLink(e.fileKey as string),
        orderId: e.orderId,
      }))

  const summary = actor.id ? await courseProgress(actor.id, courseId) : undefined
  return {
    _id: course.id,
    title: course.title,
    description: course.description,
    imageUrl: course.imageKey ? fileLink(course.imageKey) : null,
    duration: summary?.duration ?? null,
    percent: summary?.percent ?? 0,
    videos,
    documents: files('document'),
    scenarios: files('scenario'),
  }
}

/** A video of a course whose prerequisites are not finished yet: 403 with the lock message. */
export class VideoLocked extends ServiceError {
  constructor(titles: string[]) {
    super(403, lockMessage(titles))
  }
}

/**
 * One video page of a course: the course as getCourseContents gives it, the video and its place.
 * A learner is refused a locked video (VideoLocked); a hidden or unknown video is not found.
 */
export async function getCourseVideo(actor: Actor, courseId: string, videoId: string) {
  const course = await getCourseContents(actor, courseId)
  const index = course.videos.findIndex((v) => v._id === videoId)
  const video = course.videos[index]
  if (!video) throw notFound('Video not found.')
  if (video.lockedBy.length > 0) throw new VideoLocked(video.lockedBy)
  return { course, video, index }
}

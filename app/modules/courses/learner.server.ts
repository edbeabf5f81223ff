import { db, query, sql } from '#db/client.ts'
import { can, requirePermission } from '../auth/permissions.ts'
import { type Actor } from '../auth/roles.ts'
import { fileInfo } from '../content/dto.ts'
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
import { ASSIGNED_COURSE_IDS, canOpenCourse } from './access.server.ts'
import type { CourseCard } from './dto.ts'

// The learner's view of their courses: My Courses with their progress, a course's page and one of
// its videos, with completion and locks.

const ASSIGNED_COURSES = sql(
  `WITH assigned AS (${ASSIGNED_COURSE_IDS})
   SELECT c.id, c.title, c.description, c.image_key, f.name AS image_name,
          cp.duration, cp.known_duration, cp.watched, cp.video_count, cp.lab_seconds, cp.lab_credit
     FROM courses c
     JOIN assigned a ON a.course_id = c.id
     LEFT JOIN files f ON f.key = c.image_key
     LEFT JOIN LATERAL (${courseProgressSql('c.id')}) cp ON true
    WHERE c.title ILIKE :pattern
    ORDER BY lower(c.title), c.id`,
)

type AssignedCourseRow = CourseProgressRow & {
  id: string
  title: string
  description: string
  image_key: string | null
  image_name: string | null
}

/**
 * My Courses: the courses assigned to the user with their progress. Percent is that of the course's
 * visible videos and labs (courseProgressSql), capped at 100.
 */
export async function listAssignedCourses(
  actor: Actor,
  options: { search?: string; userId?: string } = {},
): Promise<CourseCard[]> {
  if (!actor.id) throw forbidden()
  // a learner reads their own; the admin side anyone's (the user details page)
  const userId = options.userId ?? actor.id
  if (userId !== actor.id) requirePermission(actor, 'read:people', 'You can read only your own courses.')
  if (!isUuid(userId)) throw notFound('User not found.')
  const { pattern } = searchPattern(options.search)
  const rows = await query<AssignedCourseRow>(ASSIGNED_COURSES, { userId, pattern })
  return rows.map((row) => ({
    _id: row.id,
    title: row.title,
    description: row.description,
    courseImage: row.image_key ? fileInfo({ key: row.image_key, name: row.image_name ?? '' }) : null,
    ...toCourseProgress(row),
  }))
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

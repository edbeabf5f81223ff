import { QueryTypes } from 'sequelize'
import { db, sequelize } from '#db/client.ts'
import { isAdminSide, ROLE, type Actor } from '../auth/roles.ts'
import { forbidden, notFound } from '../errors.ts'
import { fileLink } from '../files/links.ts'

/** SQL for the ids of the courses assigned to :userId, directly or through a program. */
const ASSIGNED_COURSE_IDS = `
  SELECT course_id FROM course_assignments WHERE user_id = :userId
  UNION
  SELECT pc.course_id FROM program_assignments pa
  JOIN program_courses pc ON pc.program_id = pa.program_id
  WHERE pa.user_id = :userId`

export type CourseCard = {
  id: string
  title: string
  description: string
  imageUrl: string | null
  /** seconds of visible video; null when a visible video has no duration */
  duration: number | null
  videoCount: number
  /** capped at 100 (spec §9) */
  percent: number
}

/**
 * My Courses: the courses assigned to the user with their progress. Percent is the unique seconds
 * watched of visible videos over their total duration (DESIGN.md §6), capped at 100.
 */
export async function listAssignedCourses(actor: Actor, options: { search?: string } = {}): Promise<CourseCard[]> {
  if (!actor.id) throw forbidden()
  const search = (options.search ?? '').trim()
  const rows = await (
    await sequelize()
  ).query<{
    id: string
    title: string
    description: string
    image_key: string | null
    duration: string
    watched: string
    video_count: string
    missing_duration: string
  }>(
    `WITH assigned AS (${ASSIGNED_COURSE_IDS})
     SELECT c.id, c.title, c.description, c.image_key,
            COALESCE(SUM(e.duration), 0) AS duration,
            COALESCE(SUM(LEAST(COALESCE(p.watched_seconds, 0), e.duration)), 0) AS watched,
            COUNT(e.id) AS video_count,
            COUNT(e.id) FILTER (WHERE e.duration IS NULL OR e.duration = 0) AS missing_duration
     FROM courses c
     JOIN assigned a ON a.course_id = c.id
     LEFT JOIN content_entries e ON e.course_id = c.id AND e.kind = 'video' AND e.visibility
     LEFT JOIN video_progress p ON p.video_id = e.id AND p.user_id = :userId
     WHERE c.title ILIKE :pattern
     GROUP BY c.id
     ORDER BY lower(c.title), c.id`,
    { replacements: { userId: actor.id, pattern: `%${escapeLike(search)}%` }, type: QueryTypes.SELECT },
  )
  return rows.map((row) => {
    const duration = Number(row.duration)
    const known = Number(row.video_count) > 0 && Number(row.missing_duration) === 0
    return {
      id: row.id,
      title: row.title,
      description: row.description,
      imageUrl: row.image_key ? fileLink(row.image_key) : null,
      duration: known ? duration : null,
      videoCount: Number(row.video_count),
      percent: coursePercent(Number(row.watched), duration),
    }
  })
}

export function coursePercent(watched: number, duration: number) {
  if (duration <= 0) return 0
  return Math.min(100, Math.round((100 * watched) / duration))
}

function escapeLike(text: string) {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`)
}

/** May this user open this course? Admin side: any course; a learner: only assigned ones. */
export async function canOpenCourse(actor: Actor, courseId: string) {
  if (isAdminSide(actor.roleId)) return true
  if (!actor.id || actor.roleId !== ROLE.learner) return false
  const rows = await (
    await sequelize()
  ).query(`SELECT 1 FROM (${ASSIGNED_COURSE_IDS}) a WHERE a.course_id = :courseId`, {
    replacements: { userId: actor.id, courseId },
    type: QueryTypes.SELECT,
  })
  return rows.length > 0
}

export type VideoItem = {
  id: string
  title: string
  description: string
  duration: number | null
  embedUrl: string
  preview: boolean
  orderId: number
  completed: boolean
  prerequisites: { id: string; title: string; completed: boolean }[]
  /** titles of unfinished prerequisites; empty when the video is open */
  lockedBy: string[]
}

export type FileItem = { id: string; name: string; link: string; orderId: number }

export type CourseContents = {
  id: string
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * A course as the learner sees it: visible videos in order with completion and locks, visible
 * documents and scenarios. Not assigned (or not there): 404 for an unknown id, 403 otherwise.
 */
export async function getCourseContents(actor: Actor, courseId: string): Promise<CourseContents> {
  if (!UUID.test(courseId)) throw notFound('Course not found.')
  const { Course, ContentEntry, VideoProgress, StoredFile } = await db()
  const course = await Course.findByPk(courseId)
  if (!course) throw notFound('Course not found.')
  if (!(await canOpenCourse(actor, courseId))) throw forbidden('This course is not assigned to you.')

  const entries = await ContentEntry.findAll({
    where: { courseId, visibility: true },
    include: [
      {
        model: ContentEntry,
        as: 'prerequisites',
        attributes: ['id', 'title', 'visibility'],
        through: { attributes: [] },
      },
      { model: StoredFile, as: 'file', attributes: ['name'] },
    ],
    order: [
      ['orderId', 'ASC'],
      ['createdAt', 'ASC'],
    ],
  })
  const progress = actor.id
    ? await VideoProgress.findAll({
        where: { userId: actor.id, courseId },
        attributes: ['videoId', 'completed', 'watchedSeconds'],
      })
    : []
  const completed = new Set(progress.filter((p) => p.completed).map((p) => p.videoId))
  const watched = new Map(progress.map((p) => [p.videoId, p.watchedSeconds]))

  const videos: VideoItem[] = entries
    .filter((e) => e.kind === 'video')
    .map((e) => {
      const prerequisites = (e.prerequisites ?? []).map((p) => ({
        id: p.id,
        title: p.title,
        completed: completed.has(p.id),
      }))
      return {
        id: e.id,
        title: e.title,
        description: e.description,
        duration: e.duration,
        embedUrl: e.embedUrl ?? '',
        preview: e.preview,
        orderId: e.orderId,
        completed: completed.has(e.id),
        prerequisites,
        lockedBy: prerequisites.filter((p) => !p.completed).map((p) => p.title),
      }
    })
  const files = (kind: 'document' | 'scenario') =>
    entries
      .filter((e) => e.kind === kind && e.fileKey)
      .map((e) => ({
        id: e.id,
        name: e.file?.name ?? e.title,
        link: fileLink(e.fileKey as string),
        orderId: e.orderId,
      }))

  const known = videos.length > 0 && videos.every((v) => v.duration)
  const total = videos.reduce((sum, v) => sum + (v.duration ?? 0), 0)
  const seen = videos.reduce((sum, v) => sum + Math.min(watched.get(v.id) ?? 0, v.duration ?? 0), 0)
  return {
    id: course.id,
    title: course.title,
    description: course.description,
    imageUrl: course.imageKey ? fileLink(course.imageKey) : null,
    duration: known ? total : null,
    percent: coursePercent(seen, total),
    videos,
    documents: files('document'),
    scenarios: files('scenario'),
  }
}

/** Counts for the admin dashboard cards; the admin side only. */
export async function dashboardCounts(actor: Actor) {
  if (!isAdminSide(actor.roleId)) throw forbidden()
  const { Course, User } = await db()
  const [courses, users, admins] = await Promise.all([
    Course.count(),
    User.count({ where: { roleId: ROLE.learner } }),
    User.count({ where: { roleId: [ROLE.admin, ROLE.superAdmin] } }),
  ])
  return { courses, users, admins }
}

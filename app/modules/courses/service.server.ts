import { col, fn, QueryTypes, where, type Transaction } from 'sequelize'
import { db, mapRows, pipeQuery, sequelize, type RowStream, type Statement } from '#db/client.ts'
import { can, requirePermission } from '../auth/permissions.ts'
import { ROLE, SYSTEM, type Actor } from '../auth/roles.ts'
import {
  courseDto,
  documentDto,
  fileInfo,
  videoDto,
  type CourseDto,
  type DocumentDto,
  type FileInfoDto,
  type VideoDto,
} from '../content/dto.ts'
import { EditCourseSchema, NewCourseSchema, type EditCourseInput, type NewCourseInput } from '../content/schema.ts'
import { assertContentManager } from '../content/service.server.ts'
import { conflict, forbidden, invalid, notFound, ServiceError } from '../errors.ts'
import { fileLink } from '../files/links.ts'
import { ASSIGNED_COURSE_IDS, canOpenCourse } from './access.server.ts'
import { removeStoredFile } from '../files/service.server.ts'
import {
  COURSE_DURATION_SQL,
  COURSE_PROGRESS_COLUMNS,
  COURSE_PROGRESS_JOINS,
  courseProgress,
  lockedVideos,
  lockMessage,
  toCourseProgress,
  VISIBLE_VIDEO_SQL,
  type CourseProgressRow,
} from '../progress/rules.server.ts'
import { isUuid } from '../ids.ts'
import { searchPattern } from '../search.ts'

export type CourseCard = {
  id: string
  title: string
  description: string
  imageUrl: string | null
  /** the old client's courseImage { key, link, name } */
  image: FileInfoDto | null
  /** seconds of visible video; null when a visible video has no duration */
  duration: number | null
  videoCount: number
  /** unique seconds watched of the visible videos */
  watched: number
  /** capped at 100 */
  percent: number
}

/**
 * My Courses: the courses assigned to the user with their progress. Percent is the unique seconds
 * watched of visible videos over their total duration (docs/product.md#progress), capped at 100.
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
  const rows = await (
    await sequelize()
  ).query<
    CourseProgressRow & {
      id: string
      title: string
      description: string
      image_key: string | null
      image_name: string | null
    }
  >(
    `WITH assigned AS (${ASSIGNED_COURSE_IDS})
     SELECT c.id, c.title, c.description, c.image_key, f.name AS image_name, ${COURSE_PROGRESS_COLUMNS}
     FROM courses c
     JOIN assigned a ON a.course_id = c.id
     LEFT JOIN files f ON f.key = c.image_key
     ${COURSE_PROGRESS_JOINS}
     WHERE c.title ILIKE :pattern
     GROUP BY c.id, f.key
     ORDER BY lower(c.title), c.id`,
    { replacements: { userId, pattern }, type: QueryTypes.SELECT },
  )
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    description: row.description,
    imageUrl: row.image_key ? fileLink(row.image_key) : null,
    image: row.image_key ? fileInfo({ key: row.image_key, name: row.image_name ?? '' }) : null,
    ...toCourseProgress(row),
  }))
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
  /** where the learner stopped last time, in seconds */
  lastPosition: number | null
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
  const learner = actor.roleId === ROLE.learner ? actor.id : null
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
      id: e.id,
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
        id: e.id,
        name: e.file?.name ?? e.title,
        link: fileLink(e.fileKey as string),
        orderId: e.orderId,
      }))

  const summary = actor.id ? await courseProgress(actor.id, courseId) : undefined
  return {
    id: course.id,
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

/** A video of a course whose prerequisites are not finished yet: 403 with the lock toast. */
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
  const index = course.videos.findIndex((v) => v.id === videoId)
  const video = course.videos[index]
  if (!video) throw notFound('Video not found.')
  if (video.lockedBy.length > 0) throw new VideoLocked(video.lockedBy)
  return { course, video, index }
}

/** Counts for the admin dashboard cards; the admin side only. */
export async function dashboardCounts(actor: Actor) {
  requirePermission(actor, 'read:dashboard', 'You do not have permission to do that.')
  const { Course, User } = await db()
  const [courses, users, admins] = await Promise.all([
    Course.count(),
    User.count({ where: { roleId: ROLE.learner } }),
    User.count({ where: { roleId: [ROLE.admin, ROLE.superAdmin] } }),
  ])
  return { courses, users, admins }
}

export { canOpenCourse }

// ——— The catalogue and course administration (the admin pages and the /api/category calls) ———

export type CatalogueQuery = {
  q?: string
  offset?: number
  /** undefined: the whole list (the /api's old client expects it) */
  limit?: number
  sort?: 'title' | 'createdAt' | 'duration'
  dir?: 'asc' | 'desc'
}

const CATALOGUE_ORDER = { title: 'lower(c.title)', createdAt: 'c.created_at', duration: 'duration' } as const

/**
 * Every course with its image and duration (the sum of its visible videos), searched by title and
 * paged on the server. Any signed-in user may read the catalogue; its contents are guarded apart.
 */
export async function listCatalogue(actor: Actor, query: CatalogueQuery = {}) {
  if (!actor.id && actor !== SYSTEM) throw forbidden()
  const sql = await sequelize()
  const run = <T extends object>({ text, values }: Statement) =>
    sql.query<T>(text, { bind: values, type: QueryTypes.SELECT })
  const [rows, [{ total }]] = await Promise.all([
    run<CatalogueRow>(catalogueStatement(query, { offset: query.offset ?? 0, limit: query.limit ?? null })),
    run<{ total: string }>({
      text: 'SELECT count(*) AS total FROM courses c WHERE c.title ILIKE $1',
      values: [searchPattern(query.q).pattern],
    }),
  ])
  return { rows: rows.map(catalogueDto), total: Number(total) }
}

/**
 * The whole catalogue for the /api's unpaged call: listCatalogue's rows in its order, streamed from a
 * cursor as the answer is sent. A refusal throws here, before any row is read.
 */
export function catalogueStream(actor: Actor, query: Omit<CatalogueQuery, 'offset' | 'limit'> = {}): RowStream {
  if (!actor.id && actor !== SYSTEM) throw forbidden()
  const statement = catalogueStatement(query)
  return (sink, signal) => pipeQuery(statement, [mapRows(catalogueDto), sink], { signal })
}

function catalogueStatement(query: CatalogueQuery, page?: { offset: number; limit: number | null }): Statement {
  const order = CATALOGUE_ORDER[query.sort ?? 'title'] ?? CATALOGUE_ORDER.title
  const dir = query.dir === 'desc' ? 'DESC' : 'ASC'
  return {
    text: `SELECT c.id, c.title, c.description, c.image_key, f.name AS image_name, c.created_at, c.updated_at,
              d.duration, d.video_count
       FROM courses c
       LEFT JOIN files f ON f.key = c.image_key
       LEFT JOIN LATERAL (
         SELECT ${COURSE_DURATION_SQL} AS duration, COUNT(e.id) AS video_count
         FROM content_entries e WHERE e.course_id = c.id AND ${VISIBLE_VIDEO_SQL}
       ) d ON true
       WHERE c.title ILIKE $1
       ORDER BY ${order} ${dir} NULLS LAST, c.id
       ${page ? 'LIMIT $2 OFFSET $3' : ''}`,
    values: [searchPattern(query.q).pattern, ...(page ? [page.limit, page.offset] : [])],
  }
}

type CatalogueRow = {
  id: string
  title: string
  description: string
  image_key: string | null
  image_name: string | null
  created_at: Date
  updated_at: Date
  duration: string | null
  video_count: string
}

function catalogueDto(row: CatalogueRow): CourseDto & { videoCount: number } {
  return {
    _id: row.id,
    title: row.title,
    description: row.description,
    courseImage: row.image_key ? fileInfo({ key: row.image_key, name: row.image_name ?? '' }) : null,
    duration: row.duration === null ? null : Number(row.duration),
    videoCount: Number(row.video_count),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  }
}

/** GET /api/category/coursesList: ids and titles, for pickers. */
export async function listCourseTitles(
  actor: Actor,
  /** a page of the list; without a limit, the whole list (the /api's old client expects it) */
  range: { offset?: number; limit?: number } = {},
) {
  if (!actor.id && actor !== SYSTEM) throw forbidden()
  const { Course } = await db()
  const { rows, count } = await Course.findAndCountAll({
    attributes: ['id', 'title'],
    order: [
      ['title', 'ASC'],
      ['id', 'ASC'],
    ],
    offset: range.offset ?? 0,
    limit: range.limit,
  })
  return { rows: rows.map((c) => ({ _id: c.id, title: c.title })), total: count }
}

/** The whole of listCourseTitles for the /api's unpaged call, streamed from a cursor in its order. */
export function courseTitleStream(actor: Actor): RowStream {
  if (!actor.id && actor !== SYSTEM) throw forbidden()
  const statement = { text: 'SELECT id, title FROM courses ORDER BY title ASC, id ASC', values: [] }
  const toRow = (record: { id: string; title: string }) => ({ _id: record.id, title: record.title })
  return (sink, signal) => pipeQuery(statement, [mapRows(toRow), sink], { signal })
}

/**
 * An uploaded image that may become a course's (or program's) picture: uploaded as an image and
 * not the picture of another course or program. `current` is the key the course already has;
 * `field` names the input a refusal belongs to.
 */
export async function attachableImage(
  key: string,
  current: string | null,
  transaction: Transaction,
  field: 'courseImage' | 'programImage' = 'courseImage',
) {
  const { StoredFile, Course, Program } = await db()
  if (key === current) return key
  const file = await StoredFile.findByPk(key, { transaction, lock: transaction.LOCK.UPDATE })
  const message = 'Please Upload the Image.'
  if (!file || (file.purpose !== 'course_image' && file.purpose !== 'program_image'))
    throw invalid(message, { [field]: message })
  const used =
    (await Course.count({ where: { imageKey: key }, transaction })) +
    (await Program.count({ where: { imageKey: key }, transaction }))
  if (used > 0) {
    const taken = 'That image already belongs to another course or program; upload it again.'
    throw conflict(taken, { [field]: taken })
  }
  return key
}

/** POST /api/category/course: a new course with its image. */
export async function createCourse(actor: Actor, input: NewCourseInput) {
  assertContentManager(actor)
  const data = NewCourseSchema.parse(input)
  const { Course, StoredFile } = await db()
  const id = await (
    await sequelize()
  ).transaction(async (transaction) => {
    // the same create twice (a double click, a retried request) makes one course: the uploaded
    // image names the request, and its row lock makes the second wait for the first
    await StoredFile.findByPk(data.courseImage, { transaction, lock: transaction.LOCK.UPDATE })
    const same = { imageKey: data.courseImage, title: data.title, description: data.description }
    const repeated = await Course.findOne({ where: same, attributes: ['id'], transaction })
    if (repeated) return repeated.id
    const imageKey = await attachableImage(data.courseImage, null, transaction)
    const course = await Course.create({ title: data.title, description: data.description, imageKey }, { transaction })
    return course.id
  })
  return getCourseDetail(actor, id)
}

/** PUT /api/category/editCourseDetails: title, description and image; a replaced image is deleted. */
export async function editCourseDetails(actor: Actor, input: EditCourseInput) {
  assertContentManager(actor)
  const data = EditCourseSchema.parse(input)
  const { Course } = await db()
  const replaced = await (
    await sequelize()
  ).transaction(async (transaction) => {
    const course = await Course.findByPk(data.courseId, { transaction, lock: transaction.LOCK.UPDATE })
    if (!course) throw notFound('Course not found.')
    const old = course.imageKey
    const imageKey = await attachableImage(data.courseImage, old, transaction)
    await course.update({ title: data.title, description: data.description, imageKey }, { transaction })
    return old && old !== imageKey ? old : null
  })
  if (replaced) await removeStoredFile(replaced)
  return getCourseDetail(actor, data.courseId)
}

export type CourseDetail = CourseDto & { videos: VideoDto[]; documents: DocumentDto[]; scenarios: DocumentDto[] }

/**
 * A course with its contents in order: everything for the admin side (with the visibility and
 * preview flags); only visible entries for a learner it is assigned to; 403 for anyone else.
 */
export async function getCourseDetail(actor: Actor, courseId: string): Promise<CourseDetail> {
  if (!isUuid(courseId)) throw notFound('Course not found.')
  const { Course, ContentEntry, StoredFile } = await db()
  const course = await Course.findByPk(courseId, { include: [{ model: StoredFile, as: 'image' }] })
  if (!course) throw notFound('Course not found.')
  if (!(await canOpenCourse(actor, courseId))) throw forbidden('This course is not assigned to you.')
  const everything = can(actor, 'read:course:any')
  const entries = await ContentEntry.findAll({
    where: everything ? { courseId } : { courseId, visibility: true },
    include: [
      {
        model: ContentEntry,
        as: 'prerequisites',
        attributes: ['id', 'title', 'visibility', 'duration'],
        through: { attributes: [] },
      },
      { model: StoredFile, as: 'file' },
    ],
    order: [
      ['orderId', 'ASC'],
      ['createdAt', 'ASC'],
    ],
  })
  const videos = entries.filter((e) => e.kind === 'video')
  return {
    ...courseDto(course, videos),
    // a learner is not told of hidden videos, prerequisites included (they lock nothing)
    videos: videos.map((v) => videoDto(v, { allPrerequisites: everything })),
    documents: entries.filter((e) => e.kind === 'document').map(documentDto),
    scenarios: entries.filter((e) => e.kind === 'scenario').map(documentDto),
  }
}

/** The course an operator names on the command line: its id or its exact title (any case). */
export async function findCourseByIdentifier(identifier: string) {
  const { Course } = await db()
  const text = identifier.trim()
  const courses = await Course.findAll({
    where: isUuid(text) ? { id: text } : sequelizeWhereTitle(text),
    attributes: ['id', 'title'],
    limit: 2,
  })
  if (courses.length === 0) throw notFound(`No course with the id or title "${text}".`)
  if (courses.length > 1) throw invalid(`Several courses are titled "${text}"; use the course id.`)
  return { id: courses[0].id, title: courses[0].title }
}

function sequelizeWhereTitle(title: string) {
  return where(fn('lower', col('title')), title.toLowerCase())
}

// ——— The public catalogue: Explore Courses, the course overview and free previews ———

/** Every course, for visitors too: catalogue fields only, never a video address. */
export async function listPublicCatalogue(query: { q?: string } = {}) {
  const { rows } = await listCatalogue(SYSTEM, { q: query.q, sort: 'title' })
  return rows
}

export type CourseOverview = CourseDto & {
  videos: { _id: string; title: string; description: string; duration: number | null; preview: boolean }[]
}

/** /course-view/{courseId}: the visible videos by title; which ones open as a free preview. */
export async function getCourseOverview(courseId: string): Promise<CourseOverview> {
  if (!isUuid(courseId)) throw notFound('Course not found.')
  const { Course, ContentEntry, StoredFile } = await db()
  const course = await Course.findByPk(courseId, { include: [{ model: StoredFile, as: 'image' }] })
  if (!course) throw notFound('Course not found.')
  const videos = await ContentEntry.findAll({
    where: { courseId, kind: 'video', visibility: true },
    attributes: ['id', 'title', 'description', 'duration', 'preview', 'visibility'],
    order: [
      ['orderId', 'ASC'],
      ['createdAt', 'ASC'],
    ],
  })
  return {
    ...courseDto(course, videos),
    videos: videos.map((v) => ({
      _id: v.id,
      title: v.title,
      description: v.description,
      duration: v.duration,
      preview: v.preview,
    })),
  }
}

export const NOT_FOR_PREVIEW = 'Video is not available for preview!!!'

/** /preview/{courseId}/{videoId}: a free-preview video, for anyone; any other video is refused. */
export async function getPreviewVideo(courseId: string, videoId: string) {
  const overview = await getCourseOverview(courseId)
  const index = overview.videos.findIndex((v) => v._id === videoId)
  const video = overview.videos[index]
  if (!video || !video.preview) throw forbidden(NOT_FOR_PREVIEW)
  const { ContentEntry } = await db()
  const entry = await ContentEntry.findByPk(videoId, { attributes: ['embedUrl'] })
  return { course: overview, video: { ...video, embedUrl: entry?.embedUrl ?? '' } }
}

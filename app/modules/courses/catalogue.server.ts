import { col, fn, where } from 'sequelize'
import { db, mapRows, pipeQuery, query, type RowStream, type Statement } from '#db/client.ts'
import { SYSTEM, type Actor } from '../auth/roles.ts'
import { forbidden, invalid, notFound } from '../errors.ts'
import { isUuid } from '../ids.ts'
import { searchPattern } from '../search.ts'
import { courseDto, type CourseDto } from './dto.ts'
import { courseDuration, courseDurationSql, toDuration, visibleVideoSql } from './duration.server.ts'

// Which courses there are: the catalogue every signed-in user reads (its contents are guarded apart),
// the title list for pickers, the public Explore Courses, course overview and free previews, and the
// course an operator names on the command line.

type CatalogueQuery = {
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
export async function listCatalogue(actor: Actor, catalogueQuery: CatalogueQuery = {}) {
  if (!actor.id && actor !== SYSTEM) throw forbidden()
  const page = { offset: catalogueQuery.offset ?? 0, limit: catalogueQuery.limit ?? null }
  const [rows, [{ total }]] = await Promise.all([
    query<CatalogueRow>(catalogueStatement(catalogueQuery, page)),
    query<{ total: string }>({
      text: 'SELECT count(*) AS total FROM courses c WHERE c.title ILIKE $1',
      values: [searchPattern(catalogueQuery.q).pattern],
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
         SELECT ${courseDurationSql('e')} AS duration, COUNT(e.id) AS video_count
         FROM content_entries e WHERE e.course_id = c.id AND ${visibleVideoSql('e')}
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
  const course = { ...row, createdAt: row.created_at, updatedAt: row.updated_at }
  const image = row.image_key ? { key: row.image_key, name: row.image_name ?? '' } : null
  return { ...courseDto(course, image, toDuration(row.duration)), videoCount: Number(row.video_count) }
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

type CourseOverview = CourseDto & {
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
    attributes: ['id', 'title', 'description', 'duration', 'preview'],
    order: [
      ['orderId', 'ASC'],
      ['createdAt', 'ASC'],
    ],
  })
  return {
    ...courseDto(course, course.image ?? null, await courseDuration(courseId)),
    videos: videos.map((v) => ({
      _id: v.id,
      title: v.title,
      description: v.description,
      duration: v.duration,
      preview: v.preview,
    })),
  }
}

const NOT_FOR_PREVIEW = 'Video is not available for preview!!!'

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

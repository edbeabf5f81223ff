import { ForeignKeyConstraintError, QueryTypes, type Transaction } from 'sequelize'
import { getEnv } from '#app/utils/env.server.ts'
import { db, sequelize, transaction } from '#db/client.ts'
import type { ContentEntry, ContentKind, StoredFile } from '#db/models/index.ts'
import { requirePermission } from '../auth/permissions.ts'
import { type Actor } from '../auth/roles.ts'
import { conflict, invalid, notFound, ServiceError } from '../errors.ts'
import { removeStoredFile } from '../files/service.server.ts'
import { accepts, acceptedTypesMessage } from '../files/types.server.ts'
import { isUuid } from '../ids.ts'
import { documentDto, kindOf, videoDto, type DocumentDto, type VideoDto } from './dto.ts'
import { normalizeEmbed } from './embed.ts'
import {
  AddDocumentSchema,
  EditDocumentSchema,
  EditVideoSchema,
  NewVideoSchema,
  ReorderSchema,
  type AddDocumentInput,
  type EditDocumentInput,
  type EditVideoInput,
  type NewVideoInput,
  type ReorderInput,
} from './schema.ts'

// Videos, documents and scenarios of a course: the admin's writes. Every change to a course's
// entries locks the course row first, so orderIds are computed and rewritten one writer at a time.

export function assertContentManager(actor: Actor) {
  requirePermission(actor, 'update:content')
}

const SUBMITTED_WORK = 'Learners have submitted assessments for this scenario; hide it instead of deleting it.'
const PREREQUISITE_MESSAGE = 'Prerequisite videos must be other videos of this course.'

/** The course row, locked for the rest of the transaction; 404 when there is none. */
async function lockCourse(courseId: string, transaction: Transaction) {
  const { Course } = await db()
  const course = await Course.findByPk(courseId, { transaction, lock: transaction.LOCK.UPDATE })
  if (!course) throw notFound('Course not found.')
  return course
}

/**
 * A video of the course, or one of its documents or scenarios, with the course locked first (lockCourse);
 * 404 when the ids are not ids or the entry is not that course's.
 */
async function lockedEntry<Of extends 'video' | 'document'>(
  courseId: string,
  entryId: string,
  of: Of,
  transaction: Transaction,
) {
  const missing = of === 'video' ? 'Video not found in this course.' : 'Document not found in this course.'
  if (!isUuid(courseId) || !isUuid(entryId)) throw notFound(missing)
  await lockCourse(courseId, transaction)
  const { ContentEntry } = await db()
  const entry = await ContentEntry.findOne({ where: { id: entryId, courseId }, transaction })
  if (!entry || (entry.kind === 'video') !== (of === 'video')) throw notFound(missing)
  return entry as ContentEntry & { kind: Of extends 'video' ? 'video' : Exclude<ContentKind, 'video'> }
}

async function nextOrderId(courseId: string, kind: ContentKind, transaction: Transaction) {
  const { ContentEntry } = await db()
  const max = (await ContentEntry.max('orderId', { where: { courseId, kind }, transaction })) as number | null
  return max === null ? 0 : max + 1
}

/** After a delete: the course's entries of that kind numbered 0, 1, 2 … again. */
async function renumber(courseId: string, kind: ContentKind, transaction: Transaction) {
  await (
    await sequelize()
  ).query(
    `UPDATE content_entries e SET order_id = n.position, updated_at = now()
     FROM (SELECT id, row_number() OVER (ORDER BY order_id, created_at, id) - 1 AS position
           FROM content_entries WHERE course_id = :courseId AND kind = :kind) n
     WHERE e.id = n.id AND e.order_id <> n.position`,
    { replacements: { courseId, kind }, transaction },
  )
}

/** Write positions 0, 1, 2 … for these ids, in one statement. */
async function writeOrder(ids: string[], transaction: Transaction) {
  await (
    await sequelize()
  ).query(
    `UPDATE content_entries e SET order_id = v.position, updated_at = now()
     FROM jsonb_to_recordset(CAST(:items AS jsonb)) AS v(id uuid, position integer)
     WHERE e.id = v.id AND e.order_id <> v.position`,
    { replacements: { items: JSON.stringify(ids.map((id, position) => ({ id, position }))) }, transaction },
  )
}

/**
 * An orderId given to one entry is where it goes: it moves there (clamped to the list) and the
 * others close up around it, so the list stays 0, 1, 2 … with no repeats or gaps.
 */
async function placeAt(
  courseId: string,
  kind: ContentKind,
  entryId: string,
  position: number,
  transaction: Transaction,
) {
  const { ContentEntry } = await db()
  const rows = await ContentEntry.findAll({
    where: { courseId, kind },
    attributes: ['id'],
    order: [
      ['orderId', 'ASC'],
      ['createdAt', 'ASC'],
      ['id', 'ASC'],
    ],
    transaction,
  })
  const others = rows.map((r) => r.id).filter((id) => id !== entryId)
  others.splice(Math.max(0, Math.min(position, others.length)), 0, entryId)
  await writeOrder(others, transaction)
}

function embedUrlOf(input: string) {
  const result = normalizeEmbed(input, getEnv().VIDEO_HOSTS)
  if (!result.ok) throw invalid(result.message, { embedUrl: result.message })
  return result.embedUrl
}

/**
 * Prerequisites must be other videos of the same course, and may not lead back to the video
 * itself through other videos (a cycle would lock every video in it forever).
 */
async function checkPrerequisites(
  courseId: string,
  videoId: string | null,
  ids: string[],
  transaction: Transaction,
): Promise<string[]> {
  const unique = [...new Set(ids)]
  if (unique.length === 0) return unique
  if (videoId && unique.includes(videoId))
    throw invalid('A video cannot be its own prerequisite.', {
      prerequisiteVideos: 'A video cannot be its own prerequisite.',
    })
  const { ContentEntry, VideoPrerequisite } = await db()
  const found = await ContentEntry.count({ where: { id: unique, courseId, kind: 'video' }, transaction })
  if (found !== unique.length) throw invalid(PREREQUISITE_MESSAGE, { prerequisiteVideos: PREREQUISITE_MESSAGE })
  if (!videoId) return unique // a new video has no dependents yet, so it cannot close a cycle

  const edges = await VideoPrerequisite.findAll({ where: { courseId }, transaction })
  const requires = new Map<string, string[]>()
  for (const edge of edges) {
    if (edge.videoId === videoId) continue // replaced by `unique`
    requires.set(edge.videoId, [...(requires.get(edge.videoId) ?? []), edge.prerequisiteId])
  }
  const seen = new Set<string>()
  const stack = [...unique]
  while (stack.length) {
    const next = stack.pop() as string
    if (next === videoId) {
      const message = 'These prerequisites would make the video require itself through other videos.'
      throw invalid(message, { prerequisiteVideos: message })
    }
    if (seen.has(next)) continue
    seen.add(next)
    stack.push(...(requires.get(next) ?? []))
  }
  return unique
}

/** The video's prerequisites, as checkPrerequisites gave them, in place of any it had. */
async function setPrerequisites(videoId: string, courseId: string, prerequisites: string[], transaction: Transaction) {
  const { VideoPrerequisite } = await db()
  await VideoPrerequisite.destroy({ where: { videoId }, transaction })
  await VideoPrerequisite.bulkCreate(
    prerequisites.map((prerequisiteId) => ({ videoId, prerequisiteId, courseId })),
    { transaction },
  )
}

async function loadVideo(id: string, transaction?: Transaction): Promise<ContentEntry> {
  const { ContentEntry } = await db()
  const video = await ContentEntry.findOne({
    where: { id, kind: 'video' },
    include: [{ model: ContentEntry, as: 'prerequisites', attributes: ['id', 'title'], through: { attributes: [] } }],
    transaction,
  })
  if (!video) throw notFound('Video not found.')
  return video
}

/** PUT /api/category/courseVideo/{relatedCourseId}: a new video at the end of the course. */
export async function createVideo(actor: Actor, input: NewVideoInput): Promise<VideoDto> {
  assertContentManager(actor)
  const data = NewVideoSchema.parse(input)
  const embedUrl = embedUrlOf(data.embedUrl)
  const { ContentEntry } = await db()
  const id = await transaction(async (transaction) => {
    await lockCourse(data.relatedCourse, transaction)
    const prerequisites = await checkPrerequisites(data.relatedCourse, null, data.prerequisiteVideos, transaction)
    const video = await ContentEntry.create(
      {
        courseId: data.relatedCourse,
        kind: 'video',
        orderId: await nextOrderId(data.relatedCourse, 'video', transaction),
        title: data.title,
        description: data.description,
        embedUrl,
        duration: data.duration ?? null,
        preview: data.preview,
        visibility: data.visibility,
      },
      { transaction },
    )
    await setPrerequisites(video.id, data.relatedCourse, prerequisites, transaction)
    return video.id
  })
  return videoDto(await loadVideo(id))
}

/**
 * PUT /api/category/editVideo/{videoId}: every field, the visibility and preview toggles (kept when
 * left out), prerequisites.
 */
export async function editVideo(actor: Actor, input: EditVideoInput): Promise<VideoDto> {
  assertContentManager(actor)
  const data = EditVideoSchema.parse(input)
  const embedUrl = embedUrlOf(data.embedUrl)
  await transaction(async (transaction) => {
    const video = await lockedEntry(data.courseId, data.videoId, 'video', transaction)
    const prerequisites = await checkPrerequisites(data.courseId, video.id, data.prerequisiteVideos, transaction)
    await video.update(
      {
        title: data.title,
        description: data.description,
        embedUrl,
        duration: data.duration === undefined ? video.duration : data.duration,
        preview: data.preview ?? video.preview,
        visibility: data.visibility ?? video.visibility,
      },
      { transaction },
    )
    if (data.orderId !== undefined) await placeAt(data.courseId, 'video', video.id, data.orderId, transaction)
    await setPrerequisites(video.id, data.courseId, prerequisites, transaction)
  })
  return videoDto(await loadVideo(data.videoId))
}

/**
 * DELETE /api/category/deleteVideo/{courseId}/{videoId}. Videos that listed it as a prerequisite
 * lose that prerequisite (they are named in the answer); progress on it goes with it; the other
 * videos are numbered 0, 1, 2 … again.
 */
export async function deleteVideo(actor: Actor, courseId: string, videoId: string) {
  assertContentManager(actor)
  return transaction(async (transaction) => {
    const video = await lockedEntry(courseId, videoId, 'video', transaction)
    const dependents = await dependentsOf(videoId, transaction)
    await video.destroy({ transaction })
    await renumber(courseId, 'video', transaction)
    return { title: video.title, unlocked: dependents }
  })
}

/** Titles of the videos that list this one as a prerequisite. */
async function dependentsOf(videoId: string, transaction?: Transaction): Promise<string[]> {
  const rows = await (
    await sequelize()
  ).query<{ title: string }>(
    `SELECT e.title FROM video_prerequisites p JOIN content_entries e ON e.id = p.video_id
     WHERE p.prerequisite_id = :videoId ORDER BY e.order_id`,
    { replacements: { videoId }, type: QueryTypes.SELECT, transaction },
  )
  return rows.map((r) => r.title)
}

/**
 * A new order's ids, first to last: each id once, at the places 0, 1, 2 … with no gaps or repeats;
 * refused otherwise. `noun` names what is ordered in the refusal.
 */
export function orderedIds(items: { _id: string; orderId: number }[], noun = 'item'): string[] {
  const ids = items.map((i) => i._id)
  if (new Set(ids).size !== ids.length) throw invalid(`Each ${noun} may appear only once in the new order.`)
  const positions = items.map((i) => i.orderId).sort((a, b) => a - b)
  if (positions.some((p, index) => p !== index))
    throw invalid('The orderIds must be 0, 1, 2 … with no gaps or repeats.')
  return [...items].sort((a, b) => a.orderId - b.orderId).map((i) => i._id)
}

/**
 * PUT /api/category/editVideoOrder and editDocumentOrder (list): the complete list of a course's
 * videos (or documents, or scenarios) with their zero-based positions, saved in one transaction.
 */
export async function reorderEntries(
  actor: Actor,
  target: 'videos' | 'files',
  input: ReorderInput,
  /** a page for one course's list (the rearrange pages) says which; the items must be that list */
  expected?: { courseId: string; kind?: ContentKind },
) {
  assertContentManager(actor)
  const ids = orderedIds(ReorderSchema.parse(input))

  const { ContentEntry } = await db()
  return transaction(async (transaction) => {
    const first = await ContentEntry.findByPk(ids[0], { attributes: ['courseId'], transaction })
    if (!first) throw notFound('Some of these items do not exist.')
    await lockCourse(first.courseId, transaction)
    const entries = await ContentEntry.findAll({
      where: { id: ids },
      attributes: ['id', 'courseId', 'kind'],
      transaction,
    })
    if (entries.length !== ids.length) throw notFound('Some of these items do not exist.')
    const kinds = new Set(entries.map((e) => e.kind))
    if (entries.some((e) => e.courseId !== first.courseId)) throw invalid('All items must belong to one course.')
    const kind = entries[0].kind
    const allowed = target === 'videos' ? kind === 'video' : kind !== 'video'
    if (!allowed || kinds.size !== 1)
      throw invalid(
        target === 'videos' ? 'Only videos can be ordered here.' : 'Order documents and scenarios separately.',
      )
    if (expected && (expected.courseId !== first.courseId || (expected.kind && expected.kind !== kind)))
      throw invalid('These items are not the list being rearranged.')
    const total = await ContentEntry.count({ where: { courseId: first.courseId, kind }, transaction })
    if (total !== ids.length)
      throw invalid(`Send every ${kind === 'video' ? 'video' : kind} of the course in the new order, each once.`)
    await writeOrder(ids, transaction)
    return { courseId: first.courseId, kind, count: ids.length }
  })
}

/**
 * A stored file that may become a course document or scenario: uploaded as a document, and not
 * already attached to another entry.
 */
async function attachableDocument(key: string, transaction: Transaction): Promise<StoredFile> {
  const { StoredFile, ContentEntry } = await db()
  const file = await StoredFile.findByPk(key, { transaction, lock: transaction.LOCK.UPDATE })
  if (!file) throw invalid('Please Upload a document', { document: 'Please Upload a document' })
  if (file.purpose !== 'document')
    throw invalid('That file was not uploaded as a course document.', { document: 'Please Upload a document' })
  if ((await ContentEntry.count({ where: { fileKey: key }, transaction })) > 0)
    throw conflict('That file is already attached to a document.', { document: 'Please Upload a document' })
  return file
}

async function loadDocument(id: string): Promise<ContentEntry> {
  const { ContentEntry, StoredFile } = await db()
  const entry = await ContentEntry.findByPk(id, { include: [{ model: StoredFile, as: 'file' }] })
  if (!entry || entry.kind === 'video') throw notFound('Document not found.')
  return entry
}

/** POST /api/category/addDocument: a document or scenario at the end of its list. */
export async function addDocument(actor: Actor, input: AddDocumentInput): Promise<DocumentDto> {
  assertContentManager(actor)
  const data = AddDocumentSchema.parse(input)
  const kind = kindOf(data.documentType)
  const { ContentEntry } = await db()
  const id = await transaction(async (transaction) => {
    await lockCourse(data.courseId, transaction)
    // the same file added to the same list again (a double click, a retried request): one entry
    const repeated = await ContentEntry.findOne({
      where: { fileKey: data.document, courseId: data.courseId, kind },
      attributes: ['id'],
      transaction,
    })
    if (repeated) return repeated.id
    const file = await attachableDocument(data.document, transaction)
    const entry = await ContentEntry.create(
      {
        courseId: data.courseId,
        kind,
        orderId: await nextOrderId(data.courseId, kind, transaction),
        title: file.name,
        fileKey: file.key,
      },
      { transaction },
    )
    return entry.id
  })
  return documentDto(await loadDocument(id))
}

/**
 * PUT /api/category/editDocumentOrder/{documentId}: visibility, orderId and, optionally, a new
 * file (csv, pdf or docx); the replaced file is deleted once the change is saved.
 */
export async function editDocument(actor: Actor, input: EditDocumentInput): Promise<DocumentDto> {
  assertContentManager(actor)
  const data = EditDocumentSchema.parse(input)
  const replaced = await transaction(async (transaction) => {
    const entry = await lockedEntry(data.courseId, data.documentId, 'document', transaction)
    let fileKey = entry.fileKey
    let title = entry.title
    if (data.document && data.document !== entry.fileKey) {
      const file = await attachableDocument(data.document, transaction)
      if (!accepts('documentEdit', file.contentType)) {
        const refusal = acceptedTypesMessage('documentEdit')
        throw new ServiceError(415, refusal, { document: refusal })
      }
      fileKey = file.key
      title = file.name
    }
    const old = entry.fileKey
    await entry.update({ visibility: data.visibility ?? entry.visibility, fileKey, title }, { transaction })
    if (data.orderId !== undefined) await placeAt(data.courseId, entry.kind, entry.id, data.orderId, transaction)
    return old !== fileKey ? old : null
  })
  if (replaced) await removeStoredFile(replaced)
  return documentDto(await loadDocument(data.documentId))
}

/**
 * DELETE /api/category/deleteDocument/{courseId}/{documentId}, with its file. A scenario that
 * learners have submitted assessments against is not deleted (their work would go with it).
 */
export async function deleteDocument(actor: Actor, courseId: string, documentId: string) {
  assertContentManager(actor)
  const { AssessmentUpload } = await db()
  const removed = await transaction(async (transaction) => {
    const entry = await lockedEntry(courseId, documentId, 'document', transaction)
    if (
      entry.kind === 'scenario' &&
      (await AssessmentUpload.count({ where: { scenarioId: entry.id }, transaction })) > 0
    )
      throw conflict(SUBMITTED_WORK)
    try {
      await entry.destroy({ transaction })
    } catch (error) {
      // an assessment submitted after the count above: the foreign key keeps it
      if (error instanceof ForeignKeyConstraintError) throw conflict(SUBMITTED_WORK)
      throw error
    }
    await renumber(courseId, entry.kind, transaction)
    return { fileKey: entry.fileKey, title: entry.title, kind: entry.kind }
  })
  if (removed.fileKey) await removeStoredFile(removed.fileKey)
  return { title: removed.title, kind: removed.kind }
}

import { randomUUID } from 'node:crypto'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { db } from '#db/client.ts'
import type { StoredFile } from '#db/models/index.ts'
import { isAdminSide, type Actor } from '../auth/roles.ts'
import { canOpenCourse } from '../courses/service.server.ts'
import { notFound, unauthorized } from '../errors.ts'
import { fileLink } from './links.ts'
import { storage } from './storage.server.ts'

export type FileInfo = { key: string; link: string; name: string }

type Purpose = StoredFile['purpose']

/**
 * Keep a file: the body goes to storage under a random key, its metadata to the files table.
 * If the row cannot be written the body is removed again, so nothing is left orphaned.
 */
export async function storeFile(input: {
  purpose: Purpose
  name: string
  contentType: string
  body: Buffer
  uploadedBy: string | null
}): Promise<FileInfo> {
  const { StoredFile } = await db()
  const extension = path
    .extname(input.name)
    .toLowerCase()
    .replace(/[^a-z0-9.]/g, '')
    .slice(0, 10)
  const key = `${randomUUID()}${extension}`
  await storage().put(key, input.body, input.contentType)
  try {
    await StoredFile.create({
      key,
      name: path.basename(input.name).slice(0, 255),
      contentType: input.contentType,
      size: input.body.length,
      purpose: input.purpose,
      uploadedBy: input.uploadedBy,
    })
  } catch (error) {
    await storage().remove(key)
    throw error
  }
  return { key, link: fileLink(key), name: input.name }
}

export type OpenedFile = { body: Readable; size: number; name: string; contentType: string; inline: boolean }

const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'application/pdf'])

/**
 * A stored file, if this caller may read it (DESIGN.md §7): course and program images are public;
 * documents and scenarios need the course (and, for a learner, a visible entry); assessment
 * uploads are for their owner and the admin side. Anything else looks like a missing file.
 */
export async function openFile(actor: Actor | undefined, key: string): Promise<OpenedFile> {
  const { StoredFile, ContentEntry, AssessmentUpload } = await db()
  const file = await StoredFile.findByPk(key)
  if (!file) throw notFound('File not found.')
  if (file.purpose === 'document') {
    if (!actor) throw unauthorized()
    const entry = await ContentEntry.findOne({ where: { fileKey: key }, attributes: ['courseId', 'visibility'] })
    const allowed =
      entry !== null &&
      (isAdminSide(actor.roleId) || (entry.visibility && (await canOpenCourse(actor, entry.courseId))))
    if (!allowed) throw notFound('File not found.')
  } else if (file.purpose === 'assessment') {
    if (!actor) throw unauthorized()
    const ownsUpload =
      file.uploadedBy === actor.id ||
      (await AssessmentUpload.count({ where: { fileKey: key, userId: actor.id ?? '' } })) > 0
    if (!isAdminSide(actor.roleId) && !ownsUpload) throw notFound('File not found.')
  }
  const stored = await storage().get(key)
  if (!stored) throw notFound('File not found.')
  return { ...stored, name: file.name, contentType: file.contentType, inline: INLINE_TYPES.has(file.contentType) }
}

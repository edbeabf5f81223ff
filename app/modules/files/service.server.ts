import { randomUUID } from 'node:crypto'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { QueryTypes, type Transaction } from 'sequelize'
import { getEnv } from '#app/utils/env.server.ts'
import { db, query, sequelize, sql } from '#db/client.ts'
import type { StoredFile } from '#db/models/index.ts'
import { can } from '../auth/permissions.ts'
import { type Actor } from '../auth/roles.ts'
import { canOpenCourse } from '../courses/access.server.ts'
import { notFound, ServiceError } from '../errors.ts'
import { fileLink, isInlineType } from './links.ts'
import { bodySize, storage, type StorageBody } from './storage.server.ts'

export type FileInfo = { key: string; link: string; name: string }

type Purpose = StoredFile['purpose']

/**
 * Keep a file: the body goes to storage under a random key, its metadata to the files table.
 * If the row cannot be written the body is removed again, so nothing is left orphaned.
 * `body` is the bytes, or a local file and its size (a streamed upload; see upload.server.ts).
 * `withinQuota`: an upload of `uploadedBy`'s, refused (429) when it would take their unattached
 * uploads past UPLOAD_UNATTACHED_MAX_MB; checked again under a lock of theirs as the row is written,
 * so two uploads at once, in any process, cannot both pass.
 */
export async function storeFile(input: {
  purpose: Purpose
  name: string
  contentType: string
  body: StorageBody
  uploadedBy: string | null
  withinQuota?: boolean
}): Promise<FileInfo> {
  const { StoredFile } = await db()
  const extension = path
    .extname(input.name)
    .toLowerCase()
    .replace(/[^a-z0-9.]/g, '')
    .slice(0, 10)
  const key = `${randomUUID()}${extension}`
  const name = storedFileName(input.name)
  const size = bodySize(input.body)
  const quotaOf = input.withinQuota && input.uploadedBy ? input.uploadedBy : undefined
  // refused before the body is stored, when it is clear already
  if (quotaOf) await checkUnattachedQuota(quotaOf, size)
  await storage().put(key, input.body, input.contentType)
  const row = { key, name, contentType: input.contentType, size, purpose: input.purpose, uploadedBy: input.uploadedBy }
  try {
    if (!quotaOf) await StoredFile.create(row)
    else {
      const connection = await sequelize()
      await connection.transaction(async (transaction) => {
        await connection.query('SELECT pg_advisory_xact_lock(:space, hashtext(:userId))', {
          replacements: { space: UPLOAD_QUOTA_LOCKS, userId: quotaOf },
          type: QueryTypes.SELECT,
          transaction,
        })
        await checkUnattachedQuota(quotaOf, size, transaction)
        await StoredFile.create(row, { transaction })
      })
    }
  } catch (error) {
    await removeBody(key)
    throw error
  }
  return { key, link: fileLink(key), name }
}

/** The advisory locks, one per user, that the quota is checked and an upload's row written under. */
const UPLOAD_QUOTA_LOCKS = 7_305_016

/** What one user may have uploaded that nothing uses yet (UPLOAD_UNATTACHED_MAX_MB). */
export function unattachedQuota(): { bytes: number; megabytes: number } {
  const megabytes = getEnv().UPLOAD_UNATTACHED_MAX_MB
  return { bytes: Math.floor(megabytes * 1024 * 1024), megabytes }
}

export const unattachedQuotaExceeded = () =>
  new ServiceError(
    429,
    `Your uploads that are not used anywhere yet would come to more than ${unattachedQuota().megabytes} MB. ` +
      'Use them first (save the form they are for), or try again tomorrow: unused uploads are removed after a day.',
  )

/**
 * The bytes of a user's uploads that nothing uses yet (the error files of their imports, which the
 * portal writes, aside).
 */
export async function unattachedBytesOf(userId: string, transaction?: Transaction): Promise<number> {
  const [{ bytes }] = await (
    await sequelize()
  ).query<{ bytes: string }>(
    `SELECT coalesce(sum(f.size), 0) AS bytes FROM files f
      WHERE f.uploaded_by = :userId AND f.purpose <> 'import_errors' AND ${UNATTACHED}`,
    { replacements: { userId }, type: QueryTypes.SELECT, transaction },
  )
  return Number(bytes)
}

/** Refuses (429) when `size` more bytes would take the user's unattached uploads past the quota. */
async function checkUnattachedQuota(userId: string, size: number, transaction?: Transaction) {
  if ((await unattachedBytesOf(userId, transaction)) + size > unattachedQuota().bytes) throw unattachedQuotaExceeded()
}

/** The longest name kept, in characters (the extension is kept whole). */
const MAX_NAME_CHARACTERS = 255

/**
 * A file's name as it is kept and served back: any name is accepted, without its folder (either
 * separator), control characters (NUL, line breaks) turned into spaces, and the characters that
 * reorder text removed (U+202E could make a name ending in `fdp.exe` read as `exe.pdf`); at most
 * 255 characters, the extension kept.
 */
function storedFileName(sent: string): string {
  const cleaned = sent
    // a lone surrogate (half a character) cannot be stored as UTF-8
    .replace(/\p{Cs}/gu, '\ufffd')
    .replace(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g, '')
    .replace(/\p{Cc}+/gu, ' ')
    .split(/[/\\]/)
    .at(-1)!
    .trim()
  const characters = [...(cleaned === '' || cleaned === '.' || cleaned === '..' ? 'file' : cleaned)]
  if (characters.length <= MAX_NAME_CHARACTERS) return characters.join('')
  const extension = [...path.extname(cleaned)].slice(0, 16)
  return [...characters.slice(0, MAX_NAME_CHARACTERS - extension.length), ...extension].join('')
}

/**
 * Forget a stored file: its row, then its body. The caller has already let go of it (deleted the
 * content entry, replaced the image); a body that cannot be removed is logged, not thrown, since
 * the row is gone and nothing links to the body any more.
 */
export async function removeStoredFile(key: string): Promise<void> {
  const { StoredFile } = await db()
  await StoredFile.destroy({ where: { key } })
  await removeBody(key)
}

async function removeBody(key: string) {
  try {
    await storage().remove(key)
  } catch (error) {
    console.error(`Could not remove the stored body of file ${key}:`, error)
  }
}

const UNATTACHED = `
  NOT EXISTS (SELECT 1 FROM courses c WHERE c.image_key = f.key OR c.certificate_signature_key = f.key)
  AND NOT EXISTS (SELECT 1 FROM programs p WHERE p.image_key = f.key OR p.certificate_signature_key = f.key)
  AND NOT EXISTS (SELECT 1 FROM content_entries e WHERE e.file_key = f.key)
  AND NOT EXISTS (SELECT 1 FROM assessment_uploads a WHERE a.file_key = f.key)
  AND NOT EXISTS (SELECT 1 FROM certificates x WHERE x.signature_key = f.key)`

/** An upload is attached by the request after it; one still unattached after a day never will be. */
export const UNATTACHED_FILE_LIFETIME_MS = 24 * 60 * 60 * 1000

const REMOVE_IF_UNUSED = sql(`DELETE FROM files f WHERE f.key = :key AND ${UNATTACHED} RETURNING f.key`)

/**
 * Remove a file its owner let go of (a replaced image or signature, a deleted program's), unless something still
 * refers to it: a certificate keeps the signature it was issued with. The check and the delete are one statement.
 */
export async function removeFileIfUnused(key: string): Promise<void> {
  const gone = await query<{ key: string }>(REMOVE_IF_UNUSED, { key })
  if (gone.length > 0) await removeBody(key)
}

const UNATTACHED_BEFORE = sql(
  `SELECT f.key FROM files f WHERE f.created_at < :cutoff AND ${UNATTACHED} ORDER BY f.created_at`,
)

/**
 * Remove uploads that nothing ever used: files no course or program (as its image or its certificates' signature),
 * content entry, assessment upload or certificate refers to, older than the cutoff (an upload is stored first and
 * attached by a later request, so a fresh one is left alone). Returns how many were removed.
 */
export async function sweepUnattachedFiles({ olderThanMs }: { olderThanMs: number }): Promise<number> {
  const connection = await sequelize()
  const cutoff = new Date(Date.now() - olderThanMs)
  const candidates = await query<{ key: string }>(UNATTACHED_BEFORE, { cutoff })
  let removed = 0
  for (const { key } of candidates) {
    // one at a time and checked again under the row's lock: an attach holds that lock until it
    // commits, so the check (a new snapshot, taken after the lock) sees a file attached meanwhile
    try {
      const deleted = await connection.transaction(async (transaction) => {
        const locked = await connection.query(`SELECT key FROM files WHERE key = :key FOR UPDATE SKIP LOCKED`, {
          replacements: { key },
          type: QueryTypes.SELECT,
          transaction,
        })
        if (locked.length === 0) return []
        return connection.query<{ key: string }>(
          `DELETE FROM files f WHERE f.key = :key AND ${UNATTACHED} RETURNING f.key`,
          {
            replacements: { key },
            type: QueryTypes.SELECT,
            transaction,
          },
        )
      })
      if (deleted.length === 0) continue
    } catch (error) {
      console.error(`Could not sweep file ${key}:`, error)
      continue
    }
    await removeBody(key)
    removed++
  }
  return removed
}

type OpenedFile = { body: Readable; size: number; name: string; contentType: string; inline: boolean }

/**
 * A stored file, if this caller may read it: course and program images are public;
 * documents and scenarios are for the admin side, and for a learner when the entry is visible and the
 * course is assigned to them (an upload not yet attached to an entry is the admin side's only);
 * assessment uploads are for their owner and the admin side; a certificate's signature image is for the
 * admin side (learners see it only drawn in their certificate's PDF). Anything else looks like a missing file,
 * so a link reveals nothing about what it points at.
 */
export async function openFile(actor: Actor | undefined, key: string): Promise<OpenedFile> {
  const { StoredFile } = await db()
  const file = await StoredFile.findByPk(key)
  if (!file || !(await mayOpen(actor, file))) throw notFound('File not found.')
  const stored = await storage().get(key)
  if (!stored) throw notFound('File not found.')
  return { ...stored, name: file.name, contentType: file.contentType, inline: isInlineType(file.contentType) }
}

async function mayOpen(actor: Actor | undefined, file: StoredFile): Promise<boolean> {
  const { ContentEntry, AssessmentUpload } = await db()
  switch (file.purpose) {
    case 'course_image':
    case 'program_image':
      return true
    case 'document': {
      if (!actor) return false
      if (can(actor, 'read:course:any')) return true
      if (!can(actor, 'read:course:assigned')) return false
      const entry = await ContentEntry.findOne({
        where: { fileKey: file.key },
        attributes: ['courseId', 'visibility'],
      })
      return entry !== null && entry.visibility && (await canOpenCourse(actor, entry.courseId))
    }
    case 'assessment': {
      if (!actor) return false
      if (can(actor, 'review:assessment')) return true
      if (!actor.id) return false
      if (file.uploadedBy === actor.id) return true
      return (await AssessmentUpload.count({ where: { fileKey: file.key, userId: actor.id } })) > 0
    }
    case 'certificate_signature':
      return can(actor, 'read:certificates')
    default:
      return false
  }
}

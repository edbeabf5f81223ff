import { PDFDocument } from 'pdf-lib'
import type { Transaction } from 'sequelize'
import type { z } from 'zod'
import { db, select, transaction } from '#db/client.ts'
import type { Course, Program } from '#db/models/index.ts'
import { requirePermission } from '../auth/permissions.ts'
import type { Actor } from '../auth/roles.ts'
import { fileInfo, type FileInfoDto } from '../content/dto.ts'
import { conflict, invalid, notFound } from '../errors.ts'
import { removeFileIfUnused } from '../files/service.server.ts'
import { storage } from '../files/storage.server.ts'
import { uploadLimit } from '../files/types.server.ts'
import { isUuid } from '../ids.ts'
import { type CertificateFields, CertificateSettingsFormSchema, ISSUER_REQUIRED } from './settings.ts'

// A course's or program's certificate settings: switched on or off, the issuer's name, the signature image.
// Admins change them on the course's or program's page and through the /api's edit calls; the admin side
// reads them with how many certificates were given. Switching certificates on gives none by itself
// (docs/certificates.md#switching-them-on): the form's "issue to learners who already completed" queues that
// work for the job runner, as a content change's sweep does.

type CertificateSubject = { kind: 'course'; id: string } | { kind: 'program'; id: string }

/** What the admin side sees of a course's or program's certificates. */
type CertificateSettingsView = {
  certificates: boolean
  issuer: string
  signature: FileInfoDto | null
  /** certificates given for it, still valid and revoked */
  issued: { valid: number; revoked: number }
}

/** The settings as the /api's answers carry them (the admin side only). */
export type CertificateFieldsDto = {
  certificates: boolean
  certificateIssuer: string
  certificateSignature: FileInfoDto | null
}

type Settings = z.output<typeof CertificateFields> & { removeCertificateSignature?: boolean }

const missing = (subject: CertificateSubject) =>
  notFound(subject.kind === 'course' ? 'Course not found.' : 'Program not found.')

async function loadSubject(subject: CertificateSubject, transaction?: Transaction): Promise<Course | Program> {
  const { Course, Program } = await db()
  if (!isUuid(subject.id)) throw missing(subject)
  const options = transaction ? { transaction, lock: transaction.LOCK.UPDATE } : {}
  const row =
    subject.kind === 'course' ? await Course.findByPk(subject.id, options) : await Program.findByPk(subject.id, options)
  if (!row) throw missing(subject)
  return row
}

/** The signature's file as the /api and the pages name it, when there is one. */
async function signatureOf(key: string | null): Promise<FileInfoDto | null> {
  if (!key) return null
  const { StoredFile } = await db()
  const file = await StoredFile.findByPk(key, { attributes: ['key', 'name'] })
  return file ? fileInfo(file) : null
}

/** The settings of a course or program read with it, as the /api's answers to the admin side carry them. */
export async function certificateFieldsOf(
  row: Pick<Course, 'certificates' | 'certificateIssuer' | 'certificateSignatureKey'>,
): Promise<CertificateFieldsDto> {
  return {
    certificates: row.certificates,
    certificateIssuer: row.certificateIssuer,
    certificateSignature: await signatureOf(row.certificateSignatureKey),
  }
}

/** A course's or program's settings and the count of its certificates, for the admin side. */
export async function certificateSettings(actor: Actor, subject: CertificateSubject): Promise<CertificateSettingsView> {
  requirePermission(actor, 'read:certificates')
  const row = await loadSubject(subject)
  const column = subject.kind === 'course' ? 'course_id' : 'program_id'
  const [counts] = await select<{ valid: number; revoked: number }>(
    `SELECT count(*) FILTER (WHERE revoked_at IS NULL)::int AS valid,
            count(*) FILTER (WHERE revoked_at IS NOT NULL)::int AS revoked
       FROM certificates WHERE ${column} = $1`,
    [subject.id],
  )
  return {
    certificates: row.certificates,
    issuer: row.certificateIssuer,
    signature: await signatureOf(row.certificateSignatureKey),
    issued: counts,
  }
}

/**
 * An uploaded signature that may become this course's or program's: uploaded as a signature, an image the
 * certificate's PDF can draw, and not another course's or program's. `current` is the key it already has.
 */
async function attachableSignature(key: string, current: string | null, transaction: Transaction) {
  if (key === current) return key
  const { StoredFile, Course, Program } = await db()
  const file = await StoredFile.findByPk(key, { transaction, lock: transaction.LOCK.UPDATE })
  const message = 'Choose a signature image.'
  if (!file || file.purpose !== 'certificate_signature') throw invalid(message, { certificateSignature: message })
  const where = { certificateSignatureKey: key }
  if ((await Course.count({ where, transaction })) + (await Program.count({ where, transaction })) > 0) {
    const taken = 'That signature belongs to another course or program; upload it again.'
    throw conflict(taken, { certificateSignature: taken })
  }
  if (!(await drawable(key))) {
    const unreadable = 'The signature image cannot be read; save it again as PNG or JPEG and upload that.'
    throw invalid(unreadable, { certificateSignature: unreadable })
  }
  return key
}

/** Whether the certificate's PDF can draw this stored image (its type was checked by content on upload). */
async function drawable(key: string): Promise<boolean> {
  const stored = await storage().get(key)
  if (!stored) return false
  if (stored.size > uploadLimit('certificateSignature').bytes) {
    stored.body.destroy()
    return false
  }
  const parts: Buffer[] = []
  for await (const part of stored.body) parts.push(part as Buffer)
  const bytes = Buffer.concat(parts)
  try {
    const document = await PDFDocument.create()
    if (bytes[0] === 0x89) await document.embedPng(bytes)
    else await document.embedJpg(bytes)
    return true
  } catch {
    return false
  }
}

/**
 * Apply settings to a course or program locked in `transaction`, for the services that save it
 * (editCourseDetails, editProgram, the settings form). What is left out is kept. Certificates on need an
 * issuer's name; issuing to learners who completed before needs certificates on, and is queued for the job
 * runner as the transaction commits. Returns the signature this replaced or removed, for the caller to
 * delete once the transaction has committed.
 */
export async function applyCertificateSettings(
  actor: Actor,
  row: Course | Program,
  kind: CertificateSubject['kind'],
  settings: Settings,
  transaction: Transaction,
): Promise<string | null> {
  const certificates = settings.certificates ?? row.certificates
  const issuer = settings.certificateIssuer ?? row.certificateIssuer.trim()
  if (certificates && issuer === '') throw invalid(ISSUER_REQUIRED, { certificateIssuer: ISSUER_REQUIRED })
  const current = row.certificateSignatureKey
  const chosen = settings.certificateSignature
  // a new file chosen replaces the current one, whatever the remove box says
  const signature =
    typeof chosen === 'string' && chosen !== current
      ? await attachableSignature(chosen, current, transaction)
      : chosen === null || settings.removeCertificateSignature
        ? null
        : current
  if (settings.issueToCompleted) {
    requirePermission(actor, 'manage:certificates')
    if (!certificates) {
      const off = 'Switch certificates on to issue them to learners who already completed.'
      throw invalid(off, { issueToCompleted: off })
    }
  }
  const columns = { certificates, certificateIssuer: issuer, certificateSignatureKey: signature }
  // one model or the other: the same three columns on each
  if (kind === 'course') await (row as Course).update(columns, { transaction })
  else await (row as Program).update(columns, { transaction })
  if (settings.issueToCompleted)
    // everyone complete without a certificate, found and given one by the certificate-issue job
    await select(
      kind === 'course'
        ? 'SELECT certificate_due_add(NULL, $1::uuid, NULL)'
        : 'SELECT certificate_due_add(NULL, NULL, $1::uuid)',
      [row.id],
      transaction,
    )
  return current && current !== signature ? current : null
}

/**
 * The Certificate settings form of a course's or program's page. Admins only; the issue box also needs the
 * right to issue certificates. The replaced signature is deleted once saved.
 */
export async function editCertificateSettings(
  actor: Actor,
  subject: CertificateSubject,
  input: unknown,
): Promise<{ certificates: boolean; queued: boolean }> {
  requirePermission(actor, 'update:content')
  if (!isUuid(subject.id)) throw missing(subject)
  const settings = CertificateSettingsFormSchema.parse(input)
  const replaced = await transaction(async (transaction) => {
    const row = await loadSubject(subject, transaction)
    return applyCertificateSettings(actor, row, subject.kind, settings, transaction)
  })
  if (replaced) await removeFileIfUnused(replaced)
  return { certificates: settings.certificates, queued: settings.issueToCompleted }
}

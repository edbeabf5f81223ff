import path from 'node:path'
import { fileTypeFromBuffer, fileTypeFromFile, type FileTypeResult } from 'file-type'
import { getEnv, type Env } from '#app/utils/env.server.ts'
import type { StoredFile } from '#db/models/index.ts'
import { ServiceError } from '../errors.ts'

// What each upload accepts, checked by content (magic bytes) and by extension together
// (docs/product.md#uploads-and-assessments): a PNG renamed .pdf is refused, and so is a PDF renamed .png.

const FORMATS = {
  png: { extensions: ['png'], contentType: 'image/png' },
  gif: { extensions: ['gif'], contentType: 'image/gif' },
  jpg: { extensions: ['jpg', 'jpeg'], contentType: 'image/jpeg' },
  csv: { extensions: ['csv'], contentType: 'text/csv' },
  pdf: { extensions: ['pdf'], contentType: 'application/pdf' },
  docx: {
    extensions: ['docx'],
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  },
  pptx: {
    extensions: ['pptx'],
    contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  },
  ppt: { extensions: ['ppt'], contentType: 'application/vnd.ms-powerpoint' },
} as const

type FileFormat = keyof typeof FORMATS

type KindRule = {
  formats: FileFormat[]
  limit: keyof Pick<
    Env,
    'UPLOAD_MAX_IMAGE_MB' | 'UPLOAD_MAX_DOCUMENT_MB' | 'UPLOAD_MAX_ASSESSMENT_MB' | 'UPLOAD_MAX_IMPORT_MB'
  >
  /** a cap below the configured limit, in megabytes, when what reads the file takes no more */
  capMegabytes?: number
  purpose: StoredFile['purpose']
  /** the old client's words for a refused type */
  refusal: string
  /** what a .csv that is not text is told, when the kind has words of its own for it */
  notText?: string
  /** the old client's words for a form sent without its file */
  missing: string
}

const IMAGE_REFUSAL = 'Only png, gif and jpeg images are accepted.'
const DOCUMENT_REFUSAL = 'Only csv, pdf, docx, ppt and pptx files are accepted.'
const EDIT_REFUSAL = 'Only csv, pdf and docx files are accepted.'
const MISSING_IMAGE = 'Please Upload the Image.'
const MISSING_DOCUMENT = 'Please Upload a document'

const KINDS = {
  // course and program pictures alike: a program's image is uploaded through addCourseImage too
  // (seeded program pictures are stored as program_image, which is shown and attached the same way)
  courseImage: {
    formats: ['png', 'gif', 'jpg'],
    limit: 'UPLOAD_MAX_IMAGE_MB',
    purpose: 'course_image',
    refusal: IMAGE_REFUSAL,
    missing: MISSING_IMAGE,
  },
  // the issuer's signature printed on a course's or program's certificates: what the PDF can draw (PNG or
  // JPEG), and no more than the 2 MB the PDF reads of it (certificates/service.server.ts)
  certificateSignature: {
    formats: ['png', 'jpg'],
    limit: 'UPLOAD_MAX_IMAGE_MB',
    capMegabytes: 2,
    purpose: 'certificate_signature',
    refusal: 'Only png and jpeg images are accepted.',
    missing: 'Choose a signature image.',
  },
  // the old client took "ppt"; pptx too, its successor
  document: {
    formats: ['csv', 'pdf', 'docx', 'ppt', 'pptx'],
    limit: 'UPLOAD_MAX_DOCUMENT_MB',
    purpose: 'document',
    refusal: DOCUMENT_REFUSAL,
    missing: MISSING_DOCUMENT,
  },
  documentEdit: {
    formats: ['csv', 'pdf', 'docx'],
    limit: 'UPLOAD_MAX_DOCUMENT_MB',
    purpose: 'document',
    refusal: EDIT_REFUSAL,
    missing: MISSING_DOCUMENT,
  },
  assessment: {
    formats: ['csv', 'pdf', 'docx', 'ppt', 'pptx'],
    limit: 'UPLOAD_MAX_ASSESSMENT_MB',
    purpose: 'assessment',
    refusal: DOCUMENT_REFUSAL,
    missing: MISSING_DOCUMENT,
  },
  // the CSV file of a user import: plain UTF-8 text (a BOM is fine), never served back
  userImport: {
    formats: ['csv'],
    limit: 'UPLOAD_MAX_IMPORT_MB',
    purpose: 'user_import',
    refusal: 'Only CSV files (.csv) are accepted.',
    notText:
      'The file is not CSV text: it holds binary data or is not UTF-8. Save it from the spreadsheet as “CSV UTF-8”.',
    missing: 'Choose a CSV file to import.',
  },
} as const satisfies Record<string, KindRule>

export type UploadKind = keyof typeof KINDS

/** How many leading bytes the content check needs (file-type reads up to about 4100). */
export const SNIFF_BYTES = 4100

const MEGABYTE = 1024 * 1024

/** The configured size limit of an upload kind (UPLOAD_MAX_*_MB). */
export function uploadLimit(kind: UploadKind): { bytes: number; megabytes: number } {
  const rule: KindRule = KINDS[kind]
  const megabytes = Math.min(getEnv()[rule.limit], rule.capMegabytes ?? Infinity)
  return { bytes: Math.floor(megabytes * MEGABYTE), megabytes }
}

/**
 * What a file picker of this kind offers and tells, from the same rules the server
 * checks and the configured limit: accept=".png,.gif,.jpg,.jpeg", "png, gif or jpeg, up to 5 MB".
 */
export function uploadRules(kind: UploadKind): { accept: string; hint: string } {
  const formats: readonly FileFormat[] = KINDS[kind].formats
  const names = formats.map((format) => (format === 'jpg' ? 'jpeg' : format))
  const listed = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join('')
  return {
    accept: formats.flatMap((format) => FORMATS[format].extensions.map((extension) => `.${extension}`)).join(','),
    hint: `${listed}, up to ${uploadLimit(kind).megabytes} MB`,
  }
}

export const uploadPurpose = (kind: UploadKind): StoredFile['purpose'] => KINDS[kind].purpose
export const missingFileMessage = (kind: UploadKind) => KINDS[kind].missing
export const acceptedTypesMessage = (kind: UploadKind) => KINDS[kind].refusal

/** Whether a stored file's content type is one this kind takes (a document's replacement is checked so). */
export const accepts = (kind: UploadKind, contentType: string) =>
  (KINDS[kind].formats as readonly FileFormat[]).some((format) => FORMATS[format].contentType === contentType)

export const fileTooLarge = (kind: UploadKind) =>
  new ServiceError(413, `The file is larger than ${uploadLimit(kind).megabytes} MB.`)
const fileTypeRefused = (kind: UploadKind) => new ServiceError(415, acceptedTypesMessage(kind))

type CheckedType = {
  format: FileFormat
  /** the real content type, stored with the file and sent when it is served */
  contentType: string
  /**
   * true when the sample only showed a zip, which a docx or pptx is, and the whole file must be
   * checked with `confirmFileType` before it is kept (the parts that tell them apart can lie beyond
   * the first bytes)
   */
  needsWholeFile: boolean
}

/**
 * The type of an upload from its first bytes (or all of them) and its name; throws a 415 naming the
 * accepted types when the content is not one of them or the extension disagrees with it.
 */
export async function sniffFileType(
  kind: UploadKind,
  fileName: string,
  sample: Uint8Array,
  { complete }: { complete: boolean },
): Promise<CheckedType> {
  const claimed = claimedFormat(kind, fileName)
  if (sample.length === 0) throw fileTypeRefused(kind)
  const accept = (needsWholeFile = false): CheckedType => ({
    format: claimed,
    contentType: FORMATS[claimed].contentType,
    needsWholeFile,
  })

  // CSV has no magic bytes: it is accepted when it reads as UTF-8 text
  if (claimed === 'csv') {
    if (!looksLikeText(sample, { complete })) {
      const rule: KindRule = KINDS[kind]
      throw rule.notText ? new ServiceError(415, rule.notText) : fileTypeRefused(kind)
    }
    return accept()
  }
  const detected = await detect(() => fileTypeFromBuffer(sample))
  if (matches(claimed, detected)) return accept()
  if (!complete && (claimed === 'docx' || claimed === 'pptx') && detected?.ext === 'zip') return accept(true)
  throw fileTypeRefused(kind)
}

/** The whole-file check a `needsWholeFile` sample asks for. */
export async function confirmFileType(kind: UploadKind, fileName: string, filePath: string): Promise<CheckedType> {
  const claimed = claimedFormat(kind, fileName)
  const detected = await detect(() => fileTypeFromFile(filePath))
  if (!matches(claimed, detected)) throw fileTypeRefused(kind)
  return { format: claimed, contentType: FORMATS[claimed].contentType, needsWholeFile: false }
}

/** A body held in memory, checked whole. */
export const checkFileType = (kind: UploadKind, fileName: string, body: Uint8Array) =>
  sniffFileType(kind, fileName, body, { complete: true })

function claimedFormat(kind: UploadKind, fileName: string): FileFormat {
  const extension = path.extname(fileName).slice(1).toLowerCase()
  const formats: readonly FileFormat[] = KINDS[kind].formats
  const claimed = formats.find((format) => (FORMATS[format].extensions as readonly string[]).includes(extension))
  if (!claimed) throw fileTypeRefused(kind)
  return claimed
}

function matches(claimed: FileFormat, detected: FileTypeResult | undefined) {
  if (!detected) return false
  // an old .ppt is an OLE compound file, as are .doc and .xls: the extension has to say which
  if (claimed === 'ppt') return detected.ext === 'cfb'
  return detected.ext === claimed
}

/** file-type gives up with an error on some malformed input: that is "not a type we know". */
async function detect(run: () => Promise<FileTypeResult | undefined>) {
  try {
    return await run()
  } catch {
    return undefined
  }
}

/**
 * Text, as far as the sample shows: no NUL byte and valid UTF-8. A sample cut from a longer file may
 * end inside a multi-byte character, which is not held against it.
 */
export function looksLikeText(sample: Uint8Array, { complete }: { complete: boolean }): boolean {
  if (sample.includes(0)) return false
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: !complete })
    return true
  } catch {
    return false
  }
}

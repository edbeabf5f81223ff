import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { NUL_MESSAGE, nulFormErrors } from '#app/utils/text-input.server.ts'
import type { StoredFile } from '#db/models/index.ts'
import { can } from '../auth/permissions.ts'
import { type Actor } from '../auth/roles.ts'
import { forbidden, invalid, isServiceError, ServiceError } from '../errors.ts'
import { readMultipart, type FilePart } from './multipart.server.ts'
import {
  storeFile,
  unattachedBytesOf,
  unattachedQuota,
  unattachedQuotaExceeded,
  type FileInfo,
} from './service.server.ts'
import {
  confirmFileType,
  fileTooLarge,
  missingFileMessage,
  SNIFF_BYTES,
  sniffFileType,
  uploadLimit,
  uploadPurpose,
  type UploadKind,
} from './types.server.ts'

/** Room for the multipart framing and the small text fields sent beside the file. */
const FORM_OVERHEAD_BYTES = 64 * 1024

export type ReceiveUploadOptions = {
  kind: UploadKind
  /** the form fields that may carry the file, in order of preference; the first names field errors */
  fileFields: string[]
  actor: Actor
  /** defaults to the kind's purpose; when given it must agree with it */
  purpose?: StoredFile['purpose']
}

/**
 * An upload refused (wrong type, too large, unreadable) together with the text fields read before
 * the refusal, so a form posted without JavaScript can be shown again with what was typed.
 */
export class UploadRefused extends ServiceError {
  constructor(
    error: ServiceError,
    readonly fields: Record<string, string>,
  ) {
    super(error.status, error.message, error.errors, { cause: error })
  }
}

/**
 * What a file sent to POST /api/category/addCourseDocument becomes: an admin's is a
 * course document or scenario, a learner's is their assessment, private to them and the admin side.
 */
export const courseDocumentKind = (actor: Actor): UploadKind =>
  can(actor, 'update:content') ? 'document' : 'assessment'

type Received = { tempFile: string; size: number; name: string; contentType: string }

/**
 * Take one uploaded file from a multipart request and keep it (ADR 006): the type is checked
 * from the first bytes before the rest is read, the size is counted as it arrives, and the body is
 * streamed to a temporary file, never held in memory, then stored with its known size. Text fields
 * sent with it come back in `fields`.
 */
export async function receiveUpload(
  request: Request,
  options: ReceiveUploadOptions,
): Promise<{ file: FileInfo; fields: Record<string, string> }> {
  const { file, fields } = await receive(request, options, false)
  if (!file) throw new Error('receive() returned no file for a required upload')
  return { file, fields }
}

/**
 * A page's form posted as multipart: its text fields, and the file if one was sent. Without
 * JavaScript the file comes with the form; with it, FileUpload stored the file earlier and the form
 * carries its `{ key, link, name }` in a text field instead.
 */
export async function receiveForm(
  request: Request,
  options: ReceiveUploadOptions,
): Promise<{ file: FileInfo | undefined; fields: Record<string, string> }> {
  return receive(request, options, true)
}

async function receive(
  request: Request,
  { kind, fileFields, actor, purpose = uploadPurpose(kind) }: ReceiveUploadOptions,
  optional: boolean,
): Promise<{ file: FileInfo | undefined; fields: Record<string, string> }> {
  if (purpose !== uploadPurpose(kind)) throw new Error(`An upload of kind ${kind} is not stored as ${purpose}.`)
  if (fileFields.length === 0) throw new Error('receiveUpload needs at least one file field.')
  // assessments are a learner's own work; everything else is content, for admins
  if (!can(actor, kind === 'assessment' ? 'upload:assessment:own' : 'update:content'))
    throw forbidden('You do not have permission to upload this file.')

  const limit = uploadLimit(kind).bytes
  const declared = Number(request.headers.get('Content-Length') ?? NaN)
  if (Number.isFinite(declared) && declared > limit + FORM_OVERHEAD_BYTES) throw fileTooLarge(kind)
  const contentType = request.headers.get('Content-Type') ?? ''
  if (!/^multipart\/form-data\s*;.*boundary=/i.test(contentType) || !request.body)
    throw invalid('Send the file as multipart/form-data.')
  // what the user may still upload before using what they uploaded (storeFile checks it again, under a lock)
  const room = actor.id ? unattachedQuota().bytes - (await unattachedBytesOf(actor.id)) : Infinity
  if (room <= 0 && !optional) throw unattachedQuotaExceeded()

  // A missing or lying Content-Length is caught here: the whole body is counted as it is read.
  const source = request.body.getReader()
  const counted = countedBody(source, limit + FORM_OVERHEAD_BYTES, () => fileTooLarge(kind))
  let tempDir: string | undefined
  let received: Received | undefined
  let empty = false
  const fields: Record<string, string> = {}
  /** text fields refused for what they hold */
  const refusedText: Record<string, string> = {}

  /** A refusal shown beside the file's field (or the text field it names), with the text fields read so far. */
  const refused = (refusal: ServiceError) => {
    const textField = Object.keys(refusal.errors ?? {}).some((field) => !fileFields.includes(field))
    const message = refusal.errors?.[fileFields[0]] ?? refusal.message
    const errors = textField ? refusal.errors : { ...refusal.errors, [fileFields[0]]: message }
    return new UploadRefused(new ServiceError(refusal.status, refusal.message, errors), fields)
  }

  const onFile = async ({ field, filename, data }: FilePart) => {
    // a browser sends an empty part with no name for a file input left blank; other file fields are not ours
    if (received || empty || !fileFields.includes(field) || !filename) return drain(data)
    const name = fromFormEscapes(filename)

    const chunks = data[Symbol.asyncIterator]() as AsyncIterator<Buffer>
    const head: Uint8Array[] = []
    let size = 0
    let ended = false
    while (size < SNIFF_BYTES) {
      const next = await chunks.next()
      if (next.done) {
        ended = true
        break
      }
      size += next.value.byteLength
      if (size > limit) throw fileTooLarge(kind)
      if (size > room) throw unattachedQuotaExceeded()
      head.push(next.value)
    }
    if (size === 0) {
      empty = true
      return
    }
    const sample = Buffer.concat(head)
    const type = await sniffFileType(kind, name, sample, { complete: ended })

    tempDir = await mkdtemp(path.join(os.tmpdir(), 'portal-upload-'))
    const tempFile = path.join(tempDir, 'body')
    async function* body() {
      yield sample
      if (ended) return
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
        size += next.value.byteLength
        if (size > limit) throw fileTooLarge(kind)
        if (size > room) throw unattachedQuotaExceeded()
        yield next.value
      }
    }
    await pipeline(Readable.from(body()), createWriteStream(tempFile, { flags: 'wx', mode: 0o600 }))
    const confirmed = type.needsWholeFile ? await confirmFileType(kind, name, tempFile) : type
    received = { tempFile, size, name, contentType: confirmed.contentType }
  }

  try {
    try {
      await readMultipart(counted, contentType, {
        onField: (field, value) => {
          const nul = nulFormErrors([[field, value]])
          // refused once the form is read, so what else was typed can be shown again
          if (Object.keys(nul).length > 0) Object.assign(refusedText, nul)
          else fields[field] ??= value
        },
        onFile,
        maxFieldBytes: limit + FORM_OVERHEAD_BYTES,
      })
    } catch (error) {
      throw refused(isServiceError(error) ? error : invalid('The upload could not be read; please try again.'))
    }

    if (Object.keys(refusedText).length > 0) throw refused(invalid(NUL_MESSAGE, refusedText))
    if (empty) {
      const message = 'The file is empty.'
      throw new UploadRefused(invalid(message, { [fileFields[0]]: message }), fields)
    }
    if (!received) {
      if (optional) return { file: undefined, fields }
      const message = missingFileMessage(kind)
      throw invalid(message, { [fileFields[0]]: message })
    }

    const file = await storeFile({
      purpose,
      name: received.name,
      contentType: received.contentType,
      body: { file: received.tempFile, size: received.size },
      uploadedBy: actor.id,
      withinQuota: true,
    }).catch((error: unknown) => {
      throw isServiceError(error) ? refused(error) : error
    })
    return { file, fields }
  } finally {
    // stop reading whatever the client is still sending, and leave no temporary file behind
    await source.cancel().catch(() => undefined)
    if (tempDir) await rm(tempDir, { recursive: true, force: true })
  }
}

/** The request body, failing with `tooLarge()` as soon as more than `max` bytes have arrived. */
function countedBody(
  source: ReadableStreamDefaultReader<Uint8Array>,
  max: number,
  tooLarge: () => Error,
): ReadableStream<Uint8Array> {
  let total = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await source.read()
      if (done) return controller.close()
      total += value.byteLength
      if (total > max) {
        controller.error(tooLarge())
        await source.cancel().catch(() => undefined)
        return
      }
      controller.enqueue(value)
    },
    cancel: (reason) => source.cancel(reason),
  })
}

async function drain(data: AsyncIterable<Uint8Array>): Promise<void> {
  // read and dropped; countedBody still counts it against the limit
  for await (const _ of data);
}

/**
 * A file name as a browser wrote it into the form (HTML's multipart/form-data encoding): `"`, CR and
 * LF come as %22, %0D and %0A. storeFile then makes any name safe to keep.
 */
function fromFormEscapes(filename: string): string {
  return filename.replace(/%22|%0D|%0A/g, (escape) => ({ '%22': '"', '%0D': '\r', '%0A': '\n' })[escape] ?? escape)
}

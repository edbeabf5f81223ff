import { randomBytes } from 'node:crypto'
import { createWriteStream, rmSync } from 'node:fs'
import { access, constants, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { PassThrough, type Writable } from 'node:stream'
import { getEnv } from '#app/utils/env.server.ts'
import { invalid } from '../errors.ts'

// Where the portal writes what it makes for an operator (exports, the users import's error report): a
// file in a folder of the server, written beside its target and renamed into place only when complete,
// or an S3 object sent as a multipart upload that is aborted on failure. Either way a failed write
// leaves nothing behind.

/** A folder the portal is to write into must be there and writable (400 otherwise). */
export async function requireWritableFolder(dir: string) {
  const info = await stat(dir).catch(() => undefined)
  if (!info?.isDirectory()) throw invalid(`The folder ${dir} does not exist.`)
  await access(dir, constants.W_OK).catch(() => {
    throw invalid(`The folder ${dir} is not writable.`)
  })
}

const bucketOf = (destination: string) => destination.slice('s3://'.length).split('/')[0]

/** Of the S3 prefixes an operator listed for the admin area, those outside the bucket that holds the uploads. */
export function allowedS3Targets(listed: string[]): string[] {
  const uploads = getEnv().S3_BUCKET?.toLowerCase()
  return listed.filter((target) => bucketOf(target) !== uploads)
}

/**
 * Why the admin area may not have the server write a schedule's files (`what`: exports, backups) to this
 * destination, or undefined. A web account must not make the server write where the operator did not choose:
 * a folder must lie inside `root` (the portal's own folder for them in $DATA_DIR), an S3 prefix under one of
 * `targets` (those the operator listed), and never in the uploads bucket, where the files could overwrite or
 * crowd learners' files. The CLI (an operator with shell access) is not asked.
 */
export function refusedFromAdminArea(
  destination: string,
  { what, root, targets }: { what: 'exports' | 'backups'; root: string; targets: string[] },
): string | undefined {
  const What = `${what[0].toUpperCase()}${what.slice(1)}`
  const elsewhere = targets.length
    ? `use an S3 prefix under ${targets.join(' or ')}; other folders are set with the portal CLI`
    : 'other folders, and S3, are set with the portal CLI'
  if (destination.startsWith('s3://')) {
    const uploads = getEnv().S3_BUCKET?.toLowerCase()
    if (uploads && bucketOf(destination) === uploads)
      return `${What} cannot go to ${uploads}, the bucket that holds the portal's uploads.`
    if (!targets.length)
      return `From the admin area ${what} go to a folder inside ${root}; S3 destinations are set with the portal CLI.`
    const segments = destination.slice('s3://'.length).split('/')
    if (segments.includes('..') || segments.includes('.') || !targets.some((t) => destination.startsWith(t)))
      return `From the admin area an S3 destination must be under ${targets.join(' or ')}.`
    return undefined
  }
  if (path.resolve(destination) + '/' === root || path.resolve(destination).startsWith(root)) return undefined
  return `From the admin area a folder destination must be inside ${root} (${elsewhere}).`
}

/**
 * Write to a temporary file beside `target`, then rename it into place; remove it on any failure. Used
 * for every file the portal writes for an operator (exports, the user import's error report).
 */
export async function writeFileAtomically<T>(target: string, write: (sink: Writable) => Promise<T>): Promise<T> {
  const dir = path.dirname(target)
  await requireWritableFolder(dir)
  if ((await stat(target).catch(() => undefined))?.isDirectory())
    throw invalid(`${target} is a folder; give a file name.`)
  const temporary = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.partial`)
  // a process that exits part-way (Ctrl-C while a CLI-started database shuts down) removes it too
  const removeOnExit = () => rmSync(temporary, { force: true })
  process.on('exit', removeOnExit)
  const sink = createWriteStream(temporary, { flags: 'wx', mode: 0o640 })
  try {
    const result = await write(sink)
    await rename(temporary, target)
    return result
  } catch (error) {
    // a writer that failed before it ended the file leaves it open
    sink.destroy()
    await rm(temporary, { force: true })
    throw error
  } finally {
    process.off('exit', removeOnExit)
  }
}

/**
 * A multipart upload of what `write` writes into its sink, as it comes. However it fails, the upload is
 * aborted (no object, no parts kept) before this returns, and the error says what failed first:
 * - S3 refuses a part: lib-storage stops reading, which ends the body under the writer, and `done()`
 *   rejects with S3's error once it has sent AbortMultipartUpload;
 * - the writer fails (the database, a stop signal): the body is ended with its error, so lib-storage
 *   fails the upload and aborts it the same way. (`upload.abort()` would settle `done()` at once and
 *   leave the abort to happen, or not, after the writer had returned.)
 */
export async function uploadToS3<T>(
  destination: { bucket: string; key: string },
  contentType: string,
  write: (sink: Writable) => Promise<T>,
): Promise<T> {
  const [{ Upload }, { makeS3Client }, { s3Settings }] = await Promise.all([
    import('@aws-sdk/lib-storage'),
    import('./s3-storage.server.ts'),
    import('./storage.server.ts'),
  ])
  const client = makeS3Client(s3Settings())
  const body = new PassThrough()
  const upload = new Upload({
    client,
    params: { Bucket: destination.bucket, Key: destination.key, Body: body, ContentType: contentType },
    leavePartsOnError: false,
  })
  let uploadFailure: { error: unknown } | undefined
  const uploaded = upload.done().catch((error: unknown) => {
    uploadFailure = { error }
    // nobody reads the body any more: the writer must not wait on it
    body.destroy(asError(error))
    throw error
  })
  // the upload's failure is reported below; this keeps it from being unhandled meanwhile
  uploaded.catch(() => undefined)
  try {
    const result = await write(body)
    await uploaded
    return result
  } catch (error) {
    body.destroy(asError(error))
    await uploaded.catch(() => undefined)
    // the upload failed of itself when its error is not the one the writer handed it
    const cause = uploadFailure && uploadFailure.error !== error ? uploadFailure.error : error
    throw s3Error(cause, destination)
  } finally {
    client.destroy()
  }
}

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)))

/** An S3 failure in one line, never with the request's credentials or signature in it. */
function s3Error(error: unknown, destination: { bucket: string; key: string }) {
  if (!(error instanceof Error) || !('$metadata' in error || error.name.endsWith('Exception'))) return error
  const reason = error.name === 'NoSuchBucket' ? 'the bucket does not exist' : error.message.split('\n')[0]
  return new Error(`Uploading to s3://${destination.bucket}/${destination.key} failed: ${reason}`)
}

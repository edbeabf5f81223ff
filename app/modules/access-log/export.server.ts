import path from 'node:path'
import { Transform, type Writable } from 'node:stream'
import { pipeQuery } from '#db/client.ts'
import type { Actor } from '../auth/roles.ts'
import { csvRecords } from '../csv/writer.server.ts'
import { invalid } from '../errors.ts'
import { uploadToS3, writeFileAtomically } from '../files/destinations.server.ts'
import { accessLogFilter, accessLogStatement, type AccessLogRow } from './service.server.ts'

// One export engine for the access log, used by the admin page, the CLI and the scheduled exports.
// Rows stream from a PostgreSQL cursor through a CSV (or JSON Lines) writer into the destination, a
// batch at a time, so memory stays flat whatever the size. A file is written beside its target and
// renamed into place only when complete; an S3 object is a multipart upload that is aborted on failure.
// Either way a failed export leaves nothing behind.

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

/**
 * The report's columns first, then what a spreadsheet needs to join the rows with other data, then the lab
 * rows' own (ADR 037). A lab row leaves the video columns empty; its Last Viewed is its last attempt's time.
 */
const COLUMNS: { header: string; key: string; value: (r: AccessLogRow) => string | number | null }[] = [
  { header: 'First Name', key: 'firstName', value: (r) => r.first_name },
  { header: 'Email ID', key: 'email', value: (r) => r.email },
  { header: 'Course Name', key: 'courseName', value: (r) => r.course_name },
  { header: 'Video title', key: 'videoTitle', value: (r) => r.video_title },
  { header: 'Video Duration', key: 'videoDuration', value: (r) => r.video_duration },
  { header: 'Video Progress', key: 'videoProgress', value: (r) => r.video_progress },
  { header: 'Last Viewed', key: 'lastViewed', value: (r) => new Date(r.last_viewed).toISOString() },
  { header: 'Last Name', key: 'lastName', value: (r) => r.last_name },
  { header: 'Learner ID', key: 'learnerId', value: (r) => r.learner_id },
  { header: 'Course ID', key: 'courseId', value: (r) => r.course_id },
  { header: 'Video ID', key: 'videoId', value: (r) => r.video_id },
  { header: 'Kind', key: 'kind', value: (r) => r.kind },
  { header: 'Lab title', key: 'labTitle', value: (r) => r.lab_title },
  { header: 'Exercise title', key: 'exerciseTitle', value: (r) => r.exercise_title },
  { header: 'Result', key: 'result', value: (r) => (r.kind === 'lab' ? (r.passed ? 'Passed' : 'Not passed') : null) },
  { header: 'Attempts', key: 'attempts', value: (r) => r.attempts },
  { header: 'Lab ID', key: 'labId', value: (r) => r.lab_id },
  { header: 'Exercise ID', key: 'exerciseId', value: (r) => r.exercise_id },
]
export const EXPORT_HEADERS = COLUMNS.map((c) => c.header)

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/x-ndjson; charset=utf-8',
}

/** Rows in, the chosen format's text out: the stages between the cursor and the sink. */
function formatter(format: ExportFormat): Transform[] {
  if (format === 'jsonl') {
    return [
      new Transform({
        writableObjectMode: true,
        transform(row: AccessLogRow, _encoding, done) {
          done(null, `${JSON.stringify(Object.fromEntries(COLUMNS.map((c) => [c.key, c.value(row)])))}\n`)
        },
      }),
    ]
  }
  return csvRecords(EXPORT_HEADERS, (row: AccessLogRow) => COLUMNS.map((c) => c.value(row)))
}

export const isExportFormat = (value: string): value is ExportFormat =>
  (EXPORT_FORMATS as readonly string[]).includes(value)

function assertFormat(format: string) {
  if (!isExportFormat(format)) throw invalid(`Format must be one of ${EXPORT_FORMATS.join(', ')}.`)
}

export type ExportProgress = { rows: number; bytes: number }
type ExportResult = ExportProgress & { location: string }

type ExportOptions = {
  format?: ExportFormat
  /** called as rows are written, at most every 1,000 rows and once at the end */
  onProgress?: (progress: ExportProgress) => void
  signal?: AbortSignal
}

/**
 * Stream the rows of an access-log filter into `sink`, in the given format. The actor must be on the
 * admin side (the same rule as the page); the filter is the page's and the /api's schema.
 */
export async function writeAccessLog(
  actor: Actor,
  input: unknown,
  sink: Writable,
  { format = 'csv', onProgress, signal }: ExportOptions = {},
): Promise<ExportProgress> {
  // an export carries every kind of row, whatever the input says
  const filter = { ...accessLogFilter(actor, input), includeLabs: true }
  assertFormat(format)
  const progress: ExportProgress = { rows: 0, bytes: 0 }
  const counter = new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      progress.bytes += Buffer.byteLength(chunk)
      done(null, chunk)
    },
  })
  const rowCounter = new Transform({
    objectMode: true,
    transform(row: AccessLogRow, _encoding, done) {
      progress.rows++
      if (progress.rows % 1000 === 0) onProgress?.({ ...progress })
      done(null, row)
    },
  })
  await pipeQuery(accessLogStatement(filter), [rowCounter, ...formatter(format), counter, sink], { signal })
  onProgress?.({ ...progress })
  return progress
}

/** Where an export goes: standard output, a file, or an S3 object. */
export type ExportDestination =
  | { kind: 'stream'; stream: Writable; label: string }
  | { kind: 'file'; path: string }
  | { kind: 's3'; bucket: string; key: string }

/** `-` is standard output, `s3://bucket/key` an object, anything else a file path. */
export function parseDestination(out: string): ExportDestination {
  if (out === '-') return { kind: 'stream', stream: process.stdout, label: 'stdout' }
  if (out.startsWith('s3://')) {
    const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/(.+)$/.exec(out)
    if (!match || match[2].endsWith('/')) throw invalid(`"${out}" is not an S3 object address (s3://bucket/key).`)
    return { kind: 's3', bucket: match[1], key: match[2] }
  }
  if (!out.trim()) throw invalid('The output path is empty.')
  return { kind: 'file', path: path.resolve(out) }
}

export function describeDestination(destination: ExportDestination): string {
  if (destination.kind === 'stream') return destination.label
  if (destination.kind === 's3') return `s3://${destination.bucket}/${destination.key}`
  return destination.path
}

/** Export the access log to a destination; on failure nothing is left at the destination. */
export async function exportAccessLog(
  actor: Actor,
  input: unknown,
  destination: ExportDestination,
  options: ExportOptions = {},
): Promise<ExportResult> {
  const location = describeDestination(destination)
  // refused filters, actors and formats fail before anything is created
  accessLogFilter(actor, input)
  assertFormat(options.format ?? 'csv')
  if (destination.kind === 'stream') {
    return { ...(await writeAccessLog(actor, input, destination.stream, options)), location }
  }
  if (destination.kind === 'file') {
    return {
      ...(await writeFileAtomically(destination.path, (sink) => writeAccessLog(actor, input, sink, options))),
      location,
    }
  }
  const format = options.format ?? 'csv'
  const result = await uploadToS3(destination, CONTENT_TYPES[format], (sink) =>
    writeAccessLog(actor, input, sink, options),
  )
  return { ...result, location }
}

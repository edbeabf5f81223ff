import { z } from 'zod'

// What a backup archive says about itself. It is a tar of entries in this order:
//   portal-backup.json          the header, known before the first row is read: format, versions, flags
//   data/<table>/000001.tsv …   each table's COPY text, cut at row ends
//   files/<key> …               the bytes of every stored file
//   files.jsonl                 one line per file entry, in the same order: key, size, sha256
//   secrets.json                only when the backup was asked to carry secrets
//   manifest.json               everything counted and hashed, written last
//   manifest.sha256             the SHA-256 of manifest.json's bytes in hex, and a line end
// A reader refuses an archive whose format version is newer than FORMAT_VERSION.

export const FORMAT_VERSION = 1

export const HEADER_ENTRY = 'portal-backup.json'
export const MANIFEST_ENTRY = 'manifest.json'
export const MANIFEST_HASH_ENTRY = 'manifest.sha256'
export const FILES_INDEX_ENTRY = 'files.jsonl'
export const SECRETS_ENTRY = 'secrets.json'
export const DATA_PREFIX = 'data/'
export const FILES_PREFIX = 'files/'

/** A stored file's body in the archive; keys are the storage's own (lower case, no slash). */
export const fileEntry = (key: string) => `${FILES_PREFIX}${key}`
/** The n-th piece (from 1) of a table's COPY text. */
export const chunkEntry = (table: string, n: number) => `${DATA_PREFIX}${table}/${String(n).padStart(6, '0')}.tsv`

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 is 64 lower-case hex digits')
const count = z.number().int().nonnegative()
const timestamp = z.string().datetime({ offset: true })
const name = z.string().min(1)

export const ArchiveHeaderSchema = z.object({
  format: z.literal('portal-backup'),
  formatVersion: z.number().int().positive(),
  portalVersion: name,
  /** the last migration the database had: a restore builds the schema up to it, loads, then migrates on */
  migration: name,
  postgres: z.object({ version: name, versionNum: z.number().int().positive() }),
  compression: z.enum(['zstd', 'gzip']),
  secrets: z.boolean(),
  startedAt: timestamp,
  trigger: z.enum(['cli', 'schedule']),
  runId: z.string().nullable(),
})
export type ArchiveHeader = z.infer<typeof ArchiveHeaderSchema>

const ChunkSchema = z.object({ name, bytes: count, sha256, rows: count })

export const ManifestSchema = z.object({
  formatVersion: z.number().int().positive(),
  portalVersion: name,
  migration: name,
  postgres: z.object({ version: name, versionNum: z.number().int().positive(), encoding: name }),
  startedAt: timestamp,
  /** now() inside the snapshot: every row is as it was then */
  snapshotAt: timestamp,
  tablesDoneAt: timestamp,
  finishedAt: timestamp,
  /** the session settings the COPY text was written with, which a restore reads it back with */
  copy: z.record(z.union([z.string(), z.number()])),
  tables: z.array(
    z.object({
      name,
      columns: z.array(name),
      rows: count,
      bytes: count,
      /** of all the table's COPY text, its chunks' bytes in order */
      sha256,
      chunks: z.array(ChunkSchema),
    }),
  ),
  sequences: z.array(
    z.object({
      name,
      table: name,
      column: name,
      /** a bigint, as text */
      lastValue: z.string().regex(/^-?\d+$/, 'a whole number as text'),
      isCalled: z.boolean(),
    }),
  ),
  files: z.object({
    storage: z.enum(['disk', 's3']),
    count,
    bytes: count,
    /** of files.jsonl's bytes */
    indexSha256: sha256,
    /** keys whose rows were copied but whose bodies were gone when the backup came to them */
    missing: z.array(z.string()),
  }),
  excluded: z.object({ tables: z.array(name), schemas: z.array(name), labDatabases: count.optional() }),
  /** bytes and sha256 of secrets.json, checked when given */
  secrets: z.object({ included: z.boolean(), bytes: count.optional(), sha256: sha256.optional() }),
  header: z.object({ sha256 }),
})
export type Manifest = z.infer<typeof ManifestSchema>

/** One line of files.jsonl (more keys may follow, such as an md5 for S3). */
export const FileIndexLineSchema = z.object({ key: name, size: count, sha256 })

/** The first problem zod found, as one line: "tables.0.rows: Expected number, received string". */
function firstIssue(error: z.ZodError) {
  const issue = error.issues[0]
  return issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message
}

function json(bytes: Buffer, entry: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'))
  } catch {
    throw new Error(`${entry} is not JSON.`)
  }
}

/**
 * The header read and checked, newest format first: an archive of a newer format is refused before its
 * other fields are read, since they may mean something else there. Throws an Error of one line.
 */
export function parseHeader(bytes: Buffer): ArchiveHeader {
  const value = json(bytes, HEADER_ENTRY)
  const { format, formatVersion } = (value ?? {}) as { format?: unknown; formatVersion?: unknown }
  if (format !== 'portal-backup') throw new Error(`${HEADER_ENTRY} does not describe a portal backup.`)
  if (typeof formatVersion === 'number' && formatVersion > FORMAT_VERSION)
    throw new Error(`This archive was made by a newer portal (format ${formatVersion}): upgrade the portal first.`)
  const parsed = ArchiveHeaderSchema.safeParse(value)
  if (!parsed.success) throw new Error(`${HEADER_ENTRY} is not a valid header: ${firstIssue(parsed.error)}.`)
  return parsed.data
}

/** The manifest read and checked. Throws an Error of one line. */
export function parseManifest(bytes: Buffer): Manifest {
  const parsed = ManifestSchema.safeParse(json(bytes, MANIFEST_ENTRY))
  if (!parsed.success) throw new Error(`${MANIFEST_ENTRY} is not a valid manifest: ${firstIssue(parsed.error)}.`)
  return parsed.data
}

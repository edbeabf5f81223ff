import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { createReadStream, createWriteStream, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import type { Writable } from 'node:stream'
import { getCertificateSigningKey, getEnv, getSecrets } from '#app/utils/env.server.ts'
import { databaseUrl } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import type { Actor } from '../auth/roles.ts'
import { invalid } from '../errors.ts'
import { uploadToS3, writeFileAtomically } from '../files/destinations.server.ts'
import { storage } from '../files/storage.server.ts'
import { createArchiveWriter, type ArchiveWriter, type Compression } from './archive.server.ts'
import {
  FILES_INDEX_ENTRY,
  FORMAT_VERSION,
  HEADER_ENTRY,
  MANIFEST_ENTRY,
  MANIFEST_HASH_ENTRY,
  SECRETS_ENTRY,
  fileEntry,
  type ArchiveHeader,
  type Manifest,
} from './manifest.ts'
import { COPY_SETTINGS, EXCLUDED_SCHEMAS, EXCLUDED_TABLES, withSnapshot, type Snapshot } from './snapshot.server.ts'

// Taking a backup: the snapshot's tables, then every stored file, then the manifest that counts and hashes
// them all, into one compressed tar written to a file (beside its final name, renamed when complete), an S3
// object (a multipart upload, aborted on failure) or standard output.

const { version: PORTAL_VERSION } = JSON.parse(
  readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
) as { version: string }

type BackupTarget =
  | { kind: 'file'; path: string }
  | { kind: 's3'; bucket: string; key: string }
  | { kind: 'stream'; stream: Writable; label: string }

export type BackupProgress = {
  stage: 'tables' | 'files' | 'manifest'
  tables: { done: number; total: number; current: string | null }
  rows: { done: number; estimated: number }
  /** COPY text read from the database */
  bytes: number
  files: { done: number; total: number }
  /** compressed archive bytes written */
  written: number
}

type BackupOptions = {
  /** a file, a folder (made when it ends in /), s3://bucket/prefix/ or s3://bucket/key, - for stdout; default $DATA_DIR/backups/ */
  to?: string
  compression?: Compression
  includeSecrets?: boolean
  trigger?: ArchiveHeader['trigger']
  runId?: string | null
  onProgress?: (progress: BackupProgress) => void
  signal?: AbortSignal
  /** the entries' largest size, for tests; 8 MiB by default */
  chunkBytes?: number
}

type BackupResult = {
  location: string
  bytes: number
  tables: number
  rows: number
  files: number
  fileBytes: number
  missingFiles: string[]
  secrets: boolean
  migration: string
  startedAt: string
  finishedAt: string
}

/** The archive's name: the time it was started (UTC) and the portal's version. */
function archiveName(startedAt: Date, compression: Compression, secrets: boolean) {
  const stamp = startedAt
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
  const extension = compression === 'zstd' ? 'tar.zst' : 'tar.gz'
  return `portal-backup-${stamp}-v${PORTAL_VERSION}${secrets ? '-with-secrets' : ''}.${extension}`
}

/** Where `--to` says the archive goes; a folder gets the archive's own name inside it. */
async function backupTarget(to: string | undefined, name: string): Promise<BackupTarget> {
  if (to === '-') return { kind: 'stream', stream: process.stdout, label: 'stdout' }
  if (to?.startsWith('s3://')) {
    const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(to)
    if (!match) throw invalid(`"${to}" is not an S3 address (s3://bucket/prefix/ or s3://bucket/key).`)
    const rest = match[2] ?? ''
    return { kind: 's3', bucket: match[1], key: rest === '' || rest.endsWith('/') ? `${rest}${name}` : rest }
  }
  if (to !== undefined && !to.trim()) throw invalid('The backup target is empty.')
  const folder = to === undefined ? path.join(getEnv().DATA_DIR, 'backups') : path.resolve(to)
  if (to === undefined || to.endsWith('/') || to.endsWith(path.sep)) {
    await mkdir(folder, { recursive: true })
    return { kind: 'file', path: path.join(folder, name) }
  }
  const info = await stat(folder).catch(() => undefined)
  return { kind: 'file', path: info?.isDirectory() ? path.join(folder, name) : folder }
}

function describeTarget(target: BackupTarget) {
  if (target.kind === 'stream') return target.label
  if (target.kind === 's3') return `s3://${target.bucket}/${target.key}`
  return target.path
}

/** Take a backup of the whole portal. Only operators (and the super admin) may: it holds every password hash. */
export async function takeBackup(actor: Actor, options: BackupOptions = {}): Promise<BackupResult> {
  requirePermission(actor, 'manage:backups')
  const compression = options.compression ?? 'zstd'
  const secrets = options.includeSecrets ?? false
  const started = new Date()
  const target = await backupTarget(options.to, archiveName(started, compression, secrets))
  const location = describeTarget(target)
  const write = (sink: Writable) => writeArchive(sink, { ...options, compression, secrets, started, location })
  try {
    if (target.kind === 'stream') return await write(target.stream)
    if (target.kind === 'file') return await writeFileAtomically(target.path, write)
    return await uploadToS3(target, compression === 'zstd' ? 'application/zstd' : 'application/gzip', write)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOSPC' && target.kind === 'file')
      throw new Error(`The disk holding ${path.dirname(target.path)} is full; no archive was left.`)
    throw error
  }
}

type WriteOptions = BackupOptions & { compression: Compression; secrets: boolean; started: Date; location: string }

async function writeArchive(sink: Writable, options: WriteOptions): Promise<BackupResult> {
  const spool = await mkdtemp(path.join(os.tmpdir(), 'portal-backup-'))
  const archive = createArchiveWriter(sink, {
    compression: options.compression,
    chunkBytes: options.chunkBytes,
    mtime: options.started,
  })
  try {
    const result = await fillArchive(archive, spool, options)
    await archive.finish()
    return { ...result, bytes: archive.written }
  } catch (error) {
    archive.abort(error instanceof Error ? error : new Error(String(error)))
    throw error
  } finally {
    await rm(spool, { recursive: true, force: true })
  }
}

async function fillArchive(archive: ArchiveWriter, spool: string, options: WriteOptions) {
  const { signal } = options
  const progress: BackupProgress = {
    stage: 'tables',
    tables: { done: 0, total: 0, current: null },
    rows: { done: 0, estimated: 0 },
    bytes: 0,
    files: { done: 0, total: 0 },
    written: 0,
  }
  let reported = 0
  const report = (force = false) => {
    if (!options.onProgress || (!force && performance.now() - reported < 500)) return
    reported = performance.now()
    options.onProgress({ ...progress, written: archive.written })
  }
  const keysFile = path.join(spool, 'files.jsonl')

  // the database: one snapshot, released before the files are read
  const read = await withSnapshot(await databaseUrl(), async (snapshot) => {
    const header: ArchiveHeader = {
      format: 'portal-backup',
      formatVersion: FORMAT_VERSION,
      portalVersion: PORTAL_VERSION,
      migration: snapshot.migration,
      postgres: { version: snapshot.postgres.version, versionNum: snapshot.postgres.versionNum },
      compression: options.compression,
      secrets: options.secrets,
      startedAt: options.started.toISOString(),
      trigger: options.trigger ?? 'cli',
      runId: options.runId ?? null,
    }
    const headerBytes = Buffer.from(`${JSON.stringify(header, null, 2)}\n`)
    await archive.addBuffer(HEADER_ENTRY, headerBytes)
    await snapshot.fileKeys(createWriteStream(keysFile))
    progress.tables.total = snapshot.tables.length
    progress.rows.estimated = snapshot.tables.reduce((sum, t) => sum + t.estimatedRows, 0)
    report(true)
    const tables: Manifest['tables'] = []
    for (const table of snapshot.tables) {
      signal?.throwIfAborted()
      progress.tables.current = table.name
      const sink = archive.tableWriter(table.name)
      const sent = await snapshot.copyTable(table, sink, {
        signal,
        onData(rows, bytes) {
          progress.rows.done += rows
          progress.bytes += bytes
          report()
        },
      })
      const digest = await sink.result()
      if (digest.rows !== sent)
        throw new Error(`The copy of ${table.name} has ${digest.rows} rows where the database sent ${sent}.`)
      tables.push({ name: table.name, columns: table.columns, ...digest })
      progress.tables.done++
    }
    return { snapshot: snapshotFacts(snapshot), headerSha256: sha256(headerBytes), tables }
  })
  const tablesDoneAt = new Date().toISOString()

  // the files the snapshot's rows name, read after it (an upload meanwhile is in neither)
  progress.stage = 'files'
  progress.tables.current = null
  progress.files.total = await countLines(keysFile)
  report(true)
  const indexFile = path.join(spool, 'index.jsonl')
  const index = createWriteStream(indexFile)
  const missing: string[] = []
  let fileBytes = 0
  for await (const line of createInterface({ input: createReadStream(keysFile), crlfDelay: Infinity })) {
    signal?.throwIfAborted()
    const { key } = JSON.parse(line) as { key: string }
    const stored = await storage().get(key)
    if (!stored) {
      // removed since the snapshot (its row is in the archive, as at the source)
      missing.push(key)
      continue
    }
    const digest = await archive.addStream(fileEntry(key), stored.size, stored.body)
    if (!index.write(`${JSON.stringify({ key, size: digest.bytes, sha256: digest.sha256 })}\n`))
      await once(index, 'drain')
    fileBytes += digest.bytes
    progress.files.done++
    report()
  }
  await new Promise<void>((resolve, reject) => index.end((error?: Error | null) => (error ? reject(error) : resolve())))
  const indexDigest = await archive.addStream(
    FILES_INDEX_ENTRY,
    (await stat(indexFile)).size,
    createReadStream(indexFile),
  )

  progress.stage = 'manifest'
  report(true)
  const secrets = options.secrets
    ? await archive.addBuffer(SECRETS_ENTRY, Buffer.from(`${JSON.stringify(secretsOf(), null, 2)}\n`))
    : undefined
  const finishedAt = new Date().toISOString()
  const manifest: Manifest = {
    formatVersion: FORMAT_VERSION,
    portalVersion: PORTAL_VERSION,
    migration: read.snapshot.migration,
    postgres: read.snapshot.postgres,
    startedAt: options.started.toISOString(),
    snapshotAt: read.snapshot.snapshotAt,
    tablesDoneAt,
    finishedAt,
    copy: { ...COPY_SETTINGS },
    tables: read.tables,
    sequences: read.snapshot.sequences,
    files: {
      storage: getEnv().S3_BUCKET ? 's3' : 'disk',
      count: progress.files.done,
      bytes: fileBytes,
      indexSha256: indexDigest.sha256,
      missing,
    },
    excluded: { tables: Object.keys(EXCLUDED_TABLES), schemas: [...EXCLUDED_SCHEMAS] },
    secrets: secrets ? { included: true, bytes: secrets.bytes, sha256: secrets.sha256 } : { included: false },
    header: { sha256: read.headerSha256 },
  }
  const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)
  await archive.addBuffer(MANIFEST_ENTRY, manifestBytes)
  await archive.addBuffer(MANIFEST_HASH_ENTRY, Buffer.from(`${sha256(manifestBytes)}\n`))
  report(true)
  return {
    location: options.location,
    tables: read.tables.length,
    rows: read.tables.reduce((sum, t) => sum + t.rows, 0),
    files: progress.files.done,
    fileBytes,
    missingFiles: missing,
    secrets: options.secrets,
    migration: read.snapshot.migration,
    startedAt: options.started.toISOString(),
    finishedAt,
  }
}

const snapshotFacts = ({ migration, snapshotAt, postgres, sequences }: Snapshot) => ({
  migration,
  snapshotAt,
  postgres,
  sequences,
})

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/**
 * What `--include-secrets` puts in the archive: the signing secrets in effect (from the environment or the
 * data folder) and the S3 and SMTP credentials when set. Never the database's own password or address: they
 * belong to a server, not to the portal's data.
 */
function secretsOf() {
  const env = getEnv()
  const { sessionSecret, jwtSecret, bridgeSecret } = getSecrets()
  return {
    sessionSecret,
    jwtSecret,
    bridgeSecret,
    // the key that signs certificates' credentials: a restore with it signs on with the same key
    certificateSigningKey: getCertificateSigningKey(),
    ...(env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
      ? { s3: { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY } }
      : {}),
    ...(env.SMTP_URL ? { smtpUrl: env.SMTP_URL } : {}),
  }
}

async function countLines(file: string) {
  let lines = 0
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>)
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++
  return lines
}

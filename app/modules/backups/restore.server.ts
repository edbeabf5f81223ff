import { createHash } from 'node:crypto'
import { createWriteStream, readFileSync } from 'node:fs'
import { mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type pg from 'pg'
import type { z } from 'zod'
import { getEnv, getSecrets, resetEnvCache } from '#app/utils/env.server.ts'
import { connect, ListenedClient } from '#db/client.ts'
import { migrate, migrateTables, MIGRATION_NAMES } from '#db/migrate.ts'
import { MARKER_TABLE } from '#db/restore-marker.ts'
import { requirePermission } from '../auth/permissions.ts'
import type { Actor } from '../auth/roles.ts'
import { conflict, invalid } from '../errors.ts'
import { assertKey } from '../files/storage-driver.ts'
import { resetStorage, storage } from '../files/storage.server.ts'
import { rebuildLabDatabases } from '../labs/service.server.ts'
import { readArchive } from './archive.server.ts'
import { CapturedSchema, TableLoad } from './load.server.ts'
import { FILES_INDEX_ENTRY, FileIndexLineSchema, SECRETS_ENTRY, type Manifest } from './manifest.ts'
import { openArchive } from './source.server.ts'
import { verifyArchive } from './verify.server.ts'

// Restoring an archive into an empty database (or, with --force, one whose data is first moved aside):
// verify the whole archive, make the archive's schema with the portal's own migrations, load the tables
// (load.server.ts: over several connections, then keys and indexes), put the files back, then migrate to this
// portal's version. A marker table says the database holds an unfinished restore until the last step is done;
// nothing else opens it meanwhile, and running the restore again with the same archive finishes it.

type RestoreStage = 'verify' | 'target' | 'schema' | 'data' | 'files' | 'current' | 'labs' | 'done'

export type RestoreProgress = {
  stage: RestoreStage
  step?: string
  tables: { done: number; total: number }
  rows: { done: number; total: number }
  files: { done: number; total: number }
}

type RestoreOptions = {
  /** a file, s3://bucket/key, or - for standard input */
  archive: string
  force?: boolean
  /** connections the tables' rows go in through at once (2 unless given) */
  jobs?: number
  onProgress?: (progress: RestoreProgress) => void
  log?: (line: string) => void
}

type RestoreResult = {
  archive: string
  migration: string
  tables: number
  rows: number
  files: { restored: number; skipped: number; missing: string[] }
  movedAside: string[]
  resumed: boolean
  secrets: 'restored' | 'not in the archive'
  labs: { rebuilt: number; failed: { title: string; reason: string }[] }
  warnings: string[]
}

const RESTORE_LOCK = 7_305_003
/** The marker's stage once the tables are emptied and their keys taken off (kept in the marker) for the load. */
const EMPTIED = 'tables emptied'
const APPLICATION = 'portal-restore'

/** Restore the portal from an archive. Only operators (and the super admin) may. */
export async function restoreArchive(actor: Actor, options: RestoreOptions): Promise<RestoreResult> {
  requirePermission(actor, 'manage:backups')
  const log = options.log ?? (() => {})
  const progress: RestoreProgress = {
    stage: 'verify',
    tables: { done: 0, total: 0 },
    rows: { done: 0, total: 0 },
    files: { done: 0, total: 0 },
  }
  const report = (stage: RestoreStage, step?: string) => {
    progress.stage = stage
    progress.step = step
    options.onProgress?.({ ...progress })
  }
  // a restore from standard input reads it twice: it is kept in a file first
  const spool = await mkdtemp(path.join(os.tmpdir(), 'portal-restore-'))
  try {
    let location = options.archive
    if (location === '-') {
      location = path.join(spool, 'archive')
      await pipeline(process.stdin, createWriteStream(location))
    }

    // 1. the whole archive, before anything is touched
    report('verify')
    const verified = await verifyArchive(await openArchive(location), { knownMigrations: MIGRATION_NAMES })
    if (!verified.ok || !verified.manifest || !verified.header) {
      const first = verified.problems[0]
      throw invalid(first?.message ?? 'The archive could not be read.')
    }
    if (!verified.restorable)
      throw invalid(
        verified.problems[0]?.message ??
          `This archive was made by portal ${verified.header.portalVersion} (migration ${verified.header.migration}), ` +
            'newer than this portal: upgrade the portal first.',
      )
    const manifest = verified.manifest
    // the archive's identity, for a restore that resumes: its manifest names every byte of it
    const archiveSha256 = createHash('sha256').update(JSON.stringify(manifest)).digest('hex')
    progress.tables.total = manifest.tables.length
    progress.rows.total = manifest.tables.reduce((sum, t) => sum + t.rows, 0)
    progress.files.total = manifest.files.count

    // 2. the target: empty, an unfinished restore of this archive, or data to move aside (--force)
    report('target')
    const { sequelize, url } = await connect({ applicationName: APPLICATION })
    const client = new ListenedClient({ connectionString: url, application_name: APPLICATION })
    await client.connect()
    try {
      const [{ locked }] = (
        await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [RESTORE_LOCK])
      ).rows
      if (!locked) throw conflict('Another restore into this database is running.')
      const target = await inspectTarget(client, manifest)
      const movedAside: string[] = []
      let resumeFrom: string | null = null
      if (target.marker && target.marker.archiveSha256 === archiveSha256 && !options.force) {
        resumeFrom = target.marker.stage
        log(`Finishing the restore of this archive that stopped after "${resumeFrom}".`)
      } else if (target.marker || target.data || target.ahead) {
        if (!options.force) throw conflict(refusal(target, manifest))
        movedAside.push(...(await moveAside(client)))
      }
      const uploadsAside = await moveUploadsAside(Boolean(options.force), resumeFrom !== null)
      if (uploadsAside) movedAside.push(uploadsAside)

      // 3. the archive's schema, made by this portal's migrations; then the marker
      if (resumeFrom === null) {
        report('schema')
        await migrateTables(sequelize, log, manifest.migration, { restoring: true })
        await client.query(
          `CREATE TABLE ${MARKER_TABLE} (archive text NOT NULL, archive_sha256 text NOT NULL,
             started_at timestamptz NOT NULL DEFAULT now(), stage text NOT NULL, keys jsonb)`,
        )
        await client.query(`INSERT INTO ${MARKER_TABLE} (archive, archive_sha256, stage) VALUES ($1, $2, 'schema')`, [
          options.archive,
          archiveSha256,
        ])
        resumeFrom = 'schema'
      }

      // 4 and 5. the tables, then the files, in one more read of the archive
      const loadData = resumeFrom === 'schema' || resumeFrom === EMPTIED
      const loadFiles = loadData || resumeFrom === 'data'
      let files = { restored: 0, skipped: 0, missing: manifest.files.missing }
      if (loadData || loadFiles) {
        const connectLoader = async () => {
          const loader = new ListenedClient({ connectionString: url, application_name: APPLICATION })
          await loader.connect()
          return loader
        }
        files = await readBack(client, location, manifest, {
          loadData,
          loadFiles,
          saved: resumeFrom === EMPTIED ? await savedKeys(client) : undefined,
          connectLoader,
          jobs: options.jobs ?? 2,
          report,
          progress,
        })
      }

      // 6. this portal's version: the later migrations change the old rows as they would in place
      report('current')
      await migrate(sequelize, log, { restoring: true })
      await setStage(client, 'current')

      // 7. what belongs to this server and this machine: the labs' databases, the secrets
      report('labs')
      const labs = await rebuildLabDatabases(actor)
      const warnings = await restoreSecrets(location, manifest)
      await client.query('ANALYZE')
      await client.query(`DROP TABLE ${MARKER_TABLE}`)
      report('done')
      return {
        archive: options.archive,
        migration: manifest.migration,
        tables: manifest.tables.length,
        rows: progress.rows.total,
        files,
        movedAside,
        resumed: target.marker !== undefined && movedAside.length === 0,
        secrets: manifest.secrets.included ? 'restored' : 'not in the archive',
        labs: { rebuilt: labs.labs - labs.failed.length, failed: labs.failed },
        warnings,
      }
    } finally {
      await client.end().catch(() => undefined)
    }
  } finally {
    await rm(spool, { recursive: true, force: true })
  }
}

type Target = {
  marker?: { archiveSha256: string; stage: string; archive: string }
  /** a table other than the seeded ones has rows: the count of users, for the message */
  data: false | { users: number }
  /** migrated past the archive: its schema cannot be made here */
  ahead: string | false
}

async function inspectTarget(client: pg.Client, manifest: Manifest): Promise<Target> {
  const ident = (name: string) => client.escapeIdentifier(name)
  const { rows: tables } = await client.query<{ name: string }>(
    `SELECT relname AS name FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p')`,
  )
  const names = new Set(tables.map((t) => t.name))
  const target: Target = { data: false, ahead: false }
  if (names.has(MARKER_TABLE)) {
    const { rows } = await client.query<{ archive: string; archive_sha256: string; stage: string }>(
      `SELECT archive, archive_sha256, stage FROM ${MARKER_TABLE} LIMIT 1`,
    )
    target.marker = rows[0]
      ? { archive: rows[0].archive, archiveSha256: rows[0].archive_sha256, stage: rows[0].stage }
      : { archive: 'an archive', archiveSha256: '', stage: 'schema' }
    return target
  }
  for (const name of names) {
    if (name === 'schema_migrations' || name === 'roles') continue
    const { rows } = await client.query<{ found: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${ident(name)}) AS found`)
    if (rows[0].found) {
      const users = names.has('users')
        ? Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM users')).rows[0].n)
        : 0
      target.data = { users }
      break
    }
  }
  if (names.has('schema_migrations')) {
    const { rows } = await client.query<{ last: string | null }>('SELECT max(name) AS last FROM schema_migrations')
    if (rows[0].last && rows[0].last > manifest.migration) target.ahead = rows[0].last
  }
  return target
}

function refusal(target: Target, manifest: Manifest) {
  const force = 'restore into an empty one, or pass --force to move what is there aside (it is kept, never deleted)'
  if (target.marker)
    return `The target database holds an unfinished restore of another archive (${target.marker.archive}); ${force}.`
  if (target.data) return `The target database already holds data (${target.data.users} users); ${force}.`
  return `The target database is already migrated past this archive (${target.ahead}, the archive is at ${manifest.migration}); ${force}.`
}

/**
 * Moves the portal's data aside inside the database: its schema (tables, functions, sequences) is renamed
 * `before_restore_<time>` and the job queue's `before_restore_<time>_pgboss`, in one transaction; the citext
 * extension comes back to the new, empty schema (its type is the same, so the kept tables still read).
 */
async function moveAside(client: pg.Client): Promise<string[]> {
  const { rows: others } = await client.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
        AND application_name <> $1`,
    [APPLICATION],
  )
  const sessions = Number(others[0].n)
  if (sessions > 0)
    throw conflict(
      `Stop the portal's web and worker processes first: ${sessions} other session${sessions === 1 ? ' is' : 's are'} connected to the database.`,
    )
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'z')
    .toLowerCase()
  const schema = `before_restore_${stamp}`
  const ident = (name: string) => client.escapeIdentifier(name)
  const { rows } = await client.query<{ schema: string; database: string; citext: string | null; pgboss: boolean }>(
    `SELECT current_schema() AS schema, current_database() AS database,
            (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'citext') AS citext,
            EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'pgboss') AS pgboss`,
  )
  const current = rows[0]
  const moved = [`the schema ${schema} in the database ${current.database} (the portal's tables)`]
  await client.query('BEGIN')
  try {
    await client.query(`ALTER SCHEMA ${ident(current.schema)} RENAME TO ${ident(schema)}`)
    await client.query(`CREATE SCHEMA ${ident(current.schema)}`)
    if (current.citext === current.schema)
      await client.query(`ALTER EXTENSION citext SET SCHEMA ${ident(current.schema)}`)
    if (current.pgboss) {
      await client.query(`ALTER SCHEMA pgboss RENAME TO ${ident(`${schema}_pgboss`)}`)
      moved.push(`the schema ${schema}_pgboss in the database ${current.database} (the job queue's)`)
    }
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  }
  return moved
}

/** Uploads kept on this machine's disk are data too: with --force they are renamed aside, else refused. */
async function moveUploadsAside(force: boolean, resuming: boolean): Promise<string | undefined> {
  const env = getEnv()
  if (env.S3_BUCKET || resuming) return undefined
  const uploads = path.join(env.DATA_DIR, 'uploads')
  const entries = await readdir(uploads).catch(() => [])
  if (!entries.some((name) => !name.startsWith('.'))) return undefined
  if (!force)
    throw conflict(`${uploads} already holds uploaded files; pass --force to move them aside (kept, never deleted).`)
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
  const aside = `${uploads}.before-restore-${stamp}`
  await rename(uploads, aside)
  resetStorage()
  return aside
}

async function setStage(client: pg.Client, stage: string) {
  await client.query(`UPDATE ${MARKER_TABLE} SET stage = $1`, [stage])
}

type ReadBackOptions = {
  loadData: boolean
  loadFiles: boolean
  /** the keys an earlier load of this archive took off, kept in the marker */
  saved?: z.infer<typeof CapturedSchema>
  connectLoader: () => Promise<pg.Client>
  jobs: number
  report: (stage: RestoreStage, step?: string) => void
  progress: RestoreProgress
}

/** What the load of this archive that stopped took off its tables, to be put back after this one. */
async function savedKeys(client: pg.Client) {
  const { rows } = await client.query<{ keys: unknown }>(`SELECT keys FROM ${MARKER_TABLE} LIMIT 1`)
  return CapturedSchema.parse(rows[0]?.keys)
}

/**
 * The archive read once more: its tables loaded (when not done yet) and committed with the marker moved to
 * `data`, then its files put back. Each entry is checked again as it is read: the archive may have changed
 * since it was verified.
 */
async function readBack(client: pg.Client, location: string, manifest: Manifest, o: ReadBackOptions) {
  const load = o.loadData ? new TableLoad(client, manifest, { connect: o.connectLoader, jobs: o.jobs }) : undefined
  let loading = false
  const files = { restored: 0, skipped: 0, missing: manifest.files.missing }
  const fileHashes = new Map<string, { size: number; sha256: string }>()
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'portal-restore-file-'))
  let lastTable = ''
  try {
    for await (const entry of readArchive(await openArchive(location))) {
      if (entry.name.startsWith('data/')) {
        if (!load) {
          entry.body.resume()
          continue
        }
        if (!loading) {
          o.report('data')
          loading = true
          await load.begin({
            saved: o.saved,
            onPrepared: async (client, captured) => {
              await client.query(`UPDATE ${MARKER_TABLE} SET stage = $1, keys = $2`, [
                EMPTIED,
                JSON.stringify(captured),
              ])
            },
          })
        }
        await load.chunk(entry.name, entry.body, ({ table, rows }) => {
          if (table !== lastTable) o.progress.tables.done++
          lastTable = table
          o.progress.rows.done += rows
          o.report('data', table)
        })
        continue
      }
      if (loading && load) {
        await finishLoad(client, load, o)
        loading = false
      }
      if (entry.name.startsWith('files/')) {
        const key = entry.name.slice('files/'.length)
        assertKey(key)
        if (!o.loadFiles) {
          entry.body.resume()
          continue
        }
        const outcome = await putFile(key, entry.body, entry.size, scratch)
        fileHashes.set(key, outcome)
        files[outcome.skipped ? 'skipped' : 'restored']++
        o.progress.files.done++
        o.report('files')
        continue
      }
      if (entry.name === FILES_INDEX_ENTRY && o.loadFiles) {
        const text = await readAll(entry.body)
        for (const line of text.split('\n').filter(Boolean)) {
          const { key, size, sha256 } = FileIndexLineSchema.parse(JSON.parse(line))
          const got = fileHashes.get(key)
          if (!got || got.size !== size || got.sha256 !== sha256)
            throw new Error(`The archive changed since it was verified: files/${key} does not match its checksum.`)
        }
        continue
      }
      entry.body.resume()
    }
    // an archive with no files ends its tables at its end
    if (loading && load) await finishLoad(client, load, o)
    if (o.loadFiles) await setStage(client, 'files')
    return files
  } catch (error) {
    if (loading) await client.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    await load?.close()
    await rm(scratch, { recursive: true, force: true })
  }
}

async function finishLoad(client: pg.Client, load: TableLoad, o: ReadBackOptions) {
  await load.finish((step) => o.report('data', step))
  // a scheduled backup that was running when the snapshot was taken (this archive's own, or another) is over:
  // left open, the restored portal would take it again
  const [{ runs }] = (await client.query<{ runs: boolean }>("SELECT to_regclass('backup_runs') IS NOT NULL AS runs"))
    .rows
  if (runs)
    await client.query(
      `UPDATE backup_runs SET status = 'failed', finished_at = now(),
              error = 'Interrupted: the portal was restored from a backup taken while this ran.'
        WHERE status IN ('queued', 'running')`,
    )
  await setStage(client, 'data')
  await client.query('COMMIT')
  await load.close()
}

/**
 * One file back into storage, through a scratch file (its size is known to S3, and a half-written body is
 * never at its key). A body already there with the same bytes is left as it is: the usual disaster loses the
 * database, not the bucket.
 */
async function putFile(key: string, body: Readable, size: number, scratch: string) {
  const file = path.join(scratch, 'body')
  const hash = createHash('sha256')
  const sink = createWriteStream(file)
  await pipeline(
    body,
    async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        hash.update(chunk)
        yield chunk
      }
    },
    sink,
  )
  const sha256 = hash.digest('hex')
  const existing = await storage().get(key)
  if (existing) {
    const there = createHash('sha256')
    for await (const chunk of existing.body as AsyncIterable<Buffer>) there.update(chunk)
    if (there.digest('hex') === sha256) return { size, sha256, skipped: true }
    throw conflict(
      `The stored file ${key} differs from the archive's; move it away (or give the portal an empty bucket) and run the restore again.`,
    )
  }
  const contentType = 'application/octet-stream'
  await storage().put(key, { file, size: (await stat(file)).size }, contentType)
  return { size, sha256, skipped: false }
}

async function readAll(body: NodeJS.ReadableStream) {
  const chunks: Buffer[] = []
  for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(chunk)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * An archive's secrets go to `$DATA_DIR/secrets.json` (the database password kept, a different file kept
 * aside); its S3 and SMTP credentials to `$DATA_DIR/restored-credentials.env` for the operator to move into
 * the service's environment. A signing secret the environment sets differently is named in a warning.
 */
async function restoreSecrets(location: string, manifest: Manifest): Promise<string[]> {
  if (!manifest.secrets.included) return []
  let raw: string | undefined
  for await (const entry of readArchive(await openArchive(location))) {
    if (entry.name === SECRETS_ENTRY) raw = await readAll(entry.body)
    else entry.body.resume()
  }
  if (!raw) throw new Error('The archive says it holds secrets, but has none.')
  const secrets = JSON.parse(raw) as {
    sessionSecret: string
    jwtSecret: string
    bridgeSecret: string
    /** archives made before certificates have none */
    certificateSigningKey?: string
    s3?: { accessKeyId: string; secretAccessKey: string }
    smtpUrl?: string
  }
  const env = getEnv()
  const file = path.join(env.DATA_DIR, 'secrets.json')
  const { databasePassword } = getSecrets()
  let before: Record<string, string> = {}
  try {
    before = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>
  } catch {
    // none yet
  }
  const next = {
    sessionSecret: secrets.sessionSecret,
    jwtSecret: secrets.jwtSecret,
    bridgeSecret: secrets.bridgeSecret,
    databasePassword,
    // the archive's signing key, else the one this data folder had: never none, never a new one by surprise
    ...((secrets.certificateSigningKey ?? before.certificateSigningKey)
      ? { certificateSigningKey: secrets.certificateSigningKey ?? before.certificateSigningKey }
      : {}),
  }
  if (
    Object.keys(before).length &&
    (['sessionSecret', 'jwtSecret', 'bridgeSecret'] as const).some((k) => before[k] !== next[k])
  )
    await rename(file, `${file}.before-restore-${Date.now()}`)
  await writeFile(file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 })
  const warnings: string[] = []
  const set = { SESSION_SECRET: env.SESSION_SECRET, JWT_SECRET: env.JWT_SECRET, BRIDGE_SECRET: env.BRIDGE_SECRET }
  const archived = {
    SESSION_SECRET: secrets.sessionSecret,
    JWT_SECRET: secrets.jwtSecret,
    BRIDGE_SECRET: secrets.bridgeSecret,
  }
  for (const name of Object.keys(set) as (keyof typeof set)[])
    if (set[name] && set[name] !== archived[name])
      warnings.push(
        `${name} in the environment differs from the archive's: what was signed before the backup will not verify.`,
      )
  if (secrets.s3 || secrets.smtpUrl) {
    const lines = [
      ...(secrets.s3
        ? [`S3_ACCESS_KEY_ID=${secrets.s3.accessKeyId}`, `S3_SECRET_ACCESS_KEY=${secrets.s3.secretAccessKey}`]
        : []),
      ...(secrets.smtpUrl ? [`SMTP_URL=${secrets.smtpUrl}`] : []),
    ]
    const credentials = path.join(env.DATA_DIR, 'restored-credentials.env')
    await writeFile(credentials, `${lines.join('\n')}\n`, { mode: 0o600 })
    warnings.push(
      `The archive's S3 and SMTP credentials are in ${credentials}: move them into the portal's environment.`,
    )
  }
  resetEnvCache()
  return warnings
}

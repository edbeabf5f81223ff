import { Transform, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type pg from 'pg'
import { to as copyTo } from 'pg-copy-streams'
import QueryStream from 'pg-query-stream'
import { ListenedClient } from '#db/client.ts'
import { MIGRATION_LOCK } from '#db/migrate.ts'
import { conflict, invalid } from '../errors.ts'

// The database side of a backup: one connection of its own, one consistent snapshot (a REPEATABLE READ,
// READ ONLY transaction), every table of the portal's schema copied out as COPY text from it.

/**
 * Tables of the schema that are not in an archive, each with its reason; every other table is, so a table a
 * later migration adds is backed up without anyone remembering to list it.
 */
export const EXCLUDED_TABLES: Readonly<Record<string, string>> = {
  schema_migrations: 'made again by the migrations a restore runs; the archive names its last migration',
  lab_sandbox: 'the password of a role on this database server; a restored portal makes its own',
  portal_restore_marker: 'marks a restore that has not finished; never part of a complete database',
}

/** Schemas of the database that are not copied: the job queue's, which the portal installs again. */
export const EXCLUDED_SCHEMAS = ['pgboss'] as const

/**
 * The session settings COPY text is written and read with, so that its bytes (and their checksums) do not
 * depend on either server's configuration: dates, intervals, times in UTC, floats that round-trip, hex bytea.
 */
export const COPY_SETTINGS = {
  DateStyle: 'ISO, YMD',
  IntervalStyle: 'postgres',
  TimeZone: 'UTC',
  extra_float_digits: 3,
  bytea_output: 'hex',
  client_encoding: 'UTF8',
} as const

/** Any number, the same in every process: two backups of one database never run at once. */
const BACKUP_LOCK = 7_305_002

type SnapshotTable = { name: string; columns: string[]; estimatedRows: number }
type SnapshotSequence = { name: string; table: string; column: string; lastValue: string; isCalled: boolean }

type CopyOptions = {
  signal?: AbortSignal
  /** rows (line ends) and bytes of COPY text as they go by, for a progress line */
  onData?: (rows: number, bytes: number) => void
}

export type Snapshot = {
  migration: string
  snapshotAt: string
  postgres: { version: string; versionNum: number; encoding: string }
  tables: SnapshotTable[]
  sequences: SnapshotSequence[]
  /** COPY one table's rows out into `sink` (which it ends); the number of rows the server sent */
  copyTable(table: SnapshotTable, sink: Writable, options?: CopyOptions): Promise<number>
  /** every stored file's key and size, in key order, as of the snapshot */
  fileKeys(sink: Writable): Promise<void>
}

/**
 * Runs `work` inside one snapshot of the database at `url`. Before the snapshot starts it waits for a running
 * migration to commit and keeps new ones from starting (a shared hold on the lock migrations take), so the
 * tables the archive names are the ones of its migration. The snapshot ends when `work` settles; what
 * `work` does after reading the database (files, the manifest) should happen after, through the result.
 */
export async function withSnapshot<T>(url: string, work: (snapshot: Snapshot) => Promise<T>): Promise<T> {
  const client = new ListenedClient({ connectionString: url, application_name: 'portal-backup' })
  await client.connect()
  try {
    const [{ locked }] = (
      await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [BACKUP_LOCK])
    ).rows
    if (!locked) throw conflict('Another backup of this database is running.')
    await client.query('SELECT pg_advisory_lock_shared($1)', [MIGRATION_LOCK])
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    for (const [name, value] of Object.entries(COPY_SETTINGS))
      await client.query('SELECT set_config($1, $2, true)', [name, String(value)])
    await client.query(
      "SET LOCAL statement_timeout = 0; SET LOCAL idle_in_transaction_session_timeout = 0; SET LOCAL lock_timeout = '10s'",
    )
    const snapshot = await readSnapshot(client)
    const result = await work(snapshot)
    await client.query('COMMIT')
    return result
  } finally {
    // ending the session ends its transaction and lets go of both locks
    await client.end().catch(() => undefined)
  }
}

async function readSnapshot(client: pg.Client): Promise<Snapshot> {
  const { rows: marker } = await client.query<{ found: boolean }>(
    "SELECT to_regclass('portal_restore_marker') IS NOT NULL AS found",
  )
  if (marker[0].found)
    throw conflict('This database holds a restore that has not finished; finish it before taking a backup.')
  const { rows: about } = await client.query<{
    migration: string | null
    at: Date
    version: string
    num: string
    encoding: string
  }>(
    `SELECT (SELECT max(name) FROM schema_migrations) AS migration, now() AS at,
            current_setting('server_version') AS version, current_setting('server_version_num') AS num,
            pg_encoding_to_char(encoding) AS encoding
       FROM pg_database WHERE datname = current_database()`,
  )
  if (!about[0].migration) throw invalid('This database has no portal tables yet: there is nothing to back up.')
  const { rows: tables } = await client.query<{ name: string; columns: string[]; estimate: number }>(
    `SELECT c.relname AS name, array_agg(a.attname::text ORDER BY a.attnum) AS columns,
            greatest(c.reltuples, 0)::float8 AS estimate
       FROM pg_class c
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
        AND NOT (c.relname = ANY ($1))
      GROUP BY c.oid, c.relname, c.reltuples
      ORDER BY c.relname`,
    [Object.keys(EXCLUDED_TABLES)],
  )
  const { rows: owned } = await client.query<{ name: string; table: string; column: string }>(
    `SELECT s.relname AS name, t.relname AS table, a.attname AS column
       FROM pg_class s
       JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = s.oid
                       AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
       JOIN pg_class t ON t.oid = d.refobjid
       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
      WHERE s.relkind = 'S' AND s.relnamespace = current_schema()::regnamespace AND t.relname = ANY ($1)
      ORDER BY s.relname`,
    [tables.map((t) => t.name)],
  )
  const sequences: SnapshotSequence[] = []
  for (const sequence of owned) {
    const { rows } = await client.query<{ last: string; called: boolean }>(
      `SELECT last_value::text AS last, is_called AS called FROM ${client.escapeIdentifier(sequence.name)}`,
    )
    sequences.push({ ...sequence, lastValue: rows[0].last, isCalled: rows[0].called })
  }
  // as pg_dump does: the tables cannot be dropped or altered while they are read
  if (tables.length)
    await client
      .query(`LOCK TABLE ${tables.map((t) => client.escapeIdentifier(t.name)).join(', ')} IN ACCESS SHARE MODE`)
      .catch((error: unknown) => {
        // only a change of a table's shape (or a TRUNCATE) holds a lock this waits on
        if ((error as { code?: string }).code !== '55P03') throw error
        throw conflict(
          'A change to the tables (a migration, or an operator’s ALTER or TRUNCATE) held them for 10 seconds; the backup ' +
            'was not started. Try again when it is done.',
        )
      })
  await client.query('SET LOCAL lock_timeout = 0')

  return {
    migration: about[0].migration,
    snapshotAt: about[0].at.toISOString(),
    postgres: { version: about[0].version, versionNum: Number(about[0].num), encoding: about[0].encoding },
    tables: tables.map((t) => ({ name: t.name, columns: t.columns, estimatedRows: Math.round(t.estimate) })),
    sequences,
    async copyTable(table, sink, { signal, onData } = {}) {
      const columns = table.columns.map((c) => client.escapeIdentifier(c)).join(', ')
      const source = client.query(copyTo(`COPY ${client.escapeIdentifier(table.name)} (${columns}) TO STDOUT`))
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          let rows = 0
          for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) rows++
          onData?.(rows, chunk.length)
          done(null, chunk)
        },
      })
      await pipeline(source, counter, sink, { signal })
      return source.rowCount
    },
    async fileKeys(sink) {
      const rows = client.query(new QueryStream('SELECT key, size FROM files ORDER BY key', [], { batchSize: 1000 }))
      await pipeline(
        rows,
        async function* (source: AsyncIterable<{ key: string; size: number }>) {
          for await (const row of source) yield `${JSON.stringify({ key: row.key, size: row.size })}\n`
        },
        sink,
      )
    },
  }
}

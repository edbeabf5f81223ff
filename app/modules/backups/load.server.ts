import { createHash } from 'node:crypto'
import { once } from 'node:events'
import type { Readable } from 'node:stream'
import type pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { z } from 'zod'
import type { Manifest } from './manifest.ts'
import { COPY_SETTINGS } from './snapshot.server.ts'

// Loading an archive's tables into a database that has exactly the archive's schema, in three steps:
//
// 1. `begin`: keys, constraints and indexes are taken off (building an index once is much faster than
//    keeping it up row by row, and re-adding a foreign key checks it with one join, so the tables load in any
//    order), the portal's own triggers are switched off (the tallies they keep are in the archive, taken in
//    the same snapshot as the rows they count, and must not count the loaded rows a second time), and the
//    tables are emptied: one transaction, committed with the definitions it took off (`onPrepared` keeps them
//    in the restore's marker), so a restore that stops later can put them back.
// 2. `chunk`: the COPY text goes in over several connections at once, one transaction each, entry by entry in
//    turn: PostgreSQL parses COPY text on one core per connection, and that parsing is most of a restore.
// 3. `finish`: those transactions commit; the same connections build the indexes, the largest tables' first,
//    each taking the next when it is done (the key and unique constraints' own indexes too, attached to their
//    constraints after), and check the foreign keys, a table's at a time; a last transaction on the first
//    connection switches the triggers back on and sets the sequences, and the caller commits it. Until then
//    the database is marked as holding an unfinished restore.

const DefinitionSchema = z.object({
  table: z.string(),
  name: z.string(),
  definition: z.string(),
  /** a key or unique constraint's index, built apart and then attached to it */
  index: z.string().optional(),
})
export const CapturedSchema = z.object({
  foreignKeys: z.array(DefinitionSchema),
  constraints: z.array(DefinitionSchema),
  indexes: z.array(DefinitionSchema),
})
type Captured = z.infer<typeof CapturedSchema>

type LoadProgress = { table: string; rows: number; bytes: number }
type Table = Manifest['tables'][number]

/** One connection loading: the table its COPY is open on, the piece it is writing, what went wrong. */
type Loader = {
  client: pg.Client
  copy?: { table: Table; stream: ReturnType<typeof copyFrom> }
  busy: Promise<void>
  error?: Error
  rows: Map<string, number>
}

// a connection may wait a long while between two pieces (the others' turns, a big file's entry)
const SESSION =
  'SET LOCAL synchronous_commit = off; SET LOCAL statement_timeout = 0; SET LOCAL idle_in_transaction_session_timeout = 0'

export class TableLoad {
  #client: pg.Client
  #manifest: Manifest
  #connect: () => Promise<pg.Client>
  #jobs: number
  #captured: Captured | undefined
  #loaders: Loader[] = []
  #turn = 0

  /**
   * `client` takes the load's DDL; `connect` opens the `jobs` connections the rows go in through (closed by
   * `close`).
   */
  constructor(client: pg.Client, manifest: Manifest, options: { connect: () => Promise<pg.Client>; jobs: number }) {
    this.#client = client
    this.#manifest = manifest
    this.#connect = options.connect
    this.#jobs = options.jobs
  }

  /**
   * Checks the schema against the archive, takes off keys and triggers, empties the tables, and commits that
   * with what `onPrepared` writes. `saved`: what an earlier, unfinished load of this archive took off.
   */
  async begin(options: { saved?: Captured; onPrepared: (client: pg.Client, captured: Captured) => Promise<void> }) {
    const client = this.#client
    await client.query('BEGIN')
    try {
      await client.query(SESSION)
      await this.#checkSchema()
      const tables = this.#manifest.tables.map((t) => t.name)
      const captured = options.saved ?? (await capture(client, tables))
      const ident = (name: string) => client.escapeIdentifier(name)
      for (const fk of captured.foreignKeys)
        await client.query(`ALTER TABLE ${ident(fk.table)} DROP CONSTRAINT IF EXISTS ${ident(fk.name)}`)
      for (const constraint of captured.constraints)
        await client.query(`ALTER TABLE ${ident(constraint.table)} DROP CONSTRAINT IF EXISTS ${ident(constraint.name)}`)
      for (const index of captured.indexes) await client.query(`DROP INDEX IF EXISTS ${ident(index.name)}`)
      for (const table of tables) await client.query(`ALTER TABLE ${ident(table)} DISABLE TRIGGER USER`)
      // what the migrations seeded (the roles) goes too: the archive has the rows as they were
      if (tables.length) await client.query(`TRUNCATE ${tables.map(ident).join(', ')}`)
      await options.onPrepared(client, captured)
      await client.query('COMMIT')
      this.#captured = captured
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    }
    for (let i = 0; i < this.#jobs; i++) {
      const loader: Loader = { client: await this.#connect(), busy: Promise.resolve(), rows: new Map() }
      this.#loaders.push(loader)
      await loader.client.query('BEGIN')
      await loader.client.query(SESSION)
      for (const [name, value] of Object.entries(COPY_SETTINGS))
        await loader.client.query('SELECT set_config($1, $2, true)', [name, String(value)])
    }
  }

  /**
   * One piece of a table's COPY text (an archive entry `data/<table>/NNNNNN.tsv`), read whole and checked
   * against the manifest's hash, then given to the next connection once it has written its last piece: the
   * archive is read while the connections write. A piece that differs fails the load before anything commits.
   */
  async chunk(entry: string, body: Readable, onProgress?: (progress: LoadProgress) => void) {
    const [, tableName] = entry.split('/')
    const table = this.#manifest.tables.find((t) => t.name === tableName)
    const expected = table?.chunks.find((c) => c.name === entry)
    if (!table || !expected) throw new Error(`The archive's entry ${entry} is not in its manifest.`)
    const hash = createHash('sha256')
    const pieces: Buffer[] = []
    let bytes = 0
    for await (const data of body as AsyncIterable<Buffer>) {
      hash.update(data)
      pieces.push(data)
      bytes += data.length
    }
    if (hash.digest('hex') !== expected.sha256 || bytes !== expected.bytes)
      throw new Error(`The archive changed since it was verified: ${entry} does not match its checksum.`)
    const loader = this.#loaders[this.#turn++ % this.#loaders.length]
    await loader.busy
    this.#failed()
    loader.busy = this.#write(loader, table, Buffer.concat(pieces, bytes)).catch((error: unknown) => {
      loader.error ??= error instanceof Error ? error : new Error(String(error))
    })
    onProgress?.({ table: table.name, rows: expected.rows, bytes })
  }

  async #write(loader: Loader, table: Table, data: Buffer) {
    if (loader.copy?.table !== table) {
      await endCopy(loader)
      const client = loader.client
      const columns = table.columns.map((c) => client.escapeIdentifier(c)).join(', ')
      const stream = client.query(copyFrom(`COPY ${client.escapeIdentifier(table.name)} (${columns}) FROM STDIN`))
      // a refusal of the server comes as the stream's error: kept, and thrown by the next piece or `finish`
      stream.on('error', (error: Error) => (loader.error ??= error))
      loader.copy = { table, stream }
    }
    const stream = loader.copy.stream
    await new Promise<void>((resolve, reject) =>
      stream.write(data, (error) => (error ? reject(loader.error ?? error) : resolve())),
    )
  }

  /** The first error of a connection, thrown where the load goes on. */
  #failed() {
    const failed = this.#loaders.find((l) => l.error)
    if (failed) throw failed.error
  }

  /**
   * The connections' COPYs end and commit, each table's rows counted against the archive; then, in a
   * transaction the caller commits, keys, constraints, indexes, foreign keys and triggers come back and the
   * sequences are set.
   */
  async finish(onStep?: (step: string) => void) {
    for (const loader of this.#loaders) {
      await loader.busy
      this.#failed()
      await endCopy(loader)
    }
    const loaded = new Map<string, number>()
    for (const loader of this.#loaders)
      for (const [table, rows] of loader.rows) loaded.set(table, (loaded.get(table) ?? 0) + rows)
    const missing = this.#manifest.tables.filter((t) => t.rows > 0 && !loaded.has(t.name))
    if (missing.length) throw new Error(`The archive has no data for ${missing.map((t) => t.name).join(', ')}.`)
    for (const table of this.#manifest.tables) {
      const rows = loaded.get(table.name) ?? 0
      if (rows !== table.rows) throw new Error(`${table.name} loaded ${rows} rows where the archive has ${table.rows}.`)
    }
    for (const loader of this.#loaders) {
      await loader.client.query('COMMIT')
      // from here each statement is its own transaction: two connections never wait on each other's locks
      await loader.client.query(
        "SET maintenance_work_mem = '256MB'; SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0",
      )
    }

    const client = this.#client
    const ident = (name: string) => client.escapeIdentifier(name)
    const captured = this.#captured!
    const size = await tableSizes(
      client,
      this.#manifest.tables.map((t) => t.name),
    )
    const bySize = <T extends { table: string }>(items: T[]) =>
      items.toSorted((a, b) => (size.get(b.table) ?? 0) - (size.get(a.table) ?? 0))
    onStep?.('keys and indexes')
    const builds = bySize([
      ...captured.constraints.filter((c) => c.index).map((c) => ({ table: c.table, sql: c.index! })),
      ...captured.indexes.map((i) => ({ table: i.table, sql: i.definition })),
    ])
    await this.#inTurn(builds, (loader, build) => loader.query(build.sql))
    for (const constraint of captured.constraints) {
      const table = ident(constraint.table)
      const name = ident(constraint.name)
      await client.query(
        constraint.index
          ? `ALTER TABLE ${table} ADD CONSTRAINT ${name} ${constraint.definition.startsWith('PRIMARY KEY') ? 'PRIMARY KEY' : 'UNIQUE'} USING INDEX ${name}`
          : `ALTER TABLE ${table} ADD CONSTRAINT ${name} ${constraint.definition}`,
      )
    }
    onStep?.('foreign keys')
    // added unchecked, then checked over the connections: a table's keys one after another (checking one
    // locks its table against the others' checks)
    const toCheck = new Map<string, string[]>()
    for (const fk of captured.foreignKeys) {
      const checked = !/\bNOT VALID$/.test(fk.definition)
      await client.query(
        `ALTER TABLE ${ident(fk.table)} ADD CONSTRAINT ${ident(fk.name)} ${fk.definition}${checked ? ' NOT VALID' : ''}`,
      )
      if (checked) toCheck.set(fk.table, [...(toCheck.get(fk.table) ?? []), fk.name])
    }
    const checks = bySize([...toCheck].map(([table, names]) => ({ table, names })))
    await this.#inTurn(checks, async (loader, { table, names }) => {
      for (const name of names) await loader.query(`ALTER TABLE ${ident(table)} VALIDATE CONSTRAINT ${ident(name)}`)
    })

    await client.query('BEGIN')
    await client.query(SESSION)
    for (const table of this.#manifest.tables)
      await client.query(`ALTER TABLE ${ident(table.name)} ENABLE TRIGGER USER`)
    for (const sequence of this.#manifest.sequences)
      await client.query('SELECT setval($1::regclass, $2::bigint, $3)', [
        ident(sequence.name),
        sequence.lastValue,
        sequence.isCalled,
      ])
  }

  /** Each item on the next connection free, all connections at work until none is left; the first error stops it. */
  async #inTurn<T>(items: T[], work: (client: pg.Client, item: T) => Promise<unknown>) {
    let next = 0
    await Promise.all(
      this.#loaders.map(async (loader) => {
        while (next < items.length) await work(loader.client, items[next++])
      }),
    )
  }

  /** The loading connections closed: a transaction not committed is rolled back by the server. */
  async close() {
    const loaders = this.#loaders.splice(0)
    await Promise.all(
      loaders.map(async (loader) => {
        loader.copy?.stream.destroy()
        await loader.client.end().catch(() => undefined)
      }),
    )
  }

  /** The archive's tables and columns must be the ones of the schema its migration made here. */
  async #checkSchema() {
    const { rows } = await this.#client.query<{ name: string; columns: string[] }>(
      `SELECT c.relname AS name, array_agg(a.attname::text ORDER BY a.attnum) AS columns
         FROM pg_class c
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND c.relname = ANY ($1)
        GROUP BY c.relname`,
      [this.#manifest.tables.map((t) => t.name)],
    )
    const here = new Map(rows.map((r) => [r.name, new Set(r.columns)]))
    for (const table of this.#manifest.tables) {
      const columns = here.get(table.name)
      if (!columns)
        throw new Error(
          `The archive does not match migration ${this.#manifest.migration}: there is no table ${table.name}.`,
        )
      const unknown = table.columns.find((c) => !columns.has(c))
      if (unknown)
        throw new Error(
          `The archive does not match migration ${this.#manifest.migration}: table ${table.name} has no column ${unknown}.`,
        )
    }
  }
}

/** The connection's COPY ended, its rows counted to its table. */
async function endCopy(loader: Loader) {
  const copy = loader.copy
  if (!copy) return
  loader.copy = undefined
  const done = once(copy.stream, 'finish')
  copy.stream.end()
  await done
  const rows = (copy.stream as unknown as { rowCount: number }).rowCount
  loader.rows.set(copy.table.name, (loader.rows.get(copy.table.name) ?? 0) + rows)
}

/** The foreign keys, key and unique constraints, and other indexes of the tables, as the catalog defines them. */
async function capture(client: pg.Client, tables: string[]): Promise<Captured> {
  const { rows: constraints } = await client.query<{
    table: string
    name: string
    kind: string
    definition: string
    index: string | null
  }>(
    // a key or unique constraint not deferrable, whose index has its name, can be attached to an index built
    // apart (ADD CONSTRAINT … USING INDEX); building that index locks the table against writes only
    `SELECT t.relname AS table, c.conname AS name, c.contype AS kind, pg_get_constraintdef(c.oid) AS definition,
            CASE WHEN c.contype IN ('p', 'u') AND NOT c.condeferrable AND i.relname = c.conname
                 THEN pg_get_indexdef(c.conindid) END AS index
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid LEFT JOIN pg_class i ON i.oid = c.conindid
      WHERE t.relnamespace = current_schema()::regnamespace AND t.relname = ANY ($1) AND c.contype IN ('f', 'p', 'u', 'x')
      ORDER BY t.relname, c.conname`,
    [tables],
  )
  const { rows: indexes } = await client.query<{ table: string; name: string; definition: string }>(
    `SELECT t.relname AS table, i.relname AS name, pg_get_indexdef(i.oid) AS definition
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      WHERE t.relnamespace = current_schema()::regnamespace AND t.relname = ANY ($1)
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.contype IN ('p', 'u', 'x'))
      ORDER BY t.relname, i.relname`,
    [tables],
  )
  const definition = ({ table, name, definition }: { table: string; name: string; definition: string }) => ({
    table,
    name,
    definition,
  })
  return {
    foreignKeys: constraints.filter((c) => c.kind === 'f').map(definition),
    constraints: constraints
      .filter((c) => c.kind !== 'f')
      .map((c) => ({ ...definition(c), ...(c.index ? { index: c.index } : {}) })),
    indexes: indexes.map(definition),
  }
}

/** The tables' sizes on disk, for the largest tables' indexes to be built first. */
async function tableSizes(client: pg.Client, tables: string[]) {
  const { rows } = await client.query<{ table: string; bytes: string }>(
    `SELECT c.relname AS table, pg_relation_size(c.oid) AS bytes FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relname = ANY ($1)`,
    [tables],
  )
  return new Map(rows.map((r) => [r.table, Number(r.bytes)]))
}

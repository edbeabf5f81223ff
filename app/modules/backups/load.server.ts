import { createHash } from 'node:crypto'
import { once } from 'node:events'
import type { Readable } from 'node:stream'
import type pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import type { Manifest } from './manifest.ts'
import { COPY_SETTINGS } from './snapshot.server.ts'

// Loading an archive's tables into a database that has exactly the archive's schema, in one transaction:
// a restore killed part-way leaves nothing of the load behind, DDL included.
//
// Keys, constraints and indexes are taken off first and put back after (building an index once is much
// faster than keeping it up row by row, and re-adding a foreign key checks it with one join), so the tables
// load in any order. The portal's own triggers are switched off: the tallies they keep are in the archive,
// taken in the same snapshot as the rows they count, and must not count the loaded rows a second time.

type Definition = { table: string; name: string; definition: string }
type Captured = { foreignKeys: Definition[]; constraints: Definition[]; indexes: Definition[] }

type LoadProgress = { table: string; rows: number; bytes: number }

export class TableLoad {
  #client: pg.Client
  #manifest: Manifest
  #captured: Captured | undefined
  #current:
    { table: Manifest['tables'][number]; copy: pg.Submittable & NodeJS.WritableStream; chunk: number } | undefined
  #loaded = new Set<string>()

  constructor(client: pg.Client, manifest: Manifest) {
    this.#client = client
    this.#manifest = manifest
  }

  /** Opens the transaction, checks the schema against the archive, takes off keys and triggers, empties the tables. */
  async begin() {
    const client = this.#client
    await client.query('BEGIN')
    for (const [name, value] of Object.entries(COPY_SETTINGS))
      await client.query('SELECT set_config($1, $2, true)', [name, String(value)])
    await client.query(
      "SET LOCAL synchronous_commit = off; SET LOCAL maintenance_work_mem = '256MB'; SET LOCAL statement_timeout = 0",
    )
    await this.#checkSchema()
    const tables = this.#manifest.tables.map((t) => t.name)
    this.#captured = await capture(client, tables)
    const ident = (name: string) => client.escapeIdentifier(name)
    for (const fk of this.#captured.foreignKeys)
      await client.query(`ALTER TABLE ${ident(fk.table)} DROP CONSTRAINT ${ident(fk.name)}`)
    for (const constraint of this.#captured.constraints)
      await client.query(`ALTER TABLE ${ident(constraint.table)} DROP CONSTRAINT ${ident(constraint.name)}`)
    for (const index of this.#captured.indexes) await client.query(`DROP INDEX ${ident(index.name)}`)
    for (const table of tables) await client.query(`ALTER TABLE ${ident(table)} DISABLE TRIGGER USER`)
    // what the migrations seeded (the roles) goes too: the archive has the rows as they were
    if (tables.length) await client.query(`TRUNCATE ${tables.map(ident).join(', ')}`)
  }

  /**
   * One chunk of a table's COPY text (an archive entry `data/<table>/NNNNNN.tsv`), checked against the
   * manifest's hash as it goes in: a chunk that differs fails the load before it commits.
   */
  async chunk(entry: string, body: Readable, onProgress?: (progress: LoadProgress) => void) {
    const [, tableName] = entry.split('/')
    const table = this.#manifest.tables.find((t) => t.name === tableName)
    const expected = table?.chunks.find((c) => c.name === entry)
    if (!table || !expected) throw new Error(`The archive's entry ${entry} is not in its manifest.`)
    if (this.#current?.table !== table) {
      await this.#endTable()
      const client = this.#client
      const columns = table.columns.map((c) => client.escapeIdentifier(c)).join(', ')
      // FREEZE: the table was emptied in this transaction, so its rows can be written as already visible
      const copy = client.query(
        copyFrom(`COPY ${client.escapeIdentifier(table.name)} (${columns}) FROM STDIN WITH (FREEZE)`),
      )
      this.#current = { table, copy, chunk: 0 }
    }
    const current = this.#current!
    const hash = createHash('sha256')
    let bytes = 0
    for await (const data of body as AsyncIterable<Buffer>) {
      hash.update(data)
      bytes += data.length
      if (!current.copy.write(data)) await once(current.copy, 'drain')
    }
    if (hash.digest('hex') !== expected.sha256 || bytes !== expected.bytes)
      throw new Error(`The archive changed since it was verified: ${entry} does not match its checksum.`)
    current.chunk++
    onProgress?.({ table: table.name, rows: expected.rows, bytes })
  }

  async #endTable() {
    const current = this.#current
    if (!current) return
    this.#current = undefined
    const done = once(current.copy, 'finish')
    current.copy.end()
    await done
    const rows = (current.copy as unknown as { rowCount: number }).rowCount
    if (rows !== current.table.rows)
      throw new Error(`${current.table.name} loaded ${rows} rows where the archive has ${current.table.rows}.`)
    this.#loaded.add(current.table.name)
  }

  /** Puts keys, constraints, indexes and triggers back, sets the sequences, and commits. */
  async commit(onStep?: (step: string) => void) {
    await this.#endTable()
    const client = this.#client
    const missing = this.#manifest.tables.filter((t) => t.rows > 0 && !this.#loaded.has(t.name))
    if (missing.length) throw new Error(`The archive has no data for ${missing.map((t) => t.name).join(', ')}.`)
    const ident = (name: string) => client.escapeIdentifier(name)
    const captured = this.#captured!
    onStep?.('keys and indexes')
    for (const constraint of captured.constraints)
      await client.query(
        `ALTER TABLE ${ident(constraint.table)} ADD CONSTRAINT ${ident(constraint.name)} ${constraint.definition}`,
      )
    for (const index of captured.indexes) await client.query(index.definition)
    onStep?.('foreign keys')
    for (const fk of captured.foreignKeys)
      await client.query(`ALTER TABLE ${ident(fk.table)} ADD CONSTRAINT ${ident(fk.name)} ${fk.definition}`)
    for (const table of this.#manifest.tables)
      await client.query(`ALTER TABLE ${ident(table.name)} ENABLE TRIGGER USER`)
    for (const sequence of this.#manifest.sequences)
      await client.query('SELECT setval($1::regclass, $2::bigint, $3)', [
        ident(sequence.name),
        sequence.lastValue,
        sequence.isCalled,
      ])
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

/** The foreign keys, key and unique constraints, and other indexes of the tables, as the catalog defines them. */
async function capture(client: pg.Client, tables: string[]): Promise<Captured> {
  const { rows: constraints } = await client.query<{ table: string; name: string; kind: string; definition: string }>(
    `SELECT t.relname AS table, c.conname AS name, c.contype AS kind, pg_get_constraintdef(c.oid) AS definition
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
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
  return {
    foreignKeys: constraints.filter((c) => c.kind === 'f'),
    constraints: constraints.filter((c) => c.kind !== 'f'),
    indexes,
  }
}

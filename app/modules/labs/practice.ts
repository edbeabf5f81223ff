/**
 * Loading a lab's dataset into PGlite: the same code runs in the learner's browser (inside the practice worker)
 * and in Node (the check that PGlite gives the same answers as the server). It imports nothing from Node or the
 * browser, only what both have (Blob, TextEncoder).
 */

/** One statement of a lab's dataset, already split on the server; a COPY reads `copyFile` from STDIN. */
type PracticeStatement = { text: string; copyFile?: string }

/** What the portal sends for practice: the dataset's statements in order and the CSV files they COPY from. */
export type PracticeDataset = { statements: PracticeStatement[]; files: Record<string, string> }

/** The part of PGlite the loader uses, so the browser's worker proxy and Node's instance both fit. */
type PracticeDatabase = {
  exec(sql: string, options?: { rowMode?: 'array'; parsers?: TextParsers }): Promise<PracticeResult[]>
  query<T>(sql: string, params?: unknown[], options?: { blob?: Blob }): Promise<{ rows: T[] }>
}

type TextParsers = Record<number, (text: string) => string>
type PracticeResult = { rows: unknown[]; fields: { name: string }[] }

/** PGlite's COPY reads the blob passed with the query from this device, in place of STDIN. */
const BLOB_DEVICE = "'/dev/blob'"

/** The dataset's statement failed: which one (counted from 1) and PostgreSQL's message. */
export class PracticeLoadError extends Error {
  constructor(
    readonly statement: number,
    message: string,
  ) {
    super(`The dataset's statement ${statement}: ${message}`)
  }
}

/** `COPY t FROM STDIN …` as `COPY t FROM '/dev/blob' …`: the server already put STDIN where the file name was. */
function fromBlob(text: string): string {
  const place = text.search(/\bFROM\s+STDIN\b/i)
  if (place < 0) return text
  return text.slice(0, place) + text.slice(place).replace(/STDIN/i, BLOB_DEVICE)
}

/**
 * The dataset's own tables and materialized views, named as SQL would (schema-qualified, quoted where needed); a
 * partitioned table's partitions are analysed with it. The system catalogs are left out: initdb analysed them, and
 * analysing them again costs more than the dataset.
 */
const DATASET_TABLES = `SELECT c.oid::regclass::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'm', 'p') AND NOT c.relispartition
    AND n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'`

/** Runs the dataset on a fresh database, then analyses its tables so plans match a freshly built server copy. */
export async function loadPracticeDataset(db: PracticeDatabase, dataset: PracticeDataset): Promise<void> {
  for (const [index, statement] of dataset.statements.entries()) {
    try {
      if (statement.copyFile === undefined) {
        await db.exec(statement.text)
        continue
      }
      const content = dataset.files[statement.copyFile]
      if (content === undefined) throw new Error(`COPY reads ${statement.copyFile}, which was not sent.`)
      await db.query(fromBlob(statement.text), [], { blob: new Blob([content]) })
    } catch (error) {
      throw new PracticeLoadError(index + 1, (error as Error).message)
    }
  }
  const { rows } = await db.query<{ name: string }>(DATASET_TABLES)
  if (rows.length) await db.exec(`ANALYZE ${rows.map(({ name }) => name).join(', ')}`)
}

/**
 * Parsers that keep every value as PostgreSQL prints it (`t`, `2.50`, `2024-01-02`), as the server's result shows
 * it; PGlite would turn booleans, numbers, dates and JSON into JavaScript values. Made once the dataset is loaded,
 * so its own types are included.
 */
export async function textParsers(db: PracticeDatabase): Promise<TextParsers> {
  const { rows } = await db.query<{ oid: number }>('SELECT oid::int AS oid FROM pg_type')
  return Object.fromEntries(rows.map(({ oid }) => [oid, (text: string) => text]))
}

/** What a Run shows: the last statement's columns and rows as text, and how many statements ran. */
export async function runPracticeSql(db: PracticeDatabase, sql: string, parsers: TextParsers) {
  const results = await db.exec(sql, { rowMode: 'array', parsers })
  const last = results.at(-1)
  return {
    statements: results.length,
    columns: last?.fields.map((f) => f.name) ?? [],
    rows: (last?.rows ?? []) as (string | null)[][],
  }
}

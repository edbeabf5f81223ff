import { readFile } from 'node:fs/promises'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { loadPracticeDataset, PracticeLoadError, runPracticeSql, textParsers } from './practice.ts'
import { practiceDataset } from './sandbox.server.ts'

/** Starting PGlite (PostgreSQL in WebAssembly) takes seconds on a busy machine. */
const PGLITE_TIMEOUT_MS = 120_000

const seed = (lab: string, file: string) => readFile(new URL(`../../../db/seeds/labs/${lab}/${file}`, import.meta.url))

let db: PGlite

beforeAll(async () => {
  db = await PGlite.create()
}, PGLITE_TIMEOUT_MS)

afterAll(async () => {
  await db.close()
})

const count = async (table: string) =>
  (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]?.n

describe('loadPracticeDataset', () => {
  test(
    'loads the bookshop demo lab with its rows and statistics',
    async () => {
      const sql = (await seed('sql-fundamentals', 'bookshop.sql')).toString('utf8')
      await db.exec('CREATE SCHEMA bookshop; SET search_path TO bookshop')
      await loadPracticeDataset(db, await practiceDataset({ sql, name: 'bookshop.sql', files: [] }))
      expect(await count('authors')).toBeGreaterThan(0)
      expect(await count('order_items')).toBeGreaterThan(0)
      // ANALYZE ran: the planner knows the tables' sizes
      const stats = await db.query<{ analyzed: number }>(
        `SELECT count(*)::int AS analyzed FROM pg_stat_user_tables WHERE schemaname = 'bookshop' AND last_analyze IS NOT NULL`,
      )
      expect(stats.rows[0]?.analyzed).toBe(5)
    },
    PGLITE_TIMEOUT_MS,
  )

  test(
    'a COPY of the dataset reads its CSV file, sent as text',
    async () => {
      const sql = `CREATE TABLE csv_prices (id int, price numeric(6,2));\nCOPY csv_prices FROM 'prices.csv' WITH (FORMAT csv, HEADER);`
      const files = [
        { name: 'prices.csv', content: Buffer.from('id,price\n1,2.50\n2,10\n') },
        { name: 'unused.csv', content: Buffer.from('x\n') },
      ]
      const dataset = await practiceDataset({ sql, name: 'prices.sql', files })
      expect(Object.keys(dataset.files)).toEqual(['prices.csv'])
      await loadPracticeDataset(db, dataset)
      const rows = await db.query<{ price: string }>('SELECT price::text FROM csv_prices ORDER BY id')
      expect(rows.rows.map((r) => r.price)).toEqual(['2.50', '10.00'])
    },
    PGLITE_TIMEOUT_MS,
  )

  test(
    'a failing statement is reported with its place',
    async () => {
      const dataset = { statements: [{ text: 'SELECT 1' }, { text: 'SELECT * FROM no_such_table' }], files: {} }
      const failure = await loadPracticeDataset(db, dataset).catch((error: unknown) => error)
      expect(failure).toBeInstanceOf(PracticeLoadError)
      expect((failure as PracticeLoadError).statement).toBe(2)
      expect((failure as Error).message).toMatch(/no_such_table/)
    },
    PGLITE_TIMEOUT_MS,
  )
})

describe('runPracticeSql', () => {
  test(
    "shows the last statement's rows as PostgreSQL prints them, and how many statements ran",
    async () => {
      const parsers = await textParsers(db)
      const run = await runPracticeSql(
        db,
        `CREATE TEMP TABLE run_check (id int, ok boolean, price numeric(6,2), day date, tags int[], doc jsonb);
         INSERT INTO run_check VALUES (1, true, 2.5, '2024-01-02', '{1,2}', '{"a":1}'), (2, NULL, NULL, NULL, NULL, NULL);
         SELECT * FROM run_check ORDER BY id`,
        parsers,
      )
      expect(run.statements).toBe(3)
      expect(run.columns).toEqual(['id', 'ok', 'price', 'day', 'tags', 'doc'])
      expect(run.rows).toEqual([
        ['1', 't', '2.50', '2024-01-02', '{1,2}', '{"a": 1}'],
        ['2', null, null, null, null, null],
      ])
    },
    PGLITE_TIMEOUT_MS,
  )
})

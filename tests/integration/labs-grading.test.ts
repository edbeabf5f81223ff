import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grade, solve, type GradedExercise } from '#app/modules/labs/grading.server.ts'
import {
  buildLabDatabases,
  closeSandbox,
  dropLabDatabases,
  type LabDatabases,
} from '#app/modules/labs/sandbox.server.ts'
import { resetEnvCache } from '#app/utils/env.server.ts'

// Grading on the real sandbox: a lab built from its dataset, each exercise's expected answer taken from its
// solution, and learners' attempts compared with it: by result (order auto, strict and any; column names or
// positions; NULLs and duplicates) and by state; syntax errors as failed attempts with their place; refused
// statements as errors of the request; and the attack corpus, each refused or cut with a clear message.

const DATASET = `
CREATE TABLE author (id integer PRIMARY KEY, name text NOT NULL, country text);
INSERT INTO author VALUES (1, 'Ada', 'UK'), (2, 'Grace', 'US'), (3, 'Edsger', 'NL'), (4, 'Anon', NULL);
CREATE TABLE book (id integer PRIMARY KEY, author_id integer REFERENCES author, title text NOT NULL, price numeric(6, 2));
INSERT INTO book VALUES
  (1, 1, 'Notes', 12.50), (2, 1, 'Engines', 20.00), (3, 2, 'Compilers', 30.00),
  (4, 3, 'Goto', 12.50), (5, 3, 'Shortest paths', 45.00), (6, NULL, 'Anonymous', NULL);
CREATE TABLE big AS SELECT n FROM generate_series(1, 300) AS n;
`

let lab: LabDatabases

beforeAll(async () => {
  process.env.LABS_TIME_LIMIT_MS = '2000'
  process.env.LABS_MAX_ROWS = '5000'
  resetEnvCache()
  lab = await buildLabDatabases({ sql: DATASET, name: 'bookshop.sql', files: [] }, 2)
}, 60_000)

afterAll(async () => {
  await closeSandbox()
  if (lab) await dropLabDatabases([lab.database, ...lab.copies])
})

type Authored = Omit<
  GradedExercise,
  'ordered' | 'expected' | 'key' | 'verify' | 'order' | 'columns' | 'allow' | 'check'
> &
  Partial<GradedExercise> & { solution: string }

/** An exercise as the lab's build leaves it: the defaults of lab.yaml, and the solution's answer taken. */
async function exercise(authored: Authored): Promise<GradedExercise> {
  const full = {
    key: 'x',
    check: 'result' as const,
    verify: [],
    order: 'auto' as const,
    columns: 'names' as const,
    allow: ['select' as const],
    ...authored,
  }
  const { expected, ordered } = await solve(lab, full)
  return { ...full, expected, ordered }
}

describe('grading by result', () => {
  it('passes the same rows in any order when the solution does not order them, and lists what differs', async () => {
    const cheap = await exercise({ solution: 'SELECT title, price FROM book WHERE price < 25' })
    expect(await grade(lab, cheap, 'select price, TITLE from book where price <= 20 order by 1 desc')).toMatchObject({
      passed: true,
      columns: ['price', 'title'],
      total: 3,
    })
    const missing = await grade(lab, cheap, 'SELECT title, price FROM book WHERE price < 15')
    expect(missing).toMatchObject({ passed: false, missingRows: [['Engines', '20.00']], extraRows: [] })
    const extra = await grade(lab, cheap, 'SELECT title, price FROM book WHERE price < 25 OR price IS NULL')
    expect(extra).toMatchObject({ passed: false, missingRows: [], extraRows: [['Anonymous', null]] })
  })

  it('follows the solution’s ORDER BY under order auto, and ignores the order under any', async () => {
    const ordered = await exercise({ solution: 'SELECT title FROM book ORDER BY id' })
    expect(ordered.ordered).toBe(true)
    expect(await grade(lab, ordered, 'SELECT title FROM book ORDER BY id DESC')).toMatchObject({
      passed: false,
      wrongOrder: true,
    })
    expect(await grade(lab, ordered, 'SELECT title FROM book ORDER BY id')).toMatchObject({ passed: true })
    const any = await exercise({ solution: 'SELECT title FROM book ORDER BY id', order: 'any' })
    expect(await grade(lab, any, 'SELECT title FROM book ORDER BY id DESC')).toMatchObject({ passed: true })
    // strict asks for the order even of a solution without ORDER BY (the order the dataset was read in)
    const strict = await exercise({ solution: 'SELECT n FROM big WHERE n <= 3', order: 'strict' })
    expect(await grade(lab, strict, 'SELECT n FROM big WHERE n <= 3 ORDER BY n DESC')).toMatchObject({
      passed: false,
      wrongOrder: true,
    })
  })

  it('matches column names case-insensitively, or only their places under positions', async () => {
    const named = await exercise({ solution: 'SELECT name AS author, country FROM author' })
    expect(await grade(lab, named, 'SELECT name, country FROM author')).toMatchObject({
      passed: false,
      message: expect.stringMatching(/columns differ/i),
    })
    expect(await grade(lab, named, 'SELECT country, name AS "AUTHOR" FROM author')).toMatchObject({ passed: true })
    const placed = await exercise({ solution: 'SELECT name AS author, country FROM author', columns: 'positions' })
    expect(await grade(lab, placed, 'SELECT name, country FROM author')).toMatchObject({ passed: true })
  })

  it('tells NULL from text and counts duplicates', async () => {
    const nulls = await exercise({ solution: 'SELECT country FROM author' })
    expect(await grade(lab, nulls, "SELECT coalesce(country, 'NULL') AS country FROM author")).toMatchObject({
      passed: false,
      missingRows: [[null]],
      extraRows: [['NULL']],
    })
    const prices = await exercise({ solution: 'SELECT price FROM book WHERE price IS NOT NULL' })
    expect(await grade(lab, prices, 'SELECT DISTINCT price FROM book WHERE price IS NOT NULL')).toMatchObject({
      passed: false,
      missingRows: [['12.50']],
    })
  })

  it('shows the first rows of a long result and says how many there were', async () => {
    const all = await exercise({ solution: 'SELECT n FROM big' })
    const graded = await grade(lab, all, 'SELECT n FROM big')
    expect(graded).toMatchObject({ passed: true, total: 300, truncated: true })
    expect(graded.rows).toHaveLength(100)
  })

  it('keeps a syntax error or a database error as a failed attempt, with the place it points at', async () => {
    const any = await exercise({ solution: 'SELECT title FROM book' })
    expect(await grade(lab, any, 'SELECT title FROM book WHER price > 1')).toMatchObject({
      passed: false,
      message: 'Syntax error at or near "price".',
      position: 29,
    })
    expect(await grade(lab, any, '-- the titles\nSELECT titel FROM book')).toMatchObject({
      passed: false,
      message: 'column "titel" does not exist',
      position: 22,
    })
  })

  it('refuses, as an error of the request, what the exercise does not take', async () => {
    const query = await exercise({ solution: 'SELECT title FROM book' })
    await expect(grade(lab, query, 'SELECT 1; SELECT 2')).rejects.toMatchObject({ status: 400 })
    await expect(grade(lab, query, 'DELETE FROM book')).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/DELETE is not allowed here/),
    })
  })
})

describe('grading by state', () => {
  it('passes statements that leave what the solution leaves, and fails one that leaves something else', async () => {
    const raise = await exercise({
      key: 'raise',
      check: 'state',
      allow: ['dml'],
      solution: "UPDATE book SET price = price * 1.1 WHERE author_id = (SELECT id FROM author WHERE name = 'Ada')",
      verify: ['SELECT id, price FROM book ORDER BY id'],
    })
    expect(await grade(lab, raise, 'UPDATE book SET price = price * 1.1 WHERE author_id = 1')).toMatchObject({
      passed: true,
    })
    const wrong = await grade(lab, raise, 'UPDATE book SET price = price * 1.1')
    expect(wrong).toMatchObject({ passed: false, message: expect.stringMatching(/^Check 1 of 1/) })
    // nothing stays: the next attempt starts from the dataset again
    expect(await grade(lab, raise, 'UPDATE book SET price = price * 1.1 WHERE author_id = 1')).toMatchObject({
      passed: true,
    })
  })

  it('grades a schema change by what the verify queries read, catalogs included', async () => {
    const genre = await exercise({
      key: 'genre',
      check: 'state',
      allow: ['ddl'],
      solution:
        'CREATE TABLE genre (id integer PRIMARY KEY, name text NOT NULL); CREATE INDEX genre_name_idx ON genre (name)',
      verify: ["SELECT indexname FROM pg_indexes WHERE tablename = 'genre' ORDER BY 1"],
    })
    expect(
      await grade(
        lab,
        genre,
        'create table genre (id int primary key, name text not null);\ncreate index genre_name_idx on genre(name);',
      ),
    ).toMatchObject({ passed: true })
    expect(await grade(lab, genre, 'CREATE TABLE genre (id integer PRIMARY KEY, name text)')).toMatchObject({
      passed: false,
    })
  })

  it('refuses a solution a learner would pass by sending nothing', async () => {
    await expect(
      exercise({
        key: 'idle',
        check: 'state',
        allow: ['dml'],
        solution: 'UPDATE book SET price = price WHERE id = 1',
        verify: ['SELECT price FROM book'],
      }),
    ).rejects.toThrow('Exercise idle: the solution changes nothing the verify queries read')
  })
})

describe('the attack corpus', () => {
  const refusals: [string, RegExp][] = [
    ['COMMIT; DROP TABLE book', /COMMIT is not allowed/],
    ['RESET ROLE', /RESET ROLE is not allowed/],
    ["SELECT set_config('statement_timeout','0',false); SELECT pg_sleep(60)", /set_config\(\) is not allowed/],
    ["COPY book TO PROGRAM 'id'", /COPY is not allowed/],
    ['SELECT * FROM pg_authid', /pg_authid is off limits/],
    ["SELECT pg_read_file('/etc/passwd')", /pg_read_file\(\) is not allowed/],
    [
      'CREATE FUNCTION spin() RETURNS int LANGUAGE plpgsql AS $$ BEGIN LOOP END LOOP; END $$',
      /CREATE FUNCTION is not allowed/,
    ],
    ['LOCK TABLE book', /LOCK is not allowed/],
    [`SELECT '${'x'.repeat(1024 * 1024)}'`, /too long/],
    ['SELECT * FROM users', /relation "users" does not exist/],
  ]

  it.each(refusals)('%s', async (sql, refused) => {
    const query = await exercise({ solution: 'SELECT title FROM book' })
    const outcome = await grade(lab, query, sql).then(
      (graded) => graded.message,
      (error: Error) => error.message,
    )
    expect(outcome).toMatch(refused)
  })

  it('cuts what runs too long at the time limit, and the next attempt runs at once', async () => {
    const query = await exercise({ solution: 'SELECT title FROM book' })
    // each of these only computes or waits (a series of 1e10 rows spills to disk instead, and on a fast disk meets
    // the temporary-file limit before the time limit: the test below)
    for (const sql of [
      'SELECT max(md5(a.n::text || b.n || c.n || d.n)) FROM big a, big b, big c, big d',
      'SELECT count(*) FROM big a, big b, big c, big d',
      'SELECT pg_sleep(60)',
    ]) {
      // a monotonic clock, as the watchdog's timers are: the wall clock of a virtual machine may be stepped
      const started = performance.now()
      expect(await grade(lab, query, sql)).toMatchObject({ passed: false, message: /^Stopped after 2 s/ })
      const took = performance.now() - started
      // each ran until its own time was up: a cancel meant for the one before must not stop the next
      expect(took, sql).toBeGreaterThanOrEqual(1900)
      expect(took, sql).toBeLessThan(8000)
    }
    expect(await grade(lab, query, 'SELECT title FROM book')).toMatchObject({ passed: true })
  })

  it('stops a query that spills without end, at the temporary-file limit or the time limit, whichever comes first', async () => {
    const query = await exercise({ solution: 'SELECT title FROM book' })
    const started = performance.now()
    const graded = await grade(lab, query, 'SELECT count(*) FROM generate_series(1, 1e10)')
    expect(graded).toMatchObject({ passed: false })
    expect(graded.message).toMatch(/^Stopped after 2 s|temporary file size exceeds/)
    expect(performance.now() - started).toBeLessThan(8000)
    expect(await grade(lab, query, 'SELECT title FROM book')).toMatchObject({ passed: true })
  })

  it('reads back at most LABS_MAX_ROWS rows of a query returning a million', async () => {
    const query = await exercise({ solution: 'SELECT title FROM book' })
    expect(await grade(lab, query, 'SELECT n FROM generate_series(1, 1000000) AS n')).toMatchObject({
      passed: false,
      total: 1_000_000,
      truncated: true,
      message: expect.stringMatching(/^Your query returned 1,000,000 rows/),
    })
  })
})

import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  buildLabDatabases,
  closeSandbox,
  dropLabDatabases,
  runInSandbox,
  type LabDatabases,
} from '#app/modules/labs/sandbox.server.ts'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { databaseUrl } from '#db/client.ts'

// The labs sandbox on the real server: a dataset built into a database of its own (a CSV file of the folder
// read through COPY), queries read through a cursor, changes made on a copy and rolled back, the time limit
// enforced from outside the session, and a learner's role that reaches nothing of the portal.

const DATASET = `
CREATE TABLE city (id integer PRIMARY KEY, name text NOT NULL, country text);
COPY city (id, name, country) FROM 'city.csv' WITH (FORMAT csv, HEADER true);
CREATE TABLE reading (city_id integer REFERENCES city, day date, celsius numeric(4, 1));
INSERT INTO reading SELECT 1 + n % 3, date '2026-01-01' + n, (n % 17) - 3.5 FROM generate_series(0, 2999) AS n;
`
const CITY_CSV = 'id,name,country\n1,Zürich,CH\n2,Lyon,FR\n3,Atlantis,\n'

let lab: LabDatabases

beforeAll(async () => {
  process.env.LABS_TIME_LIMIT_MS = '1500'
  process.env.LABS_MAX_ROWS = '1000'
  resetEnvCache()
  lab = await buildLabDatabases(
    { sql: DATASET, name: 'dataset.sql', files: [{ name: 'city.csv', content: Buffer.from(CITY_CSV) }] },
    2,
  )
}, 60_000)

afterAll(async () => {
  await closeSandbox()
  if (lab) await dropLabDatabases([lab.database, ...lab.copies])
})

const at = (text: string) => ({ text, start: 0 })

describe('the labs sandbox', () => {
  it('builds the dataset, a CSV of the folder included, and answers a query as text with NULLs', async () => {
    const outcome = await runInSandbox(lab, {
      kind: 'query',
      statement: at('SELECT name, country FROM city ORDER BY id'),
    })
    expect(outcome).toMatchObject({
      ok: true,
      result: {
        columns: ['name', 'country'],
        rows: [
          ['Zürich', 'CH'],
          ['Lyon', 'FR'],
          ['Atlantis', null],
        ],
        total: 3,
        truncated: false,
      },
    })
  })

  it('reads at most LABS_MAX_ROWS rows back and counts the rest', async () => {
    const outcome = await runInSandbox(lab, { kind: 'query', statement: at('SELECT * FROM reading') })
    if (!outcome.ok) throw new Error(outcome.message)
    expect(outcome.result).toMatchObject({ total: 3000, truncated: true })
    expect(outcome.result?.rows).toHaveLength(1000)
  })

  it('refuses a change in a query: the transaction is read-only', async () => {
    const outcome = await runInSandbox(lab, {
      kind: 'query',
      statement: at('WITH gone AS (DELETE FROM city RETURNING *) SELECT * FROM gone'),
    })
    // PostgreSQL refuses it in a cursor before the read-only transaction would
    expect(outcome).toMatchObject({ ok: false, message: expect.stringMatching(/data-modifying|read-only/) })
  })

  it('makes changes on a copy, returns what the verify queries read, and leaves nothing behind', async () => {
    const change = {
      kind: 'change' as const,
      statements: [
        at('CREATE TABLE country (code text PRIMARY KEY, name text)'),
        at("INSERT INTO country VALUES ('CH', 'Switzerland')"),
        at('UPDATE city SET country = NULL'),
      ],
      verify: [
        'SELECT count(*) AS n FROM city WHERE country IS NULL',
        "SELECT to_regclass('country') IS NOT NULL AS made",
      ],
    }
    const outcome = await runInSandbox(lab, change)
    expect(outcome).toMatchObject({
      ok: true,
      verify: [
        { columns: ['n'], rows: [['3']] },
        { columns: ['made'], rows: [['t']] },
      ],
    })
    // rolled back: the next attempt on either copy finds the dataset as it was
    for (let i = 0; i < 2; i++) {
      const again = await runInSandbox(lab, { ...change, statements: [], verify: change.verify })
      expect(again).toMatchObject({ ok: true, verify: [{ rows: [['1']] }, { rows: [['f']] }] })
    }
  })

  it('stops a query at the time limit from outside the session, even one that lifted its own timeout', async () => {
    const started = Date.now()
    const outcome = await runInSandbox(lab, {
      kind: 'change',
      statements: [at('SET statement_timeout = 0'), at('SELECT pg_sleep(30)')],
      verify: [],
    })
    expect(outcome).toMatchObject({ ok: false, message: 'Stopped after 1.5 s: a lab query may take no longer.' })
    expect(Date.now() - started).toBeLessThan(10_000)
    // and the copy is usable again at once
    const next = await runInSandbox(lab, { kind: 'change', statements: [], verify: ['SELECT 1 AS one'] })
    expect(next).toMatchObject({ ok: true })
  })

  it('reports an error with its place in the learner’s text', async () => {
    const outcome = await runInSandbox(lab, { kind: 'query', statement: { text: 'SELECT nme FROM city', start: 10 } })
    expect(outcome).toMatchObject({ ok: false, message: 'column "nme" does not exist', position: 18 })
  })

  it('vets a dataset as it vets a learner’s SQL, and leaves no database behind when it fails', async () => {
    const before = await labDatabases()
    for (const [sql, refused] of [
      ['CREATE TABLE t (a int);\nRESET ROLE;', 'dataset.sql, the statement on line 2: RESET ROLE is not allowed'],
      ["CREATE TABLE t (a int);\nCOPY t FROM PROGRAM 'id';", 'dataset.sql: a dataset may only COPY … FROM a CSV file'],
      ["CREATE TABLE t (a int);\nCOPY t FROM 'missing.csv';", 'COPY reads missing.csv, which is not in the folder'],
      ['CREATE TABLE t (a int);\nINSERT INTO t VALUES (1 / 0);', 'line 2: division by zero'],
    ])
      await expect(buildLabDatabases({ sql, name: 'dataset.sql', files: [] }, 1)).rejects.toThrow(refused)
    expect(await labDatabases()).toEqual(before)
  })

  it('gives the learner’s role nothing of the portal: no catalog secrets, no connection to its database', async () => {
    const authid = await runInSandbox(lab, { kind: 'query', statement: at('SELECT rolpassword FROM pg_authid') })
    expect(authid).toMatchObject({ ok: false, message: expect.stringMatching(/permission denied/) })
    const setting = await runInSandbox(lab, {
      kind: 'query',
      statement: at("SELECT set_config('statement_timeout', '0', false)"),
    })
    expect(setting).toMatchObject({
      ok: false,
      message: expect.stringMatching(/permission denied for function set_config/),
    })

    const portal = new URL(await databaseUrl())
    // the role of this portal database's sandbox (other test files have their own)
    const learner = `${portal.pathname.slice(1)}_lab_learner`
    const [role] = (await pg_query(portal.toString(), `SELECT rolname FROM pg_roles WHERE rolname = '${learner}'`)).rows
    expect(role).toEqual({ rolname: learner })
    // the role may connect to the lab's databases only
    const rights = await pg_query(
      portal.toString(),
      `SELECT datname FROM pg_database WHERE has_database_privilege('${learner}', datname, 'CONNECT')`,
    )
    const reachable = rights.rows.map((r) => (r as { datname: string }).datname)
    expect(reachable).toEqual(expect.arrayContaining([lab.database, ...lab.copies]))
    // not the portal's database, nor another lab's (other test files run beside this one)
    expect(reachable).not.toContain(portal.pathname.slice(1))
    expect(reachable.filter((name) => name.includes('_lab_')).sort()).toEqual([lab.database, ...lab.copies].sort())
    const tables = await pg_query(
      portal.toString(),
      `SELECT count(*)::int AS n FROM information_schema.tables t
       WHERE t.table_schema = 'public' AND has_table_privilege('${learner}', format('%I.%I', t.table_schema, t.table_name), 'SELECT')`,
    )
    expect(tables.rows).toEqual([{ n: 0 }])
  })
})

describe('the learner role’s connection limit, shared by every process', () => {
  it('reached, a grading is told to come back (429 with Retry-After) and the next one runs', async () => {
    await closeSandbox()
    const portal = new URL(await databaseUrl())
    const [{ role, password }] = (await pg_query(portal.toString(), 'SELECT role, password FROM lab_sandbox')).rows as {
      role: string
      password: string
    }[]
    const address = new URL(portal)
    address.pathname = `/${lab.database}`
    address.username = role
    address.password = password
    // other processes (here: this test) hold every connection the role may open
    const held: pg.Client[] = []
    try {
      for (;;) {
        const client = new pg.Client({ connectionString: address.toString() })
        try {
          await client.connect()
        } catch (error) {
          expect((error as pg.DatabaseError).code).toBe('53300')
          break
        }
        held.push(client)
        expect(held.length).toBeLessThanOrEqual(100)
      }
      const refused = await runInSandbox(lab, { kind: 'query', statement: at('SELECT 1 AS one') }).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(refused).toMatchObject({
        status: 429,
        message: 'Many attempts are being graded right now; try again in a moment.',
        retryAfterSeconds: 2,
      })
    } finally {
      await Promise.all(held.map((client) => client.end()))
    }
    expect(await runInSandbox(lab, { kind: 'query', statement: at('SELECT 1 AS one') })).toMatchObject({
      ok: true,
      result: { rows: [['1']] },
    })
  })
})

async function pg_query(url: string, text: string) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await client.query(text)
  } finally {
    await client.end()
  }
}

/** This file's lab databases: other files build theirs on the same server at the same time. */
async function labDatabases() {
  const url = await databaseUrl()
  const own = new URL(url).pathname.slice(1)
  const result = await pg_query(url, `SELECT datname FROM pg_database WHERE datname LIKE '${own}\\_lab\\_%' ORDER BY 1`)
  return result.rows.map((r) => (r as { datname: string }).datname)
}

import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { loadModule, parseSync, scanSync } from 'libpg-query'
import pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { getEnv } from '#app/utils/env.server.ts'
import { databaseUrl, ListenedClient, query, sql } from '#db/client.ts'
import { ServiceError } from '../errors.ts'
import type { PracticeDataset } from './practice.ts'
import type { StatementKind } from './schema.ts'
import { vetSql } from './vet.ts'

// The labs sandbox: where learners' SQL runs, never near the portal's own data.
//
// Each lab is built into a database of its own on the labs server (LABS_DATABASE_URL, or the portal's server),
// owned by a role that cannot log in (`<prefix>_author`). Learners' SQL runs as another role
// (`<prefix>_learner`): a login with a connection limit, a member of the author (so an exercise may change the
// lab's tables), with no right on any other database. Every attempt is a transaction that is rolled back. A
// query runs on the lab's database in a read-only transaction; statements that change data or tables run on
// one of the lab's copies (made with CREATE DATABASE … TEMPLATE when the lab is built), one attempt per copy
// at a time, so their locks never hold up other learners. Time is enforced from outside the session: a
// watchdog cancels the backend when an attempt's time is up, whatever the session set.

/** Every value as PostgreSQL's text output: what learners see, and what grading compares. */
export const TEXT_VALUES = { getTypeParser: () => (value: string) => value }

type Server = { url: URL; prefix: string; author: string; learner: string }

/** The labs server and the names of the sandbox's roles and databases on it. */
async function labsServer(): Promise<Server> {
  const url = new URL(getEnv().LABS_DATABASE_URL ?? (await databaseUrl()))
  const base = decodeURIComponent(url.pathname.slice(1)) || 'postgres'
  const prefix = `${base
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 32)}_lab`
  return { url, prefix, author: `${prefix}_author`, learner: `${prefix}_learner` }
}

function addressOf(server: Server, database: string, login?: { user: string; password: string }) {
  const url = new URL(server.url)
  url.pathname = `/${encodeURIComponent(database)}`
  if (login) {
    url.username = encodeURIComponent(login.user)
    url.password = encodeURIComponent(login.password)
  }
  return url.toString()
}

const ident = (name: string) => pg.escapeIdentifier(name)

/** A new connection of the labs server's administering role to its own database; the caller ends it. */
export async function connectAdmin(): Promise<pg.Client> {
  const client = new ListenedClient({ connectionString: (await labsServer()).url.toString() })
  await client.connect()
  return client
}

/** A connection of the labs server's administering role to `database` (its own one when left out). */
async function asAdmin<T>(database: string | undefined, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const server = await labsServer()
  const client = new ListenedClient({
    connectionString: database ? addressOf(server, database) : server.url.toString(),
  })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

// Functions a learner's role must not run, revoked in every lab database where the administering role may
// (a superuser): the vetting refuses them already; this is the second lock.
const REVOKED_FUNCTIONS = [
  'set_config',
  'pg_advisory_lock',
  'pg_advisory_lock_shared',
  'pg_advisory_xact_lock',
  'pg_advisory_xact_lock_shared',
  'pg_try_advisory_lock',
  'pg_try_advisory_lock_shared',
  'pg_try_advisory_xact_lock',
  'pg_try_advisory_xact_lock_shared',
  'pg_notify',
  'query_to_xml',
  'query_to_xmlschema',
  'query_to_xml_and_xmlschema',
  'cursor_to_xml',
  'cursor_to_xmlschema',
  'lo_import',
  'lo_export',
  'lo_create',
  'lo_creat',
  'lo_open',
  'lo_unlink',
  'lo_put',
  'lo_from_bytea',
]

const SANDBOX_PASSWORD = sql(`
  WITH made AS (
    INSERT INTO lab_sandbox (role, password) VALUES (:role, :password) ON CONFLICT (role) DO NOTHING RETURNING password
  )
  SELECT password FROM made UNION ALL SELECT password FROM lab_sandbox WHERE role = :role LIMIT 1
`)

type Roles = { server: Server; password: string }
let roles: Promise<Roles> | undefined

/**
 * The sandbox's two roles, made on first use and set up again on every start (a changed LABS_CONNECTIONS or
 * time limit applies then). The learner's password is kept in the portal's database, shared by every instance.
 */
function sandboxRoles(): Promise<Roles> {
  roles ??= setUpRoles().catch((error: unknown) => {
    roles = undefined
    throw error
  })
  return roles
}

async function setUpRoles(): Promise<Roles> {
  const server = await labsServer()
  const env = getEnv()
  const [{ password }] = await query<{ password: string }>(SANDBOX_PASSWORD, {
    role: server.learner,
    password: randomBytes(24).toString('hex'),
  })
  await asAdmin(undefined, async (client) => {
    const existing = await client.query<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE rolname = ANY($1)', [
      [server.author, server.learner],
    ])
    const have = new Set(existing.rows.map((r) => r.rolname))
    await ignoringDuplicates(async () => {
      if (!have.has(server.author)) await client.query(`CREATE ROLE ${ident(server.author)} NOLOGIN`)
    })
    await ignoringDuplicates(async () => {
      if (!have.has(server.learner)) await client.query(`CREATE ROLE ${ident(server.learner)} LOGIN`)
    })
    const learner = ident(server.learner)
    await client.query(
      `ALTER ROLE ${learner} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT ` +
        `CONNECTION LIMIT ${env.LABS_CONNECTIONS} PASSWORD ${client.escapeLiteral(password)}`,
    )
    await client.query(`GRANT ${ident(server.author)} TO ${learner}`)
    // a backstop behind the watchdog, and what a query may use; temp_file_limit only a superuser may set
    const settings: [string, string][] = [
      ['statement_timeout', `${env.LABS_TIME_LIMIT_MS + 1000}ms`],
      ['idle_in_transaction_session_timeout', '30s'],
      ['lock_timeout', '1s'],
      ['work_mem', '16MB'],
      ['temp_file_limit', '256MB'],
      ['search_path', 'public'],
    ]
    await closePortalDatabase(client, server)
    for (const [name, value] of settings)
      await client
        .query(`ALTER ROLE ${learner} SET ${name} = ${client.escapeLiteral(value)}`)
        .catch((error: pg.DatabaseError) => {
          if (error.code !== '42501') throw error
        })
  })
  return { server, password }
}

/**
 * Every role may connect to a new database (PostgreSQL grants CONNECT to PUBLIC). When the labs share the
 * portal's server, that grant goes from the portal's database, so the learner's role has no right there at
 * all; its owner (the portal's own role) keeps connecting, and a role of the operator's needs CONNECT granted
 * by name. Where the portal's role may not change that (not the owner), nothing changes.
 */
async function closePortalDatabase(client: pg.Client, server: Server) {
  const portal = new URL(await databaseUrl())
  if (portal.host !== server.url.host) return
  const name = decodeURIComponent(portal.pathname.slice(1))
  if (!name) return
  await client.query(`REVOKE CONNECT ON DATABASE ${ident(name)} FROM PUBLIC`).catch((error: pg.DatabaseError) => {
    if (error.code !== '42501') throw error
  })
}

/** Two processes may make the same role at once: the second finds it made. */
async function ignoringDuplicates(work: () => Promise<void>) {
  try {
    await work()
  } catch (error) {
    const code = (error as pg.DatabaseError).code
    if (code !== '42710' && code !== '23505') throw error
  }
}

type DatasetFile = { name: string; content: Buffer }

/** The databases of one build of a lab: the one queries run on, and the copies for changing exercises. */
export type LabDatabases = { database: string; copies: string[] }

/**
 * The template a lab's two-session pairs are made from: a copy of the lab's database nobody connects to (CREATE
 * DATABASE … TEMPLATE needs that), named after it, made when the lab is built and dropped with it.
 */
const sessionsTemplate = (database: string) => `${database}_t`

/** A table of a lab's dataset as the lab page lists it, for the learner and the editor's completion. */
export type LabTable = { name: string; columns: { name: string; type: string }[] }

/**
 * Builds a lab's dataset into a new database of the sandbox, and `copies` copies of it (and the template of its
 * two-session pairs with `sessions`). The dataset's
 * statements run as the author role, one by one; `COPY … FROM 'file.csv'` reads the folder's file through
 * the connection (never a file of the database server). A failing statement drops what was made and is
 * reported with its place in the dataset.
 */
export async function buildLabDatabases(
  dataset: { sql: string; name: string; files: DatasetFile[] },
  copies: number,
  options: { sessions?: boolean } = {},
): Promise<LabDatabases & { tables: LabTable[] }> {
  const { server } = await sandboxRoles()
  const database = `${server.prefix}_${randomBytes(5).toString('hex')}`
  const made: string[] = []
  try {
    await createLabDatabase(server, database)
    made.push(database)
    const tables = await asAdmin(database, async (client) => {
      await revokeFunctions(client)
      await client.query(`SET ROLE ${ident(server.author)}`)
      await runDataset(client, dataset)
      await client.query('ANALYZE')
      return tablesOf(client)
    })
    const names = Array.from({ length: copies }, (_, i) => `${database}_s${i + 1}`)
    for (const copy of names) {
      await createLabDatabase(server, copy, database)
      made.push(copy)
    }
    if (options.sessions) {
      await createLabDatabase(server, sessionsTemplate(database), database)
      made.push(sessionsTemplate(database))
    }
    return { database, copies: names, tables }
  } catch (error) {
    await dropLabDatabases(made)
    throw error
  }
}

/** The dataset's tables and views with their columns, in the order they were made. */
async function tablesOf(client: pg.Client): Promise<LabTable[]> {
  const { rows } = await client.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT c.table_name, c.column_name, format_type(a.atttypid, a.atttypmod) AS data_type
     FROM information_schema.columns c
     JOIN pg_attribute a ON a.attrelid = format('%I.%I', c.table_schema, c.table_name)::regclass
       AND a.attname = c.column_name
     WHERE c.table_schema = 'public'
     ORDER BY c.table_name::regclass::oid, c.ordinal_position`,
  )
  const tables = new Map<string, LabTable>()
  for (const row of rows) {
    const table = tables.get(row.table_name) ?? { name: row.table_name, columns: [] }
    table.columns.push({ name: row.column_name, type: row.data_type })
    tables.set(row.table_name, table)
  }
  return [...tables.values()]
}

async function createLabDatabase(server: Server, name: string, template?: string, strategy = 'FILE_COPY') {
  await asAdmin(undefined, async (client) => {
    await client.query(
      `CREATE DATABASE ${ident(name)} OWNER ${ident(server.author)}` +
        (template ? ` TEMPLATE ${ident(template)} STRATEGY ${strategy}` : ''),
    )
    // only the sandbox's learner may connect, and make no temporary tables
    await client.query(`REVOKE ALL ON DATABASE ${ident(name)} FROM PUBLIC`)
    await client.query(`GRANT CONNECT ON DATABASE ${ident(name)} TO ${ident(server.learner)}`)
  })
}

async function revokeFunctions(client: pg.Client) {
  const { rows } = await client.query<{ signature: string }>(
    `SELECT p.oid::regprocedure::text AS signature FROM pg_proc p
     WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname = ANY($1)`,
    [REVOKED_FUNCTIONS],
  )
  try {
    for (const { signature } of rows) await client.query(`REVOKE EXECUTE ON FUNCTION ${signature} FROM PUBLIC`)
  } catch (error) {
    // not a superuser: the vetting alone keeps them out
    if ((error as pg.DatabaseError).code !== '42501') throw error
  }
}

/**
 * Drops a lab's databases, with the sessions still on them, and the template of its two-session pairs if it has
 * one (a pair's own database outlives it: it is a copy, dropped when the pair closes).
 */
export async function dropLabDatabases(names: readonly string[]) {
  for (const name of names) {
    await closePool(name)
    await asAdmin(undefined, async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`)
      await client.query(`DROP DATABASE IF EXISTS ${ident(sessionsTemplate(name))} WITH (FORCE)`)
    })
  }
}

/**
 * A new database for one pair of sessions, made from a lab's pair template. WAL_LOG copies a small database
 * without the checkpoint FILE_COPY forces, which matters when learners open pairs one after another.
 */
export async function createPairDatabase(labDatabase: string): Promise<string> {
  const server = await labsServer()
  const name = `${labDatabase}_p${randomBytes(4).toString('hex')}`
  await createLabDatabase(server, name, sessionsTemplate(labDatabase), 'WAL_LOG')
  return name
}

/** Drops a pair's database, ending its sessions (their locks go with them). */
export async function dropPairDatabase(name: string) {
  await asAdmin(undefined, (client) => client.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`))
}

/** How a learner's connection reaches `database`: its address with the learner role's login. */
export async function learnerAddress(database: string): Promise<string> {
  const { server, password } = await sandboxRoles()
  return addressOf(server, database, { user: server.learner, password })
}

let parserReady: Promise<void> | undefined

/** PostgreSQL's parser, loaded once (WebAssembly). */
function parser(): Promise<void> {
  parserReady ??= loadModule()
  return parserReady
}

const DATASET_KINDS: StatementKind[] = ['select', 'dml', 'ddl']

type DatasetStatement = { text: string; start: number; copyFile?: string }

/** The dataset's statements, each with where it starts (in characters) and the folder file a COPY reads. */
async function datasetStatements(text: string, datasetName: string): Promise<DatasetStatement[]> {
  await parser()
  let parsed: ReturnType<typeof parseSync>
  try {
    parsed = parseSync(text)
  } catch (error) {
    throw new ServiceError(400, `${datasetName}: ${(error as Error).message}`)
  }
  const bytes = Buffer.from(text, 'utf8')
  const charAt = (byte: number) => bytes.subarray(0, byte).toString('utf8').length
  return (parsed.stmts ?? []).map((raw) => {
    const from = raw.stmt_location ?? 0
    const to = raw.stmt_len ? from + raw.stmt_len : bytes.length
    const statement = bytes.subarray(from, to).toString('utf8')
    const copy = (raw.stmt as { CopyStmt?: { filename?: string; is_from?: boolean; is_program?: boolean } }).CopyStmt
    if (copy?.filename !== undefined) {
      if (!copy.is_from || copy.is_program)
        throw new ServiceError(400, `${datasetName}: a dataset may only COPY … FROM a CSV file of its folder.`)
      return { text: copyFromStdin(statement, copy.filename), start: charAt(from), copyFile: copy.filename }
    }
    return { text: statement, start: charAt(from) }
  })
}

/** `COPY t FROM 'x.csv' …` as `COPY t FROM STDIN …`: the file's place found by the parser's own tokens. */
function copyFromStdin(statement: string, filename: string): string {
  const bytes = Buffer.from(statement, 'utf8')
  const tokens = scanSync(statement).tokens
  const literal = tokens.find(
    (t) => t.tokenName === 'SCONST' && bytes.subarray(t.start, t.end).toString('utf8').includes(filename),
  )
  if (!literal) throw new ServiceError(400, `Cannot find the file name ${filename} in its COPY statement.`)
  return `${bytes.subarray(0, literal.start).toString('utf8')}STDIN${bytes.subarray(literal.end).toString('utf8')}`
}

/**
 * A lab's dataset as practice in PGlite receives it: the statements split here (libpg-query is not sent to the
 * browser), each COPY already reading STDIN, and the CSV files it reads as text.
 */
export async function practiceDataset(dataset: {
  sql: string
  name: string
  files: DatasetFile[]
}): Promise<PracticeDataset> {
  const statements = (await datasetStatements(dataset.sql, dataset.name)).map(({ text, copyFile }) =>
    copyFile === undefined ? { text } : { text, copyFile },
  )
  const read = new Set(statements.flatMap((s) => (s.copyFile === undefined ? [] : [s.copyFile])))
  const files = Object.fromEntries(
    dataset.files.filter((f) => read.has(f.name)).map((f) => [f.name, f.content.toString('utf8')]),
  )
  return { statements, files }
}

async function runDataset(client: pg.Client, dataset: { sql: string; name: string; files: DatasetFile[] }) {
  for (const statement of await datasetStatements(dataset.sql, dataset.name)) {
    const line = dataset.sql.slice(0, statement.start).split('\n').length
    try {
      if (statement.copyFile === undefined) {
        // the author's SQL runs as the author role: vetted as a learner's is, so it cannot leave that role
        const vetting = await vetSql(statement.text, { allow: DATASET_KINDS, single: true, maxBytes: Infinity })
        if (!vetting.ok)
          throw new ServiceError(400, `${dataset.name}, the statement on line ${line}: ${vetting.message}`)
        await client.query(statement.text)
        continue
      }
      const file = dataset.files.find((f) => f.name === statement.copyFile)
      if (!file)
        throw new ServiceError(400, `${dataset.name}: COPY reads ${statement.copyFile}, which is not in the folder.`)
      await pipeline(Readable.from([file.content]), client.query(copyFrom(statement.text)))
    } catch (error) {
      if (error instanceof ServiceError) throw error
      throw new ServiceError(400, `${dataset.name}, the statement on line ${line}: ${(error as Error).message}`)
    }
  }
}

// --- Running learners' SQL ---

const pools = new Map<string, pg.Pool>()

/** Seconds a learner is told to wait (Retry-After) when the labs have no room for one more grading. */
const BUSY_RETRY_SECONDS = 2

/** The labs have no room for this grading just now: 429, with when to try again. */
export const labsBusy = (message: string) =>
  new ServiceError(429, message, undefined, { retryAfterSeconds: BUSY_RETRY_SECONDS })

async function learnerPool(database: string): Promise<pg.Pool> {
  const known = pools.get(database)
  if (known) return known
  const { server, password } = await sandboxRoles()
  const pool = new pg.Pool({
    connectionString: addressOf(server, database, { user: server.learner, password }),
    max: 4,
    // every process keeps a pool per lab database, and the learner role's CONNECTION LIMIT (LABS_CONNECTIONS)
    // counts the idle connections of them all: they are let go soon
    idleTimeoutMillis: 5_000,
    application_name: 'portal-lab',
    // lent out, a client is not listened to by the pool: the watchdog ending a backend between two statements
    // must not be an unheard 'error' event
    Client: ListenedClient,
    // idle connections never hold a stopping process open
    allowExitOnIdle: true,
  })
  // a backend the watchdog ended is an error on an idle client: the pool drops it
  pool.on('error', () => undefined)
  pools.set(database, pool)
  return pool
}

async function closePool(database: string) {
  const pool = pools.get(database)
  pools.delete(database)
  await pool?.end()
}

/** Ends every pool of this process (tests, a stopping server). */
export async function closeSandbox() {
  await Promise.all([...pools.keys()].map(closePool))
}

/** A result set as PostgreSQL's text output: every value a string, or null for NULL. */
export type Rows = { columns: string[]; rows: (string | null)[][] }

type SandboxResult = Rows & { total: number; truncated: boolean }

export type Outcome =
  | { ok: true; result?: SandboxResult; verify: Rows[]; plan?: unknown; ms: number }
  | { ok: false; message: string; position?: number; ms: number }

type Statement = { text: string; start: number }

/**
 * Runs a learner's statements on a lab and rolls them back. `query`: one query, on the lab's database, its
 * rows read through a cursor (at most LABS_MAX_ROWS and LABS_MAX_RESULT_BYTES, the full count counted).
 * `change`: statements on one of the lab's copies, then the verify queries, whose results are returned.
 * `plan`: setup statements on a copy, then one query, whose rows and `EXPLAIN (FORMAT JSON)` are returned.
 */
export async function runInSandbox(
  lab: LabDatabases,
  work:
    | { kind: 'query'; statement: Statement }
    | { kind: 'change'; statements: Statement[]; verify: string[] }
    | { kind: 'plan'; statements: Statement[]; statement: Statement },
): Promise<Outcome> {
  const started = performance.now()
  const database = work.kind === 'query' ? lab.database : await takeCopy(lab)
  try {
    const client = await connectLearner(database)
    let broken = false
    const watchdog = startWatchdog(client)
    try {
      await client.query(work.kind === 'query' ? 'BEGIN TRANSACTION READ ONLY' : 'BEGIN')
      await client.query(`SET LOCAL statement_timeout = ${getEnv().LABS_TIME_LIMIT_MS}`)
      const outcome =
        work.kind === 'query'
          ? { result: await readQuery(client, work.statement), verify: [] }
          : work.kind === 'plan'
            ? { ...(await explain(client, work.statements, work.statement)), verify: [] }
            : { verify: await change(client, work.statements, work.verify) }
      return { ok: true, ...outcome, ms: Math.round(performance.now() - started) }
    } catch (error) {
      broken = !(error instanceof pg.DatabaseError)
      return { ...refusal(error, watchdog.fired()), ms: Math.round(performance.now() - started) }
    } finally {
      await watchdog.stop()
      if (watchdog.fired()) broken = true
      else await client.query('ROLLBACK').catch(() => (broken = true))
      client.release(broken)
    }
  } finally {
    if (work.kind !== 'query') giveCopy(lab, database)
  }
}

/** A connection as the learner role; the role's connection limit reached is a busy sandbox, not a fault. */
async function connectLearner(database: string): Promise<pg.PoolClient> {
  try {
    return await (await learnerPool(database)).connect()
  } catch (error) {
    if (error instanceof pg.DatabaseError && error.code === TOO_MANY_CONNECTIONS)
      throw labsBusy('Many attempts are being graded right now; try again in a moment.')
    throw error
  }
}

export const TOO_MANY_CONNECTIONS = '53300'

const CURSOR = 'DECLARE lab_result NO SCROLL CURSOR FOR '

class LearnerError extends Error {
  constructor(
    message: string,
    readonly position?: number,
  ) {
    super(message)
  }
}

async function readQuery(client: pg.PoolClient, statement: Statement): Promise<SandboxResult> {
  const { LABS_MAX_ROWS, LABS_MAX_RESULT_BYTES } = getEnv()
  try {
    await client.query(CURSOR + statement.text)
  } catch (error) {
    throw shifted(error, statement.start - CURSOR.length)
  }
  let columns: string[] = []
  const rows: (string | null)[][] = []
  let bytes = 0
  let more = true
  while (more && rows.length < LABS_MAX_ROWS) {
    const batch = await client.query<(string | null)[]>({
      text: `FETCH FORWARD ${Math.min(500, LABS_MAX_ROWS - rows.length)} FROM lab_result`,
      rowMode: 'array',
      types: TEXT_VALUES,
    })
    columns = batch.fields.map((f) => f.name)
    for (const row of batch.rows) {
      for (const cell of row) bytes += cell === null ? 1 : Buffer.byteLength(cell)
      rows.push(row)
    }
    if (bytes > LABS_MAX_RESULT_BYTES)
      throw new LearnerError(
        `The result is larger than ${Math.round(LABS_MAX_RESULT_BYTES / 1024 / 1024)} MB; ask for fewer rows or columns.`,
      )
    more = batch.rows.length > 0
  }
  let total = rows.length
  if (more) {
    const rest = await client.query('MOVE FORWARD ALL IN lab_result')
    total += rest.rowCount ?? 0
  }
  return { columns, rows, total, truncated: total > rows.length }
}

async function change(client: pg.PoolClient, statements: Statement[], verify: string[]): Promise<Rows[]> {
  for (const statement of statements) {
    try {
      await client.query(statement.text)
    } catch (error) {
      throw shifted(error, statement.start)
    }
  }
  const results: Rows[] = []
  for (const text of verify) {
    const answer = await client.query<(string | null)[]>({ text, rowMode: 'array', types: TEXT_VALUES })
    results.push({ columns: answer.fields.map((f) => f.name), rows: answer.rows })
  }
  return results
}

// Tables and materialized views the setup created: their catalogue row was written by this transaction. A
// dataset table the setup only indexed is not among them (CREATE INDEX updates that row in place), and is
// deliberately not analysed again: it was analysed when the lab was built, and ANALYZE writes a table's
// page and row counts in place, where the rollback would not undo them on a copy the next attempt uses.
const CREATED_HERE = `SELECT c.oid::regclass::text AS name FROM pg_class c
  WHERE c.relkind IN ('r', 'm', 'p') AND c.xmin = pg_current_xact_id()::xid`

/**
 * The setup statements, then the query's rows and plan. What the setup created is new to the planner: it is
 * analysed first, as the dataset was when it was built, so the plan is the one real statistics would give.
 */
async function explain(client: pg.PoolClient, statements: Statement[], statement: Statement) {
  await change(client, statements, [])
  const created = await client.query<{ name: string }>(CREATED_HERE)
  for (const { name } of created.rows) await client.query(`ANALYZE ${name}`)
  const result = await readQuery(client, statement)
  await client.query('CLOSE lab_result')
  let answer: pg.QueryResult<{ 'QUERY PLAN': unknown }>
  try {
    answer = await client.query(`EXPLAIN (FORMAT JSON) ${statement.text}`)
  } catch (error) {
    throw shifted(error, statement.start - 'EXPLAIN (FORMAT JSON) '.length)
  }
  return { result, plan: answer.rows[0]['QUERY PLAN'] }
}

/** A database error at a place in one statement, at that place in the learner's whole text. */
function shifted(error: unknown, offset: number): unknown {
  if (!(error instanceof pg.DatabaseError) || !error.position) return error
  return new LearnerError(error.message, Number(error.position) + offset)
}

function refusal(error: unknown, timedOut: boolean): { ok: false; message: string; position?: number } {
  if (timedOut || (error instanceof pg.DatabaseError && error.code === '57014'))
    return {
      ok: false,
      message: `Stopped after ${getEnv().LABS_TIME_LIMIT_MS / 1000} s: a lab query may take no longer.`,
    }
  if (error instanceof LearnerError) return { ok: false, message: error.message, position: error.position }
  if (error instanceof pg.DatabaseError)
    return { ok: false, message: error.message, position: error.position ? Number(error.position) : undefined }
  throw error
}

/**
 * Cancels the session's statement from another connection when the attempt's time is up, then ends the
 * backend if the cancel did not take. The learner cannot lift it: it is not a setting of their session.
 */
function startWatchdog(client: pg.PoolClient) {
  const pid = (client as unknown as { processID: number }).processID
  const signal = (name: 'pg_cancel_backend' | 'pg_terminate_backend') =>
    asAdmin(undefined, (admin) => admin.query(`SELECT ${name}($1)`, [pid])).then(
      () => undefined,
      () => undefined,
    )
  const sent: Promise<void>[] = []
  const limit = getEnv().LABS_TIME_LIMIT_MS
  const cancel = setTimeout(() => sent.push(signal('pg_cancel_backend')), limit)
  const terminate = setTimeout(() => sent.push(signal('pg_terminate_backend')), limit + 2000)
  return {
    fired: () => sent.length > 0,
    /**
     * Stops the timers and waits for a signal on its way: a cancel that arrived late would stop the next
     * attempt on this connection, so a connection the watchdog signalled is not used again.
     */
    async stop() {
      clearTimeout(cancel)
      clearTimeout(terminate)
      await Promise.all(sent)
    },
  }
}

// --- The copies: one attempt each at a time ---

const busy = new Set<string>()
const waiting: (() => void)[] = []

async function takeCopy(lab: LabDatabases): Promise<string> {
  if (lab.copies.length === 0) throw new ServiceError(409, 'This lab has no copy to change; import it again.')
  for (;;) {
    const free = lab.copies.find((name) => !busy.has(name))
    if (free) {
      busy.add(free)
      return free
    }
    await new Promise<void>((resolve) => waiting.push(resolve))
  }
}

function giveCopy(_lab: LabDatabases, name: string) {
  busy.delete(name)
  for (const wake of waiting.splice(0)) wake()
}

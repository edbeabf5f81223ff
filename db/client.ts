import { createHash } from 'node:crypto'
import { Transform, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import pg from 'pg'
import QueryStream from 'pg-query-stream'
import { QueryTypes, Sequelize, type Transaction } from 'sequelize'
import { getEnv, getSecrets } from '#app/utils/env.server.ts'
import { logSlowQuery } from '#app/utils/log.server.ts'
import { openEmbeddedDatabase, type EmbeddedHandle } from './embedded.ts'
import { initModels, type Models } from './models/index.ts'

// The one database client: created on first use, never at import, so that importing a service
// costs nothing and a missing database surfaces as a clear error where it is needed.

type Connection = { sequelize: Sequelize; models: Models; embedded?: EmbeddedHandle; url: string }

let connecting: Promise<Connection> | undefined

type ConnectOptions = {
  /** own: this process runs the embedded server (the app); share: attach to a running one (the CLI) */
  mode?: 'own' | 'share'
  /**
   * Who stops an embedded server this process starts: `caller` (`disconnect()`, after the process's own
   * work has drained: the default of `own`) or `signal` (the default of `share`: a CLI command).
   */
  stoppedBy?: 'caller' | 'signal'
  log?: (line: string) => void
  /** how this process's sessions are named in pg_stat_activity (a restore tells its own from others) */
  applicationName?: string
}

export function connect(options: ConnectOptions = {}): Promise<Connection> {
  connecting ??= open(options).catch((error: unknown) => {
    connecting = undefined
    throw error
  })
  return connecting
}

async function open({ mode = 'share', stoppedBy, log, applicationName }: ConnectOptions): Promise<Connection> {
  const env = getEnv()
  let url = env.DATABASE_URL
  let embedded: EmbeddedHandle | undefined
  if (!url) {
    embedded = await openEmbeddedDatabase({
      dataDir: env.DATA_DIR,
      port: env.EMBEDDED_PG_PORT,
      password: getSecrets().databasePassword,
      mode,
      // the app server's owner stops the database itself, after the web server has drained
      stoppedBy: stoppedBy ?? (mode === 'own' ? 'caller' : 'signal'),
      log,
    })
    url = embedded.url
  }
  const sequelize = new Sequelize(url, {
    dialect: 'postgres',
    dialectModule: LISTENED_PG,
    benchmark: true,
    logging: (sql, ms) => {
      if (env.LOG_SQL) console.log(sql)
      if (typeof ms === 'number' && ms >= env.SLOW_SQL_MS) logSlowQuery(sql, ms)
    },
    pool: { max: env.DB_POOL_MAX, min: 0, idle: 10_000 },
    ...(applicationName ? { dialectOptions: { application_name: applicationName } } : {}),
    define: { underscored: true },
  })
  try {
    await sequelize.authenticate()
  } catch (error) {
    await embedded?.stop()
    throw new Error(`Cannot reach the database: ${(error as Error).message}`)
  }
  reportPoolUsage(sequelize, env.DB_POOL_MAX)
  return { sequelize, models: initModels(sequelize), embedded, url }
}

/**
 * pg's Client, listening for its errors from the start. Sequelize listens to a connection only once its
 * connect() has resolved, and pg-pool not at all while a client is lent out; a database that dies just then
 * (the last message of the start-up and "terminating connection" in one read, or a backend ended between two
 * statements) emitted an error nobody listened to, and that ends the process. Marked invalid, as Sequelize's own
 * listener marks it, the connection is dropped by Sequelize's pool instead of lent out; the next statement on it
 * fails as it would have anyway.
 */
export class ListenedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config)
    this.on('error', () => ((this as unknown as { _invalid: boolean })._invalid = true))
  }
}

/** pg as Sequelize loads it, with that Client; the rest (types, Pool) read through to pg itself. */
const LISTENED_PG: typeof pg = Object.assign(Object.create(pg) as typeof pg, { Client: ListenedClient })

/** The pool's connections: open, idle, lent out, callers waiting for one, and the most it opens. */
export type PoolUsage = { size: number; available: number; using: number; waiting: number; max: number }

type Pool = Omit<PoolUsage, 'max'>

let usage: (() => PoolUsage) | undefined

function reportPoolUsage(sequelize: Sequelize, max: number) {
  const pool = (sequelize.connectionManager as unknown as { pool: Pool }).pool
  usage = () => ({ size: pool.size, available: pool.available, using: pool.using, waiting: pool.waiting, max })
}

/** This process's pool, for the web server's /metrics; undefined before the first connection. */
export function poolUsage(): PoolUsage | undefined {
  return usage?.()
}

/**
 * Does the database answer a statement within `timeoutMs`? For readiness (/readyz) and for telling a
 * database outage from a fault (server/web-server.js). A dead pooled connection is no answer: the pool
 * drops it (Sequelize marks a connection that errs invalid) and the next call opens a new one.
 */
export async function databaseAnswers(timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))
  try {
    return await Promise.race([query(SELECT_ONE, {}).then(() => true as const), late])
  } catch {
    return false
  } finally {
    clearTimeout(timer)
  }
}

const SELECT_ONE = sql('SELECT 1')

/** The models, connecting on first use. */
export async function db(): Promise<Models> {
  return (await connect()).models
}

export async function sequelize(): Promise<Sequelize> {
  return (await connect()).sequelize
}

/** Where the database is (DATABASE_URL, or the embedded server's address), for a client with a pool of its own. */
export async function databaseUrl(): Promise<string> {
  return (await connect()).url
}

/** A raw pg connection borrowed from the pool (for a cursor or COPY), given back however `work` ends. */
export async function withConnection<T>(work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
  const { connectionManager } = await sequelize()
  const client = (await connectionManager.getConnection({ type: 'read' })) as pg.ClientBase
  try {
    return await work(client)
  } finally {
    connectionManager.releaseConnection(client)
  }
}

/** A statement written with `:name` placeholders, turned once into pg's positional `$1 …` (see `sql`). */
type NamedStatement = { text: string; names: string[]; name: string }

/**
 * Compiles a statement with `:name` placeholders (as Sequelize's replacements are written; `::type` casts
 * are left alone) into one with `$1 …` parameters, once, where it is declared. The values are then sent
 * apart from the text, so nothing is escaped into it.
 */
export function sql(text: string): NamedStatement {
  const names: string[] = []
  const positional = text.replace(/(?<![:\w]):([A-Za-z_]\w*)/g, (_, name: string) => {
    const at = names.indexOf(name)
    if (at >= 0) return `$${at + 1}`
    names.push(name)
    return `$${names.length}`
  })
  // prepared once per pooled connection under this name, then only bound and run: PostgreSQL parses
  // and plans it once per connection instead of on every call
  const name = `portal_${createHash('sha1').update(positional).digest('hex').slice(0, 16)}`
  return { text: positional, names, name }
}

/**
 * Work in one transaction: committed when `work` resolves, rolled back when it throws. Each statement
 * joins it by passing `{ transaction }`.
 */
export async function transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
  return (await sequelize()).transaction(work)
}

/** Work on one pooled connection inside BEGIN … COMMIT, rolled back when it throws. */
export async function withTransaction<T>(work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
  return withConnection(async (client) => {
    await client.query('BEGIN')
    try {
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      await client.query('ROLLBACK')
      throw error
    }
  })
}

/**
 * The rows of one statement run straight through pg on a pooled connection: no Sequelize model, escaping
 * or result building around it. A statement declared once with `sql` is prepared once per connection; one
 * built at run time (`Statement`, positional parameters) is sent as it is. Logged when slow, and with
 * LOG_SQL, as every other statement is.
 */
export async function query<R>(statement: NamedStatement, values: Record<string, unknown>): Promise<R[]>
export async function query<R>(statement: Statement): Promise<R[]>
export async function query<R>(statement: NamedStatement | Statement, values?: Record<string, unknown>): Promise<R[]> {
  const config =
    'names' in statement
      ? { name: statement.name, text: statement.text, values: valuesOf(statement, values ?? {}) }
      : { text: statement.text, values: statement.values }
  const { LOG_SQL, SLOW_SQL_MS } = getEnv()
  if (LOG_SQL) console.log(config.text)
  const result = await withConnection(async (client) => {
    // timed once it has a connection: a wait for the pool is not the statement's slowness
    const started = performance.now()
    const answer = await client.query(config)
    const ms = performance.now() - started
    if (ms >= SLOW_SQL_MS) logSlowQuery(config.text, ms)
    return answer
  })
  return result.rows as R[]
}

function valuesOf(statement: NamedStatement, values: Record<string, unknown>) {
  return statement.names.map((name) => {
    if (!(name in values)) throw new Error(`No value for :${name}.`)
    return values[name]
  })
}

/**
 * The rows of a statement built at run time with positional parameters ($1 …): in `transaction` when one is
 * given (through Sequelize, whose transaction it is), else as `query` runs it, on a pooled connection.
 */
export async function select<R extends object>(
  text: string,
  values: unknown[],
  transaction?: Transaction,
): Promise<R[]> {
  if (!transaction) return query<R>({ text, values })
  return (await sequelize()).query<R>(text, { bind: values, type: QueryTypes.SELECT, transaction })
}

/** A statement with positional parameters ($1 …), for Sequelize's `bind` and for a cursor alike. */
export type Statement = { text: string; values: unknown[] }

/** Rows written into `sink` (object mode) as they are read, ending it after the last. */
export type RowStream = (sink: Writable, signal?: AbortSignal) => Promise<void>

/**
 * A statement's rows from a cursor on a borrowed connection, through `stages` (the last one the sink),
 * a batch at a time and only as fast as the sink takes them, so memory stays flat whatever the count.
 * However it ends (done, a failing stage, a sink destroyed by its reader, `signal`), the cursor is
 * closed before the connection goes back to the pool.
 */
export async function pipeQuery(
  { text, values }: Statement,
  stages: [Writable, ...Writable[]],
  { signal, batchSize = 1000 }: { signal?: AbortSignal; batchSize?: number } = {},
): Promise<void> {
  await withConnection(async (client) => {
    const rows = client.query(new QueryStream(text, values, { batchSize }))
    await pipeline([rows, ...stages], { signal })
  })
}

/** A stage of `pipeQuery` that turns each database row into the shape a caller answers with. */
export function mapRows<R, T>(toRow: (record: R) => T): Transform {
  return new Transform({
    objectMode: true,
    transform(record: R, _encoding, done) {
      done(null, toRow(record))
    },
  })
}

/** Close the pool and stop the embedded server if this process owns it. */
export async function disconnect() {
  const current = connecting
  connecting = undefined
  usage = undefined
  if (!current) return
  const connection = await current.catch(() => undefined)
  if (!connection) return
  await connection.sequelize.close()
  await connection.embedded?.stop()
}

import { hasSqlDetails, loadModule, parseSync } from 'libpg-query'
import type { StatementKind } from './schema.ts'

// A learner's SQL runs in a PostgreSQL sandbox that every learner shares, so before it runs it is read by
// PostgreSQL's own parser (libpg-query: the server's grammar compiled to WebAssembly), and what the server would run
// is what is checked: no regular expression for a comment, a dollar quote or a Unicode escape to slip past. The
// statement types a lab may run are an explicit list; everything else is refused, whatever the exercise allows. The
// sandbox's role, time limit and transaction stay the walls behind this one.

/**
 * `start`: where the statement begins in the learner's text, in characters (code points) before it. `transaction`:
 * transaction control or LOCK TABLE, which only a two-session exercise runs.
 */
export type VettedStatement = { kind: StatementKind | 'transaction'; sql: string; ordered: boolean; start: number }
export type Vetting =
  | { ok: true; statements: VettedStatement[] }
  // position: 1-based, in characters (code points) of the learner's text, as PostgreSQL reports a position;
  // syntax: the text is no SQL PostgreSQL reads (an attempt that failed), not SQL a lab refuses to run
  | { ok: false; message: string; position?: number; syntax?: true }

/**
 * `transactions`: the learner drives the transaction, as in a two-session exercise, where each session is a
 * connection of its own: BEGIN (with an isolation level), SET TRANSACTION, COMMIT, ROLLBACK, savepoints, row locks
 * (SELECT … FOR UPDATE) and LOCK TABLE are allowed on top of `allow`. Nothing else is loosened.
 */
type Rules = { allow: readonly StatementKind[]; single: boolean; maxBytes: number; transactions?: boolean }
type Refusal = Extract<Vetting, { ok: false }>
/** One node of the parse tree as libpg-query gives it: JSON, each node wrapped as `{ TypeName: { …fields } }`. */
type Fields = { [field: string]: unknown }

/**
 * Functions no lab may call, matched on the last part of the name (with or without a schema, in any case); a
 * trailing `*` takes every name that starts so. Each reaches past the attempt it is written in.
 */
export const DENIED_FUNCTIONS = [
  // a setting that outlives the statement or lifts the sandbox's limits (current_setting, reading one, is fine)
  'set_config',
  // the server's own files and directories
  'pg_read_file',
  'pg_read_binary_file',
  'pg_stat_file',
  'pg_ls_*',
  'pg_logdir_ls',
  'pg_file_*',
  // large objects: server-side files (lo_import, lo_export) and storage every learner shares
  'lo_*',
  'loread',
  'lowrite',
  // other databases and servers
  'dblink*',
  // other sessions, and the server itself
  'pg_terminate_backend',
  'pg_cancel_backend',
  'pg_reload_conf',
  'pg_rotate_logfile',
  'pg_promote',
  'pg_switch_wal',
  'pg_create_restore_point',
  'pg_backup_start',
  'pg_backup_stop',
  'pg_log_backend_memory_contexts',
  // what other sessions are running: pg_stat_activity is built on these, and learners share a role
  'pg_stat_get_*',
  // a session's advisory lock outlives the attempt on a pooled connection
  'pg_advisory_*',
  'pg_try_advisory_*',
  // messages to other sessions
  'pg_notify',
  // they run SQL given as a string, which this vetting never sees
  'query_to_xml*',
  'cursor_to_xml*',
  'table_to_xml*',
  'schema_to_xml*',
  'database_to_xml*',
] as const

const encoder = new TextEncoder()
const decoder = new TextDecoder()

// libpg-query loads its WebAssembly once; a failed load is tried again on the next call
let parserReady: Promise<void> | undefined

/**
 * Reads the learner's SQL with PostgreSQL's parser and says whether a lab may run it: each statement with its own
 * text and kind, or the one reason it may not, in a sentence for the learner.
 */
export async function vetSql(sql: string, rules: Rules): Promise<Vetting> {
  const bytes = encoder.encode(sql)
  if (bytes.length > rules.maxBytes)
    return refuse(`The SQL is too long: ${bytes.length} bytes, where this exercise takes at most ${rules.maxBytes}.`)
  // the parser reads a C string, so it would stop at a NUL and vet less than was sent
  if (sql.includes('\0')) return refuse('The SQL contains a NUL character, which PostgreSQL does not accept.')
  if (sql.trim() === '') return refuse(NOTHING)

  parserReady ??= loadModule().catch((error: unknown) => {
    parserReady = undefined
    throw error
  })
  await parserReady
  const parsed = parse(sql)
  if ('ok' in parsed) return parsed
  if (parsed.length === 0) return refuse(NOTHING)

  const statements: VettedStatement[] = []
  for (const raw of parsed) {
    const vetted = vetStatement(raw, bytes, rules)
    if ('ok' in vetted) return vetted
    statements.push(vetted)
  }
  if (rules.single && parsed.length > 1)
    return refuse(
      `This exercise takes a single statement, but the text has ${parsed.length}.`,
      positionOf(bytes, parsed[1].stmt_location),
    )
  return { ok: true, statements }
}

const NOTHING = 'There is no SQL statement to run.'

type RawStatement = { stmt?: unknown; stmt_location?: number; stmt_len?: number }

function parse(sql: string): RawStatement[] | Refusal {
  try {
    return parseSync(sql).stmts ?? []
  } catch (error) {
    // libpg-query's cursorPosition is PostgreSQL's 1-based character position less one
    const details = hasSqlDetails(error) ? error.sqlDetails : undefined
    if (details) return { ...refuse(sentence(details.message), details.cursorPosition + 1), syntax: true }
    // the parser writes its tree out recursively: a few thousand nested operators overflow WebAssembly's stack
    if (error instanceof RangeError) return refuse('The SQL is nested too deeply to be checked.')
    throw error
  }
}

function vetStatement(raw: RawStatement, bytes: Uint8Array, rules: Rules): VettedStatement | Refusal {
  // stmt_location and stmt_len count UTF-8 bytes; a length of 0 (left out) runs to the end of the text
  const start = raw.stmt_location ?? 0
  const end = raw.stmt_len ? start + raw.stmt_len : bytes.length
  const text = decoder.decode(bytes.subarray(start, end))
  const sql = text.trim()
  const at = positionOf(bytes, start)
  const lead = Array.from(text.slice(0, text.length - text.trimStart().length)).length
  const node = unwrap(raw.stmt)
  if (!node) return refuse(`${leadingWords(sql)} is not allowed in an SQL lab.`, at)

  const control = rules.transactions ? TRANSACTION_CONTROL[node.type]?.(node.fields) : undefined
  if (control) {
    if (control.kind === 'never') return refuse(`${control.label} is not allowed in an SQL lab.`, at)
    // LOCK TABLE names relations: the same walk refuses a catalog
    const found = inspect(node.fields, rules)
    if (found.refusal) return refuse(found.refusal.message, positionOf(bytes, found.refusal.location) ?? at)
    return { kind: 'transaction', sql, ordered: false, start: (at ?? 1) - 1 + lead }
  }

  const classify = STATEMENTS[node.type]
  const { kind, label } = classify ? classify(node.fields) : never(refusedLabel(node, sql))
  if (kind === 'never') return refuse(`${label} is not allowed in an SQL lab.`, at)

  const named = OBJECT_NAMES[node.type]?.(node.fields).find(isSystemName)
  if (named) return refuse(offLimits(named), at)
  const found = inspect(node.fields, rules)
  if (found.refusal) return refuse(found.refusal.message, positionOf(bytes, found.refusal.location) ?? at)

  // a WITH that deletes makes a SELECT a data change; under a schema change it needs both kinds allowed
  const changes = kind === 'dml' ? undefined : found.changes
  const needs: StatementKind[] = !changes ? [kind] : kind === 'select' ? ['dml'] : [kind, 'dml']
  if (!needs.every((needed) => rules.allow.includes(needed))) {
    const what = !changes
      ? label
      : kind === 'select'
        ? `a WITH query that runs ${changes}`
        : `${label} with ${changes} in its WITH`
    return refuse(`${takes(rules.allow)}; ${what} is not allowed here.`, at)
  }
  const query = node.type === 'SelectStmt' && kind === 'select'
  return { kind: needs[0], sql, ordered: query && nonEmpty(node.fields.sortClause), start: (at ?? 1) - 1 + lead }
}

// —— What each statement type is ——

type Node = { type: string; fields: Fields }
type Classified = { kind: StatementKind | 'never'; label: string }

const RELATIONS = ['OBJECT_TABLE', 'OBJECT_VIEW', 'OBJECT_MATVIEW', 'OBJECT_INDEX', 'OBJECT_SEQUENCE']
// a lab that creates a domain or a composite type drops it again
const DROPPABLE = [...RELATIONS, 'OBJECT_TYPE', 'OBJECT_DOMAIN']
// the parts of what a lab creates (a column, a constraint, an attribute of a composite type), never a schema,
// a function, a role or the database
const RENAMEABLE = [...DROPPABLE, 'OBJECT_COLUMN', 'OBJECT_TABCONSTRAINT', 'OBJECT_ATTRIBUTE']
const COMMENTABLE = [...DROPPABLE, 'OBJECT_COLUMN', 'OBJECT_TABCONSTRAINT']

const select = (label: string): Classified => ({ kind: 'select', label })
const dml = (label: string): Classified => ({ kind: 'dml', label })
const ddl = (label: string): Classified => ({ kind: 'ddl', label })
const never = (label: string): Classified => ({ kind: 'never', label })
const onlyOn = (objects: string[], objtype: unknown, label: string) =>
  objects.includes(String(objtype)) ? ddl(label) : never(label)

/**
 * The statement types a lab may run, and the kind each is. Some refuse a variant: CONCURRENTLY cannot run inside
 * the attempt's transaction, and ALTER, DROP, COMMENT and RENAME reach only what a lab creates. A type not here is
 * refused.
 */
const STATEMENTS: Record<string, (fields: Fields) => Classified> = {
  SelectStmt: (n) => (n.intoClause ? ddl('SELECT … INTO') : select(n.valuesLists ? 'VALUES' : 'SELECT')),
  InsertStmt: () => dml('INSERT'),
  UpdateStmt: () => dml('UPDATE'),
  DeleteStmt: () => dml('DELETE'),
  MergeStmt: () => dml('MERGE'),
  TruncateStmt: () => dml('TRUNCATE'),
  CreateStmt: () => ddl('CREATE TABLE'),
  CreateTableAsStmt: (n) =>
    n.objtype === 'OBJECT_MATVIEW'
      ? ddl('CREATE MATERIALIZED VIEW')
      : onlyOn(['OBJECT_TABLE'], n.objtype, 'CREATE TABLE … AS'),
  ViewStmt: () => ddl('CREATE VIEW'),
  IndexStmt: (n) => (n.concurrent ? never('CREATE INDEX CONCURRENTLY') : ddl('CREATE INDEX')),
  AlterTableStmt: (n) => onlyOn(RELATIONS, n.objtype, `ALTER ${objectWords(n.objtype)}`),
  DropStmt: (n) =>
    n.concurrent
      ? never(`DROP ${objectWords(n.removeType)} CONCURRENTLY`)
      : onlyOn(DROPPABLE, n.removeType, `DROP ${objectWords(n.removeType)}`),
  RenameStmt: (n) => onlyOn(RENAMEABLE, n.renameType, renameLabel(n)),
  CreateSeqStmt: () => ddl('CREATE SEQUENCE'),
  AlterSeqStmt: () => ddl('ALTER SEQUENCE'),
  CommentStmt: (n) => onlyOn(COMMENTABLE, n.objtype, `COMMENT ON ${objectWords(n.objtype)}`),
  CreateEnumStmt: () => ddl('CREATE TYPE … AS ENUM'),
  CompositeTypeStmt: () => ddl('CREATE TYPE … AS'),
  CreateDomainStmt: () => ddl('CREATE DOMAIN'),
  RefreshMatViewStmt: (n) =>
    n.concurrent ? never('REFRESH MATERIALIZED VIEW CONCURRENTLY') : ddl('REFRESH MATERIALIZED VIEW'),
}

/** The names of what a statement drops, comments on, renames or creates that are not a relation (a RangeVar). */
const OBJECT_NAMES: Record<string, (fields: Fields) => string[][]> = {
  DropStmt: (n) => (Array.isArray(n.objects) ? n.objects.map(qualifiedName) : []),
  CommentStmt: (n) => [qualifiedName(n.object)],
  RenameStmt: (n) => [qualifiedName(n.object)],
  CreateEnumStmt: (n) => [qualifiedName(n.typeName)],
  CreateDomainStmt: (n) => [qualifiedName(n.domainname)],
}

const TRANSACTION_WORDS: Record<string, string> = {
  TRANS_STMT_BEGIN: 'BEGIN',
  TRANS_STMT_START: 'START TRANSACTION',
  TRANS_STMT_COMMIT: 'COMMIT',
  TRANS_STMT_ROLLBACK: 'ROLLBACK',
  TRANS_STMT_SAVEPOINT: 'SAVEPOINT',
  TRANS_STMT_RELEASE: 'RELEASE SAVEPOINT',
  TRANS_STMT_ROLLBACK_TO: 'ROLLBACK TO SAVEPOINT',
  TRANS_STMT_PREPARE: 'PREPARE TRANSACTION',
  TRANS_STMT_COMMIT_PREPARED: 'COMMIT PREPARED',
  TRANS_STMT_ROLLBACK_PREPARED: 'ROLLBACK PREPARED',
}

// the transaction kinds a session may run; two-phase commit (PREPARE TRANSACTION) outlives the session
const SESSION_TRANSACTIONS = [
  'TRANS_STMT_BEGIN',
  'TRANS_STMT_START',
  'TRANS_STMT_COMMIT',
  'TRANS_STMT_ROLLBACK',
  'TRANS_STMT_SAVEPOINT',
  'TRANS_STMT_RELEASE',
  'TRANS_STMT_ROLLBACK_TO',
]

/**
 * The statements a two-session exercise adds, and only there. SET is taken only as SET TRANSACTION (the isolation
 * level, read only, deferrable of the open transaction); any other setting, a snapshot import, or the session's
 * defaults stay refused. A type not here goes on to the lists above.
 */
const TRANSACTION_CONTROL: Record<string, (fields: Fields) => Classified | undefined> = {
  TransactionStmt: (n) => {
    const words = TRANSACTION_WORDS[String(n.kind)] ?? 'Transaction control'
    return SESSION_TRANSACTIONS.includes(String(n.kind)) ? { kind: 'select', label: words } : never(words)
  },
  VariableSetStmt: (n) =>
    n.kind === 'VAR_SET_MULTI' && n.name === 'TRANSACTION' ? { kind: 'select', label: 'SET TRANSACTION' } : undefined,
  LockStmt: () => ({ kind: 'select', label: 'LOCK TABLE' }),
}

// the SET statements about transactions, named in full when refused
const TRANSACTION_SETTINGS = ['TRANSACTION', 'TRANSACTION SNAPSHOT', 'SESSION CHARACTERISTICS']

/**
 * What to call a statement a lab never runs, in the words it is written with. These are named only for the
 * message: leaving a type out of this list refuses it all the same.
 */
const REFUSED: Record<string, string | ((fields: Fields, sql: string) => string)> = {
  TransactionStmt: (n) => TRANSACTION_WORDS[String(n.kind)] ?? 'Transaction control',
  VariableSetStmt: (n) => {
    const verb = String(n.kind).startsWith('VAR_RESET') ? 'RESET' : 'SET'
    if (n.name === 'role') return `${verb} ROLE`
    if (n.name === 'session_authorization') return `${verb} SESSION AUTHORIZATION`
    return TRANSACTION_SETTINGS.includes(String(n.name)) ? `SET ${String(n.name)}` : verb
  },
  VariableShowStmt: 'SHOW',
  DiscardStmt: 'DISCARD',
  CopyStmt: 'COPY',
  DoStmt: 'DO',
  CallStmt: 'CALL',
  ListenStmt: 'LISTEN',
  NotifyStmt: 'NOTIFY',
  UnlistenStmt: 'UNLISTEN',
  CreateFunctionStmt: (n) => (n.is_procedure ? 'CREATE PROCEDURE' : 'CREATE FUNCTION'),
  CreateTrigStmt: 'CREATE TRIGGER',
  CreateEventTrigStmt: 'CREATE EVENT TRIGGER',
  RuleStmt: 'CREATE RULE',
  // CREATE LANGUAGE without a handler is read as CREATE EXTENSION
  CreateExtensionStmt: (_, sql) =>
    /^create\s+(or\s+replace\s+)?(trusted\s+)?(procedural\s+)?language\b/i.test(sql)
      ? 'CREATE LANGUAGE'
      : 'CREATE EXTENSION',
  CreatePLangStmt: 'CREATE LANGUAGE',
  CreateRoleStmt: (n) => `CREATE ${String(n.stmt_type ?? 'ROLESTMT_ROLE').replace('ROLESTMT_', '')}`,
  CreatedbStmt: 'CREATE DATABASE',
  CreateSchemaStmt: 'CREATE SCHEMA',
  CreateForeignTableStmt: 'CREATE FOREIGN TABLE',
  CreateFdwStmt: 'CREATE FOREIGN DATA WRAPPER',
  CreateForeignServerStmt: 'CREATE SERVER',
  CreateUserMappingStmt: 'CREATE USER MAPPING',
  ImportForeignSchemaStmt: 'IMPORT FOREIGN SCHEMA',
  CreateCastStmt: 'CREATE CAST',
  CreateOpClassStmt: 'CREATE OPERATOR CLASS',
  CreateOpFamilyStmt: 'CREATE OPERATOR FAMILY',
  DefineStmt: (n) => `CREATE ${objectWords(n.kind)}`,
  AlterSystemStmt: 'ALTER SYSTEM',
  AlterRoleStmt: 'ALTER ROLE',
  AlterRoleSetStmt: 'ALTER ROLE',
  AlterDatabaseStmt: 'ALTER DATABASE',
  AlterDatabaseSetStmt: 'ALTER DATABASE',
  AlterDefaultPrivilegesStmt: 'ALTER DEFAULT PRIVILEGES',
  GrantStmt: (n) => (n.is_grant ? 'GRANT' : 'REVOKE'),
  GrantRoleStmt: (n) => (n.is_grant ? 'GRANT' : 'REVOKE'),
  LockStmt: 'LOCK',
  VacuumStmt: (n) => (n.is_vacuumcmd ? 'VACUUM' : 'ANALYZE'),
  ClusterStmt: 'CLUSTER',
  ReindexStmt: 'REINDEX',
  CheckPointStmt: 'CHECKPOINT',
  LoadStmt: 'LOAD',
  PrepareStmt: 'PREPARE',
  ExecuteStmt: 'EXECUTE',
  DeallocateStmt: 'DEALLOCATE',
  DeclareCursorStmt: 'DECLARE',
  FetchStmt: (n) => (n.ismove ? 'MOVE' : 'FETCH'),
  ClosePortalStmt: 'CLOSE',
  ExplainStmt: 'EXPLAIN',
  SecLabelStmt: 'SECURITY LABEL',
  AlterObjectSchemaStmt: (n) => `ALTER ${objectWords(n.objectType)} … SET SCHEMA`,
}

function refusedLabel(node: Node, sql?: string): string {
  const label = REFUSED[node.type]
  if (typeof label === 'string') return label
  if (label) return label(node.fields, sql ?? '')
  return sql ? leadingWords(sql) : node.type.replace(/Stmt$/, '').toUpperCase()
}

/** The first word or two of a statement no list names: "ALTER FUNCTION", "CREATE PUBLICATION", "SHOW". */
function leadingWords(sql: string): string {
  const words = /^(create|alter|drop)(?:\s+or\s+replace)?\s+([a-z_]+)/i.exec(sql)
  if (words) return `${words[1]} ${words[2]}`.toUpperCase()
  return (/^[a-z_]+/i.exec(sql)?.[0] ?? 'This statement').toUpperCase()
}

// what PostgreSQL's grammar calls an object where a learner writes something else
const OBJECT_WORDS: Record<string, string> = {
  OBJECT_MATVIEW: 'MATERIALIZED VIEW',
  OBJECT_TABCONSTRAINT: 'CONSTRAINT',
  OBJECT_DOMCONSTRAINT: 'CONSTRAINT',
  OBJECT_FDW: 'FOREIGN DATA WRAPPER',
  OBJECT_FOREIGN_SERVER: 'SERVER',
  OBJECT_LARGEOBJECT: 'LARGE OBJECT',
  OBJECT_STATISTIC_EXT: 'STATISTICS',
  OBJECT_TSCONFIGURATION: 'TEXT SEARCH CONFIGURATION',
  OBJECT_TSDICTIONARY: 'TEXT SEARCH DICTIONARY',
  OBJECT_TSPARSER: 'TEXT SEARCH PARSER',
  OBJECT_TSTEMPLATE: 'TEXT SEARCH TEMPLATE',
}

function objectWords(objtype: unknown): string {
  const type = String(objtype)
  return OBJECT_WORDS[type] ?? type.replace(/^OBJECT_/, '').replaceAll('_', ' ')
}

function renameLabel(n: Fields): string {
  const part = ['OBJECT_COLUMN', 'OBJECT_TABCONSTRAINT', 'OBJECT_ATTRIBUTE'].includes(String(n.renameType))
  return part
    ? `ALTER ${objectWords(n.relationType)} … RENAME ${objectWords(n.renameType)}`
    : `ALTER ${objectWords(n.renameType)} … RENAME`
}

// —— What a statement reaches, anywhere in its tree ——

type Inspection = { refusal?: { message: string; location?: number }; changes?: string }

const CHANGES: Record<string, string> = {
  InsertStmt: 'INSERT',
  UpdateStmt: 'UPDATE',
  DeleteStmt: 'DELETE',
  MergeStmt: 'MERGE',
}

const LOCKS: Record<string, string> = {
  LCS_FORKEYSHARE: 'FOR KEY SHARE',
  LCS_FORSHARE: 'FOR SHARE',
  LCS_FORNOKEYUPDATE: 'FOR NO KEY UPDATE',
  LCS_FORUPDATE: 'FOR UPDATE',
}

/**
 * Walks every node under a statement, generically, so that no clause is missed: a relation (a RangeVar) or a
 * function call anywhere counts, as does a data-changing statement in a WITH. Relations and calls are told by their
 * fields, not their wrapper, since some fields hold them bare (an UPDATE's target, SELECT INTO's table). The walk
 * keeps its own stack: a deep tree must not overflow JavaScript's.
 */
function inspect(root: Fields, rules: Rules): Inspection {
  const found: Inspection = {}
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const value = stack.pop()
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push(value[i])
      continue
    }
    if (!isFields(value)) continue
    const node = unwrap(value)
    if (node) {
      if (node.type in CHANGES) found.changes ??= CHANGES[node.type]
      // a statement inside another (CREATE TABLE … AS EXECUTE) other than a query or a data change
      else if (node.type.endsWith('Stmt') && node.type !== 'SelectStmt')
        return { refusal: { message: `${refusedLabel(node)} is not allowed in an SQL lab.` } }
      stack.push(node.fields)
      continue
    }
    const refusal =
      relationRefusal(value) ?? callRefusal(value) ?? (rules.transactions ? undefined : lockRefusal(value))
    if (refusal) return { ...found, refusal }
    const fields = Object.values(value)
    for (let i = fields.length - 1; i >= 0; i--) stack.push(fields[i])
  }
  return found
}

function relationRefusal(fields: Fields) {
  if (typeof fields.relname !== 'string') return undefined
  const name = [fields.catalogname, fields.schemaname, fields.relname].filter((p) => typeof p === 'string')
  return isSystemName(name) ? { message: offLimits(name), location: location(fields) } : undefined
}

function callRefusal(fields: Fields) {
  if (!Array.isArray(fields.funcname)) return undefined
  const name = names(fields.funcname)
  const last = name.at(-1)?.toLowerCase() ?? ''
  const denied = DENIED_FUNCTIONS.some((entry) =>
    entry.endsWith('*') ? last.startsWith(entry.slice(0, -1)) : last === entry,
  )
  return denied
    ? { message: `${name.join('.')}() is not allowed in an SQL lab.`, location: location(fields) }
    : undefined
}

// a row lock held by one learner's attempt would make another's wait; a two-session exercise's database is the
// learner's own, so there a lock is the lesson
function lockRefusal(fields: Fields) {
  if (!nonEmpty(fields.lockingClause)) return undefined
  const clause = unwrap(fields.lockingClause[0])
  const words = LOCKS[String(clause?.fields.strength)] ?? 'FOR UPDATE'
  return { message: `SELECT … ${words} is not allowed in an SQL lab.` }
}

/**
 * The system catalogs and every name starting with pg_ are out of reach: learners share a role, so
 * pg_stat_activity would show one learner another's SQL. A schema may be pg_temp, the session's own.
 */
function isSystemName(name: string[]): boolean {
  return name.some((part) => {
    const lower = part.toLowerCase()
    return lower === 'information_schema' || (lower.startsWith('pg_') && lower !== 'pg_temp')
  })
}

const offLimits = (name: string[]) =>
  `${name.join('.')} is off limits in an SQL lab: system catalogs and names starting with pg_ are not for labs.`

// —— The parse tree's JSON ——

const isFields = (value: unknown): value is Fields => typeof value === 'object' && value !== null

const nonEmpty = (value: unknown): value is unknown[] => Array.isArray(value) && value.length > 0

/** A wrapped node, `{ SelectStmt: { … } }`: its one key is the node's type. Bare structs have lower-case keys. */
function unwrap(value: unknown): Node | undefined {
  if (!isFields(value) || Array.isArray(value)) return undefined
  const keys = Object.keys(value)
  const type = keys[0]
  const fields = value[type]
  return keys.length === 1 && /^[A-Z]/.test(type) && isFields(fields) && !Array.isArray(fields)
    ? { type, fields }
    : undefined
}

/** The strings of a list of `{ String: { sval } }` nodes, as a name's parts are given. */
function names(list: unknown[]): string[] {
  return list.flatMap((item) => {
    const sval = unwrap(item)?.fields.sval
    return typeof sval === 'string' ? [sval] : []
  })
}

/** An object's name, however the statement holds it: a List of parts, a TypeName, one String, or bare parts. */
function qualifiedName(value: unknown): string[] {
  if (Array.isArray(value)) return names(value)
  const node = unwrap(value)
  if (node?.type === 'List' && Array.isArray(node.fields.items)) return names(node.fields.items)
  if (node?.type === 'TypeName' && Array.isArray(node.fields.names)) return names(node.fields.names)
  return node ? names([value]) : []
}

const location = (fields: Fields) => (typeof fields.location === 'number' ? fields.location : undefined)

// —— Messages ——

function refuse(message: string, position?: number): Refusal {
  return position === undefined ? { ok: false, message } : { ok: false, message, position }
}

/** A byte offset into the text as PostgreSQL reports a position: 1-based, counting characters. */
function positionOf(bytes: Uint8Array, offset: number | undefined): number | undefined {
  if (offset === undefined || offset < 0) return undefined
  return Array.from(decoder.decode(bytes.subarray(0, offset))).length + 1
}

/** PostgreSQL's messages start in lower case and end bare; the learner reads a sentence. */
const sentence = (message: string) =>
  `${message.charAt(0).toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}`

const KIND_WORDS: Record<StatementKind, string> = {
  select: 'a SELECT query',
  dml: 'a data change (INSERT, UPDATE, DELETE, MERGE, TRUNCATE)',
  ddl: 'a schema change (CREATE, ALTER, DROP, COMMENT, REFRESH)',
}

function takes(allow: readonly StatementKind[]): string {
  const words = allow.map((kind) => KIND_WORDS[kind])
  if (words.length === 0) return 'This exercise runs no SQL'
  const last = words.pop()
  return `This exercise takes ${words.length > 0 ? `${words.join(', ')} or ${last}` : last}`
}

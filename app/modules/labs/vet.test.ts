import { describe, expect, it } from 'vitest'
import type { StatementKind } from './schema.ts'
import { DENIED_FUNCTIONS, type VettedStatement, type Vetting, vetSql } from './vet.ts'

const ALL: StatementKind[] = ['select', 'dml', 'ddl']
const rules = (allow: readonly StatementKind[] = ALL, single = false, maxBytes = 100_000) => ({
  allow,
  single,
  maxBytes,
})

async function accepted(sql: string, allow: readonly StatementKind[] = ALL): Promise<VettedStatement[]> {
  const vetting: Vetting = await vetSql(sql, rules(allow))
  if (!vetting.ok) throw new Error(`refused ${sql}: ${vetting.message}`)
  return vetting.statements
}

async function refused(sql: string, allow: readonly StatementKind[] = ALL, single = false) {
  const vetting = await vetSql(sql, rules(allow, single))
  if (vetting.ok) throw new Error(`accepted ${sql}`)
  return vetting
}

/** Where a fragment starts, as PostgreSQL counts: 1-based, in characters (code points). */
const positionOf = (sql: string, fragment: string) => Array.from(sql.slice(0, sql.indexOf(fragment))).length + 1

const KINDS: [StatementKind, string, string][] = [
  ['select', 'SELECT region, sum(amount) FROM sales GROUP BY region', 'SELECT'],
  ['select', 'VALUES (1), (2)', 'VALUES'],
  ['select', 'SELECT 1 UNION ALL SELECT 2', 'SELECT'],
  ['select', 'WITH t AS (SELECT 1 AS a) SELECT a FROM t', 'SELECT'],
  ['select', 'TABLE sales', 'SELECT'],
  ['select', 'SELECT * FROM pg_temp.scratch', 'SELECT'],
  ['dml', 'INSERT INTO sales (region) VALUES ($$Zürich$$) RETURNING *', 'INSERT'],
  ['dml', 'UPDATE sales SET amount = amount * 2 WHERE region = $$North$$', 'UPDATE'],
  ['dml', 'DELETE FROM sales WHERE amount < 0', 'DELETE'],
  ['dml', 'MERGE INTO sales s USING targets t ON s.region = t.region WHEN MATCHED THEN DELETE', 'MERGE'],
  ['dml', 'TRUNCATE sales', 'TRUNCATE'],
  ['dml', 'WITH d AS (DELETE FROM sales RETURNING *) INSERT INTO archive SELECT * FROM d', 'INSERT'],
  ['ddl', 'CREATE TABLE t (a int PRIMARY KEY, b text DEFAULT current_setting($$TimeZone$$))', 'CREATE TABLE'],
  ['ddl', 'CREATE TEMP TABLE t (a int)', 'CREATE TABLE'],
  ['ddl', 'CREATE TABLE t AS SELECT * FROM sales', 'CREATE TABLE … AS'],
  ['ddl', 'SELECT * INTO t FROM sales', 'SELECT … INTO'],
  ['ddl', 'CREATE VIEW v AS SELECT * FROM sales', 'CREATE VIEW'],
  ['ddl', 'CREATE MATERIALIZED VIEW m AS SELECT * FROM sales', 'CREATE MATERIALIZED VIEW'],
  ['ddl', 'CREATE UNIQUE INDEX i ON sales (region)', 'CREATE INDEX'],
  ['ddl', 'ALTER TABLE sales ADD COLUMN note text', 'ALTER TABLE'],
  ['ddl', 'ALTER MATERIALIZED VIEW m ALTER COLUMN a SET STATISTICS 100', 'ALTER MATERIALIZED VIEW'],
  ['ddl', 'ALTER SEQUENCE s OWNED BY sales.id', 'ALTER SEQUENCE'],
  ['ddl', 'ALTER TABLE sales RENAME TO old_sales', 'ALTER TABLE … RENAME'],
  ['ddl', 'ALTER TABLE sales RENAME COLUMN amount TO total', 'ALTER TABLE … RENAME COLUMN'],
  ['ddl', 'ALTER INDEX i RENAME TO j', 'ALTER INDEX … RENAME'],
  ['ddl', 'DROP TABLE IF EXISTS t, u CASCADE', 'DROP TABLE'],
  ['ddl', 'DROP VIEW v', 'DROP VIEW'],
  ['ddl', 'DROP MATERIALIZED VIEW m', 'DROP MATERIALIZED VIEW'],
  ['ddl', 'DROP INDEX i', 'DROP INDEX'],
  ['ddl', 'DROP SEQUENCE s', 'DROP SEQUENCE'],
  ['ddl', 'DROP TYPE mood', 'DROP TYPE'],
  ['ddl', 'CREATE SEQUENCE s START 10', 'CREATE SEQUENCE'],
  ['ddl', 'ALTER SEQUENCE s RESTART', 'ALTER SEQUENCE'],
  ['ddl', "COMMENT ON TABLE sales IS 'One row a sale'", 'COMMENT ON TABLE'],
  ['ddl', "COMMENT ON COLUMN sales.amount IS 'In euros'", 'COMMENT ON COLUMN'],
  ['ddl', "CREATE TYPE mood AS ENUM ('sad', 'happy')", 'CREATE TYPE … AS ENUM'],
  ['ddl', 'CREATE TYPE pair AS (a int, b int)', 'CREATE TYPE … AS'],
  ['ddl', 'CREATE DOMAIN positive AS int CHECK (VALUE > 0)', 'CREATE DOMAIN'],
  ['ddl', 'REFRESH MATERIALIZED VIEW m', 'REFRESH MATERIALIZED VIEW'],
]

describe('vetting a statement of each kind', () => {
  it.each(KINDS)('takes a %s statement where it is allowed: %s', async (kind, sql) => {
    expect(await accepted(sql, [kind])).toEqual([expect.objectContaining({ kind, sql })])
  })

  it.each(KINDS)('refuses a %s statement where it is not, naming it: %s', async (kind, sql, label) => {
    const others = ALL.filter((other) => other !== kind)
    const vetting = await refused(sql, others)
    expect(vetting.message).toMatch(/^This exercise takes /)
    expect(vetting.message).toContain(`; ${label} is not allowed here.`)
    expect(vetting.position).toBe(1)
  })

  it('words the refusal after what the exercise takes', async () => {
    expect((await refused('INSERT INTO sales VALUES (1)', ['select'])).message).toBe(
      'This exercise takes a SELECT query; INSERT is not allowed here.',
    )
    expect((await refused('DROP TABLE sales', ['select', 'dml'])).message).toBe(
      'This exercise takes a SELECT query or a data change (INSERT, UPDATE, DELETE, MERGE, TRUNCATE); ' +
        'DROP TABLE is not allowed here.',
    )
    expect((await refused('SELECT 1', ['ddl'])).message).toBe(
      'This exercise takes a schema change (CREATE, ALTER, DROP, COMMENT, REFRESH); SELECT is not allowed here.',
    )
    expect((await refused('SELECT 1', [])).message).toBe('This exercise runs no SQL; SELECT is not allowed here.')
  })

  it('makes a SELECT whose WITH changes data a data change', async () => {
    const sql = 'WITH d AS (DELETE FROM sales RETURNING *) SELECT * FROM d'
    expect(await accepted(sql, ['dml'])).toEqual([{ kind: 'dml', sql, ordered: false, start: 0 }])
    expect((await refused(sql, ['select'])).message).toBe(
      'This exercise takes a SELECT query; a WITH query that runs DELETE is not allowed here.',
    )
    // however deep the WITH is
    const nested = 'SELECT * FROM (WITH u AS (UPDATE sales SET amount = 0 RETURNING *) SELECT * FROM u) x'
    expect((await refused(nested, ['select'])).message).toContain('a WITH query that runs UPDATE')
    // a schema change whose WITH changes data needs both kinds
    const into = 'WITH d AS (DELETE FROM sales RETURNING *) SELECT * INTO archive FROM d'
    expect((await refused(into, ['ddl'])).message).toBe(
      'This exercise takes a schema change (CREATE, ALTER, DROP, COMMENT, REFRESH); ' +
        'SELECT … INTO with DELETE in its WITH is not allowed here.',
    )
    expect(await accepted(into, ['ddl', 'dml'])).toEqual([{ kind: 'ddl', sql: into, ordered: false, start: 0 }])
  })

  it('takes several statements of the allowed kinds, each with its own text', async () => {
    const sql = '  CREATE TABLE t (a int) ;\n\n  INSERT INTO t VALUES (1);\n-- and then\nSELECT a FROM t ORDER BY a  '
    expect(await accepted(sql)).toEqual([
      { kind: 'ddl', sql: 'CREATE TABLE t (a int)', ordered: false, start: sql.indexOf('CREATE') },
      { kind: 'dml', sql: 'INSERT INTO t VALUES (1)', ordered: false, start: sql.indexOf('INSERT') },
      // a comment before a statement is not part of it
      { kind: 'select', sql: 'SELECT a FROM t ORDER BY a', ordered: true, start: sql.indexOf('SELECT') },
    ])
  })
})

// [the SQL, what the refusal names]
const ALWAYS_REFUSED: [string, string][] = [
  ['BEGIN', 'BEGIN'],
  ['START TRANSACTION READ WRITE', 'START TRANSACTION'],
  ['COMMIT', 'COMMIT'],
  ['ROLLBACK', 'ROLLBACK'],
  ['SAVEPOINT a', 'SAVEPOINT'],
  ['RELEASE SAVEPOINT a', 'RELEASE SAVEPOINT'],
  ['ROLLBACK TO SAVEPOINT a', 'ROLLBACK TO SAVEPOINT'],
  ["PREPARE TRANSACTION 'x'", 'PREPARE TRANSACTION'],
  ["COMMIT PREPARED 'x'", 'COMMIT PREPARED'],
  ['SET search_path = public, pg_catalog', 'SET'],
  ['SET LOCAL statement_timeout = 0', 'SET'],
  ['SET TRANSACTION ISOLATION LEVEL SERIALIZABLE', 'SET TRANSACTION'],
  ['SET ROLE postgres', 'SET ROLE'],
  ['RESET ROLE', 'RESET ROLE'],
  ['SET SESSION AUTHORIZATION postgres', 'SET SESSION AUTHORIZATION'],
  ['RESET ALL', 'RESET'],
  ['DISCARD ALL', 'DISCARD'],
  ['SHOW statement_timeout', 'SHOW'],
  ["COPY sales TO PROGRAM 'id'", 'COPY'],
  ["COPY sales FROM '/etc/passwd'", 'COPY'],
  ['DO $$ BEGIN PERFORM 1; END $$', 'DO'],
  ['CALL archive_sales()', 'CALL'],
  ['LISTEN jobs', 'LISTEN'],
  ["NOTIFY jobs, 'hello'", 'NOTIFY'],
  ['UNLISTEN *', 'UNLISTEN'],
  ["CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'", 'CREATE FUNCTION'],
  ["CREATE OR REPLACE PROCEDURE p() LANGUAGE sql AS 'SELECT 1'", 'CREATE PROCEDURE'],
  ['CREATE TRIGGER t BEFORE INSERT ON sales FOR EACH ROW EXECUTE FUNCTION f()', 'CREATE TRIGGER'],
  ['CREATE RULE r AS ON INSERT TO sales DO INSTEAD NOTHING', 'CREATE RULE'],
  ['CREATE EXTENSION dblink', 'CREATE EXTENSION'],
  ['CREATE LANGUAGE plperlu', 'CREATE LANGUAGE'],
  ['CREATE ROLE admin SUPERUSER', 'CREATE ROLE'],
  ['CREATE USER admin', 'CREATE USER'],
  ['CREATE DATABASE other', 'CREATE DATABASE'],
  ['CREATE SCHEMA mine', 'CREATE SCHEMA'],
  ['CREATE EVENT TRIGGER t ON ddl_command_start EXECUTE FUNCTION f()', 'CREATE EVENT TRIGGER'],
  ['CREATE FOREIGN TABLE f (a int) SERVER s', 'CREATE FOREIGN TABLE'],
  ['CREATE FOREIGN DATA WRAPPER w', 'CREATE FOREIGN DATA WRAPPER'],
  ['CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw', 'CREATE SERVER'],
  ['CREATE USER MAPPING FOR public SERVER s', 'CREATE USER MAPPING'],
  ['IMPORT FOREIGN SCHEMA public FROM SERVER s INTO mine', 'IMPORT FOREIGN SCHEMA'],
  ['CREATE CAST (text AS int) WITH INOUT', 'CREATE CAST'],
  ['CREATE OPERATOR === (function = texteq, leftarg = text, rightarg = text)', 'CREATE OPERATOR'],
  ['CREATE AGGREGATE total (int) (sfunc = int4pl, stype = int)', 'CREATE AGGREGATE'],
  ['CREATE TEXT SEARCH CONFIGURATION c (copy = english)', 'CREATE TEXT SEARCH CONFIGURATION'],
  ['CREATE PUBLICATION p FOR ALL TABLES', 'CREATE PUBLICATION'],
  ['ALTER SYSTEM SET statement_timeout = 0', 'ALTER SYSTEM'],
  ['ALTER ROLE learner SUPERUSER', 'ALTER ROLE'],
  ['ALTER ROLE learner SET statement_timeout = 0', 'ALTER ROLE'],
  ['ALTER DATABASE sandbox SET statement_timeout = 0', 'ALTER DATABASE'],
  ['ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO public', 'ALTER DEFAULT PRIVILEGES'],
  ['ALTER FUNCTION f() RENAME TO g', 'ALTER FUNCTION … RENAME'],
  ['ALTER SCHEMA public RENAME TO mine', 'ALTER SCHEMA … RENAME'],
  ['ALTER TABLE sales SET SCHEMA mine', 'ALTER TABLE … SET SCHEMA'],
  ['ALTER FOREIGN TABLE f ADD COLUMN b int', 'ALTER FOREIGN TABLE'],
  ["ALTER TYPE mood ADD VALUE 'ok'", 'ALTER TYPE'],
  ['GRANT SELECT ON sales TO public', 'GRANT'],
  ['REVOKE ALL ON sales FROM public', 'REVOKE'],
  ['GRANT pg_read_server_files TO learner', 'GRANT'],
  ['LOCK TABLE sales', 'LOCK'],
  ['VACUUM FULL sales', 'VACUUM'],
  ['ANALYZE sales', 'ANALYZE'],
  ['CLUSTER sales USING i', 'CLUSTER'],
  ['REINDEX TABLE sales', 'REINDEX'],
  ['CHECKPOINT', 'CHECKPOINT'],
  ["LOAD 'auto_explain'", 'LOAD'],
  ['PREPARE p AS SELECT 1', 'PREPARE'],
  ['EXECUTE p', 'EXECUTE'],
  ['DEALLOCATE p', 'DEALLOCATE'],
  ['DECLARE c CURSOR FOR SELECT 1', 'DECLARE'],
  ['FETCH c', 'FETCH'],
  ['MOVE c', 'MOVE'],
  ['CLOSE c', 'CLOSE'],
  ['EXPLAIN SELECT 1', 'EXPLAIN'],
  ['EXPLAIN ANALYZE DELETE FROM sales', 'EXPLAIN'],
  ["SECURITY LABEL ON TABLE sales IS 'secret'", 'SECURITY LABEL'],
  ['CREATE INDEX CONCURRENTLY i ON sales (region)', 'CREATE INDEX CONCURRENTLY'],
  ['DROP INDEX CONCURRENTLY i', 'DROP INDEX CONCURRENTLY'],
  ['REFRESH MATERIALIZED VIEW CONCURRENTLY m', 'REFRESH MATERIALIZED VIEW CONCURRENTLY'],
  ['DROP FUNCTION f', 'DROP FUNCTION'],
  ['DROP SCHEMA public CASCADE', 'DROP SCHEMA'],
  ['DROP ROLE learner', 'DROP ROLE'],
  ['DROP DATABASE sandbox', 'DROP DATABASE'],
  ['DROP OWNED BY learner', 'DROP OWNED'],
  ["COMMENT ON DATABASE sandbox IS 'mine'", 'COMMENT ON DATABASE'],
  ["COMMENT ON ROLE learner IS 'me'", 'COMMENT ON ROLE'],
  ['CREATE TABLE t AS EXECUTE p', 'EXECUTE'],
]

describe('statements a lab never runs', () => {
  it.each(ALWAYS_REFUSED)('refuses %s whatever the exercise allows', async (sql, label) => {
    const vetting = await refused(sql, ALL)
    expect(vetting.message).toBe(`${label} is not allowed in an SQL lab.`)
    expect(vetting.position).toBe(1)
  })
})

describe('the attacks a shared sandbox must turn away', () => {
  it('transaction control before a destructive statement', async () => {
    expect(await refused('COMMIT; DROP TABLE sales')).toEqual({
      ok: false,
      message: 'COMMIT is not allowed in an SQL lab.',
      position: 1,
    })
    // the second statement is refused by name too, where it is
    const sql = 'SELECT 1; ROLLBACK; DROP TABLE sales'
    expect(await refused(sql)).toEqual({
      ok: false,
      message: 'ROLLBACK is not allowed in an SQL lab.',
      position: positionOf(sql, 'ROLLBACK'),
    })
  })

  it('a role or a setting that outlives the attempt', async () => {
    expect((await refused('RESET ROLE')).message).toBe('RESET ROLE is not allowed in an SQL lab.')
    const sql = "SELECT set_config('statement_timeout','0',false); SELECT pg_sleep(60)"
    expect(await refused(sql)).toEqual({
      ok: false,
      message: 'set_config() is not allowed in an SQL lab.',
      position: positionOf(sql, 'set_config'),
    })
    expect((await refused("SELECT \"pg_catalog\".set_config('work_mem', '1TB', false)")).message).toBe(
      'pg_catalog.set_config() is not allowed in an SQL lab.',
    )
    expect((await refused("SELECT PG_CATALOG.SET_CONFIG('work_mem', '1TB', true)")).message).toBe(
      'pg_catalog.set_config() is not allowed in an SQL lab.',
    )
  })

  it('what would change the planner’s choice in a plan exercise, where setup statements and DDL are allowed', async () => {
    const planExercise: StatementKind[] = ['select', 'ddl']
    const query = 'SELECT count(*) FROM sales WHERE region = $$North$$'
    expect(await accepted(`CREATE INDEX sales_region_idx ON sales (region); ${query}`, planExercise)).toHaveLength(2)
    const analyze = `CREATE INDEX sales_region_idx ON sales (region); ANALYZE sales; ${query}`
    expect(await refused(analyze, planExercise)).toEqual({
      ok: false,
      message: 'ANALYZE is not allowed in an SQL lab.',
      position: positionOf(analyze, 'ANALYZE'),
    })
    expect((await refused(`SET enable_seqscan = off; ${query}`, planExercise)).message).toBe(
      'SET is not allowed in an SQL lab.',
    )
    expect((await refused(`SET LOCAL random_page_cost = 0.1; ${query}`, planExercise)).message).toBe(
      'SET is not allowed in an SQL lab.',
    )
    expect((await refused(`SELECT set_config('enable_seqscan', 'off', true); ${query}`, planExercise)).message).toBe(
      'set_config() is not allowed in an SQL lab.',
    )
    expect((await refused(`VACUUM ANALYZE sales; ${query}`, planExercise)).message).toBe(
      'VACUUM is not allowed in an SQL lab.',
    )
  })

  it('the server’s files and programs', async () => {
    expect((await refused("COPY sales TO PROGRAM 'id'")).message).toBe('COPY is not allowed in an SQL lab.')
    expect((await refused("SELECT pg_read_file('/etc/passwd')")).message).toBe(
      'pg_read_file() is not allowed in an SQL lab.',
    )
    expect((await refused("SELECT * FROM pg_ls_dir('.')")).message).toBe('pg_ls_dir() is not allowed in an SQL lab.')
    expect((await refused("SELECT lo_import('/etc/passwd')")).message).toBe('lo_import() is not allowed in an SQL lab.')
  })

  it('the system catalogs, however they are written', async () => {
    const sql = 'SELECT * FROM pg_authid'
    expect(await refused(sql)).toEqual({
      ok: false,
      message: 'pg_authid is off limits in an SQL lab: system catalogs and names starting with pg_ are not for labs.',
      position: positionOf(sql, 'pg_authid'),
    })
    expect((await refused('select * from PG_CATALOG.pg_class')).message).toMatch(/^pg_catalog\.pg_class is off limits/)
    expect((await refused('SELECT query FROM pg_stat_activity')).message).toMatch(/^pg_stat_activity is off limits/)
    expect((await refused('SELECT * FROM information_schema.tables')).message).toMatch(
      /^information_schema\.tables is off limits/,
    )
    expect((await refused('SELECT * FROM pg_toast.pg_toast_1259')).message).toMatch(/^pg_toast\.pg_toast_1259 is/)
    expect((await refused('TABLE pg_roles')).message).toMatch(/^pg_roles is off limits/)
    // and the functions under pg_stat_activity
    expect((await refused('SELECT * FROM pg_stat_get_activity(NULL)')).message).toBe(
      'pg_stat_get_activity() is not allowed in an SQL lab.',
    )
  })

  it('names spelt with Unicode escapes, as the server reads them', async () => {
    expect((await refused(`SELECT U&"pg\\005fread_file"('/etc/passwd')`)).message).toBe(
      'pg_read_file() is not allowed in an SQL lab.',
    )
    expect((await refused('SELECT * FROM U&"pg\\005fauthid"')).message).toMatch(/^pg_authid is off limits/)
  })

  it('a catalog anywhere in the tree, bare or wrapped', async () => {
    for (const sql of [
      'SELECT (SELECT count(*) FROM pg_class) AS n',
      'SELECT * FROM sales WHERE EXISTS (SELECT 1 FROM pg_namespace)',
      'SELECT * FROM sales JOIN LATERAL (SELECT * FROM pg_proc LIMIT 1) p ON true',
      'WITH c AS (SELECT * FROM pg_catalog.pg_class) SELECT * FROM c',
      'INSERT INTO copy SELECT * FROM pg_authid',
      'DELETE FROM pg_catalog.pg_class',
      'UPDATE pg_database SET datallowconn = true',
      'SELECT * INTO pg_catalog.stolen FROM sales',
      'CREATE TABLE pg_catalog.mine (a int)',
      'CREATE VIEW v AS SELECT * FROM pg_shadow',
      'DROP TABLE pg_catalog.pg_class',
      'DROP TYPE int',
      "COMMENT ON TABLE pg_catalog.pg_class IS 'x'",
      'ALTER TABLE pg_catalog.pg_class ADD COLUMN x int',
    ])
      expect((await refused(sql)).message, sql).toMatch(/ is off limits in an SQL lab: /)
  })

  it('a denied function anywhere in the tree', async () => {
    for (const sql of [
      'SELECT * FROM sales WHERE amount > (SELECT pg_advisory_lock(1))',
      "SELECT * FROM generate_series(1, 3) g, LATERAL (SELECT dblink_exec('x', 'y')) d",
      "INSERT INTO notes SELECT pg_read_binary_file('/etc/passwd')",
      "UPDATE sales SET note = pg_catalog.set_config('role', 'postgres', false)",
      "CREATE TABLE t (a text DEFAULT pg_read_file('/etc/passwd'))",
      'CREATE INDEX i ON sales (pg_try_advisory_lock(amount))',
      "SELECT count(*) FILTER (WHERE pg_notify('c', 'm') IS NULL) FROM sales",
      'SELECT * FROM sales ORDER BY pg_terminate_backend(1)',
    ])
      expect((await refused(sql)).message, sql).toMatch(/\(\) is not allowed in an SQL lab\.$/)
  })

  it('every function in the denylist, in any case and schema', async () => {
    for (const entry of DENIED_FUNCTIONS) {
      const name = entry.replace('*', 'x')
      expect((await refused(`SELECT ${name}(1)`)).message).toBe(`${name}() is not allowed in an SQL lab.`)
      expect((await refused(`SELECT pg_catalog.${name.toUpperCase()}(1)`)).ok).toBe(false)
    }
  })

  it('SQL run from a string, past the vetting', async () => {
    expect((await refused("SELECT query_to_xml('select 1', true, true, '')")).message).toBe(
      'query_to_xml() is not allowed in an SQL lab.',
    )
    expect((await refused("SELECT query_to_xml_and_xmlschema('select 1', true, true, '')")).ok).toBe(false)
    expect((await refused("SELECT cursor_to_xmlschema('c', true, true, '')")).ok).toBe(false)
    expect((await refused("SELECT table_to_xml('pg_authid', true, true, '')")).ok).toBe(false)
  })

  it('a function that never ends', async () => {
    const sql = 'CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN LOOP END LOOP; END $$'
    expect((await refused(sql)).message).toBe('CREATE FUNCTION is not allowed in an SQL lab.')
  })

  it('locks that make other learners wait', async () => {
    expect((await refused('LOCK TABLE sales')).message).toBe('LOCK is not allowed in an SQL lab.')
    expect((await refused('SELECT * FROM sales FOR UPDATE')).message).toBe(
      'SELECT … FOR UPDATE is not allowed in an SQL lab.',
    )
    expect((await refused('SELECT * FROM sales FOR SHARE SKIP LOCKED')).message).toBe(
      'SELECT … FOR SHARE is not allowed in an SQL lab.',
    )
    expect((await refused('SELECT * FROM (SELECT * FROM sales FOR NO KEY UPDATE) s')).message).toBe(
      'SELECT … FOR NO KEY UPDATE is not allowed in an SQL lab.',
    )
    expect((await refused('DELETE FROM sales WHERE id IN (SELECT id FROM sales FOR KEY SHARE)')).message).toBe(
      'SELECT … FOR KEY SHARE is not allowed in an SQL lab.',
    )
  })

  it('a text too long, counted in UTF-8 bytes', async () => {
    const megabyte = `SELECT '${'x'.repeat(1024 * 1024)}'`
    expect(await vetSql(megabyte, rules(ALL, false, 100_000))).toEqual({
      ok: false,
      message: `The SQL is too long: ${1024 * 1024 + 9} bytes, where this exercise takes at most 100000.`,
    })
    // 60,009 characters, but 120,009 bytes
    const umlauts = `SELECT '${'ü'.repeat(60_000)}'`
    expect((await vetSql(umlauts, rules(ALL, false, 100_000))).ok).toBe(false)
    expect((await vetSql(umlauts, rules(ALL, false, 120_009))).ok).toBe(true)
  })

  it('a NUL, where the parser would stop reading', async () => {
    expect((await refused('SELECT 1\0; DROP TABLE sales')).message).toBe(
      'The SQL contains a NUL character, which PostgreSQL does not accept.',
    )
  })

  it('leaves slow queries to the sandbox’s time limit', async () => {
    await accepted('SELECT count(*) FROM generate_series(1, 1e10)', ['select'])
    await accepted('SELECT count(*) FROM sales a, sales b, sales c', ['select'])
    await accepted('SELECT pg_sleep(1), current_setting($$statement_timeout$$)', ['select'])
  })

  it('a tree too deep to read', async () => {
    const chain = `SELECT ${'1+'.repeat(20_000)}1`
    expect(await refused(chain)).toEqual({ ok: false, message: 'The SQL is nested too deeply to be checked.' })
    const parentheses = `SELECT ${'('.repeat(20_000)}1${')'.repeat(20_000)}`
    expect((await refused(parentheses)).message).toBe('Memory exhausted at or near "(".')
    // and the parser reads the next text as well as ever
    await accepted('SELECT 1')
  })
})

describe('texts that are not one statement of SQL', () => {
  it('refuses a text without a statement', async () => {
    for (const sql of ['', '   \n', '-- just a comment', '/* nothing */ ;;'])
      expect(await refused(sql)).toEqual({ ok: false, message: 'There is no SQL statement to run.' })
  })

  it('refuses a syntax error with PostgreSQL’s message and position', async () => {
    expect(await refused('SELEC 1')).toEqual({
      ok: false,
      message: 'Syntax error at or near "SELEC".',
      position: 1,
      syntax: true,
    })
    // positions count characters, not bytes: ü is two bytes and 😀 four, each one character
    const umlaut = "SELECT 'Zürich' frm sales"
    expect(await refused(umlaut)).toEqual({
      ok: false,
      message: 'Syntax error at or near "sales".',
      position: positionOf(umlaut, 'sales'),
      syntax: true,
    })
    expect(positionOf(umlaut, 'sales')).toBe(21)
    const emoji = "SELECT '😀😀' frm sales"
    expect((await refused(emoji)).position).toBe(positionOf(emoji, 'sales'))
    // the end of the text is one past its last character, as PostgreSQL says
    expect(await refused('SELECT 1 +')).toEqual({
      ok: false,
      message: 'Syntax error at end of input.',
      position: 11,
      syntax: true,
    })
    expect(await refused("SELECT 'open")).toEqual({
      ok: false,
      message: 'Unterminated quoted string at or near "\'open".',
      position: 8,
      syntax: true,
    })
    // an error in the second statement points into it
    const second = 'SELECT 1; SELECT * FROM sales WHERE'
    expect((await refused(second)).position).toBe(second.length + 1)
  })

  it('refuses a second statement where the exercise takes one', async () => {
    const sql = 'SELECT 1; SELECT 2'
    expect(await refused(sql, ALL, true)).toEqual({
      ok: false,
      message: 'This exercise takes a single statement, but the text has 2.',
      position: 11,
    })
    // a trailing semicolon and comment are no second statement
    expect((await vetSql('SELECT 1;  -- done\n', rules(ALL, true))).ok).toBe(true)
  })
})

describe('the statements taken', () => {
  it('are sliced by UTF-8 byte offsets into the learner’s text', async () => {
    const sql = "SELECT 'Zürich' AS city;SELECT '😀', 'ß' AS x ; INSERT INTO cities VALUES ('Genève')"
    expect((await accepted(sql)).map((s) => s.sql)).toEqual([
      "SELECT 'Zürich' AS city",
      "SELECT '😀', 'ß' AS x",
      "INSERT INTO cities VALUES ('Genève')",
    ])
    // where each starts, in characters as PostgreSQL counts them (the emoji is one)
    expect((await accepted(sql)).map((s) => s.start)).toEqual([0, 24, 47])
    const after = "SELECT 'Zürich'; SELECT '😀' FROM pg_class"
    expect((await refused(after)).position).toBe(positionOf(after, 'pg_class'))
  })

  it('keep comments inside a statement and lose the space around it', async () => {
    const sql = '-- totals\nSELECT region, /* all */ sum(amount)\nFROM sales\nGROUP BY region;\n'
    expect((await accepted(sql)).map((s) => s.sql)).toEqual([
      'SELECT region, /* all */ sum(amount)\nFROM sales\nGROUP BY region',
    ])
  })

  it('keep a comment before the semicolon: a caller joining statements ends each with a line break', async () => {
    expect((await accepted('SELECT 1 -- one\n; SELECT 2')).map((s) => s.sql)).toEqual(['SELECT 1 -- one', 'SELECT 2'])
  })

  it('say whether the outermost query is ordered', async () => {
    const ordered = async (sql: string) => (await accepted(sql))[0].ordered
    expect(await ordered('SELECT region FROM sales ORDER BY region')).toBe(true)
    expect(await ordered('SELECT region FROM sales')).toBe(false)
    expect(await ordered('SELECT 1 AS a UNION SELECT 2 ORDER BY a DESC')).toBe(true)
    expect(await ordered('SELECT 1 AS a UNION (SELECT 2 ORDER BY 1)')).toBe(false)
    expect(await ordered('SELECT * FROM (SELECT region FROM sales ORDER BY region) s')).toBe(false)
    expect(await ordered('SELECT region FROM sales WHERE amount IN (SELECT amount FROM sales ORDER BY 1)')).toBe(false)
    expect(await ordered('WITH t AS (SELECT 1 AS a) SELECT a FROM t ORDER BY a')).toBe(true)
    expect(await ordered('WITH t AS (SELECT 1 AS a ORDER BY a) SELECT a FROM t')).toBe(false)
    expect(await ordered('VALUES (2), (1) ORDER BY 1')).toBe(true)
    expect(await ordered('(SELECT region FROM sales ORDER BY region) LIMIT 3')).toBe(true)
    expect(await ordered('SELECT region, rank() OVER (ORDER BY amount) FROM sales')).toBe(false)
    expect(await ordered('INSERT INTO t SELECT * FROM sales ORDER BY 1 RETURNING *')).toBe(false)
    expect(await ordered('SELECT * INTO t FROM sales ORDER BY 1')).toBe(false)
  })
})

describe('in a two-session exercise, vetting', () => {
  const session = (sql: string, allow: readonly StatementKind[] = ['select', 'dml']) =>
    vetSql(sql, { allow, single: true, maxBytes: 100_000, transactions: true })
  const runs = async (sql: string, allow?: readonly StatementKind[]) => {
    const vetting = await session(sql, allow)
    if (!vetting.ok) throw new Error(`refused ${sql}: ${vetting.message}`)
    return vetting.statements[0].kind
  }
  const refusal = async (sql: string, allow?: readonly StatementKind[]) => {
    const vetting = await session(sql, allow)
    if (vetting.ok) throw new Error(`accepted ${sql}`)
    return vetting.message
  }

  it.each([
    'BEGIN',
    'BEGIN ISOLATION LEVEL REPEATABLE READ',
    'START TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY',
    'SET TRANSACTION ISOLATION LEVEL READ COMMITTED',
    'COMMIT',
    'END',
    'ROLLBACK',
    'ABORT',
    'SAVEPOINT before_update',
    'RELEASE SAVEPOINT before_update',
    'ROLLBACK TO SAVEPOINT before_update',
    'LOCK TABLE accounts IN SHARE ROW EXCLUSIVE MODE',
    'LOCK accounts NOWAIT',
  ])('takes %s as transaction control', async (sql) => {
    expect(await runs(sql)).toBe('transaction')
  })

  it('takes row locks as the queries they are', async () => {
    expect(await runs('SELECT * FROM accounts WHERE id = 1 FOR UPDATE')).toBe('select')
    expect(await runs('SELECT * FROM accounts FOR SHARE SKIP LOCKED')).toBe('select')
    expect(await runs('SELECT * FROM accounts FOR NO KEY UPDATE NOWAIT')).toBe('select')
    expect(await runs('UPDATE accounts SET balance = balance - 10 WHERE id = 1')).toBe('dml')
  })

  it('refuses other settings, snapshots and session defaults', async () => {
    expect(await refusal('SET lock_timeout = 0')).toBe('SET is not allowed in an SQL lab.')
    expect(await refusal('SET LOCAL statement_timeout = 0')).toBe('SET is not allowed in an SQL lab.')
    expect(await refusal('RESET ALL')).toBe('RESET is not allowed in an SQL lab.')
    expect(await refusal("SET TRANSACTION SNAPSHOT '00000003-0000001B-1'")).toBe(
      'SET TRANSACTION SNAPSHOT is not allowed in an SQL lab.',
    )
    expect(await refusal('SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE')).toBe(
      'SET SESSION CHARACTERISTICS is not allowed in an SQL lab.',
    )
    expect(await refusal('SET ROLE postgres')).toBe('SET ROLE is not allowed in an SQL lab.')
  })

  it('refuses two-phase commit, which outlives the session', async () => {
    expect(await refusal("PREPARE TRANSACTION 'x'")).toBe('PREPARE TRANSACTION is not allowed in an SQL lab.')
    expect(await refusal("COMMIT PREPARED 'x'")).toBe('COMMIT PREPARED is not allowed in an SQL lab.')
    expect(await refusal("ROLLBACK PREPARED 'x'")).toBe('ROLLBACK PREPARED is not allowed in an SQL lab.')
  })

  it('keeps catalogs, advisory locks and the other walls', async () => {
    expect(await refusal('LOCK TABLE pg_catalog.pg_class')).toMatch(/^pg_catalog\.pg_class is off limits/)
    expect(await refusal('SELECT * FROM pg_locks FOR UPDATE')).toMatch(/^pg_locks is off limits/)
    expect(await refusal('SELECT * FROM pg_stat_activity')).toMatch(/^pg_stat_activity is off limits/)
    expect(await refusal('SELECT pg_advisory_lock(1)')).toBe('pg_advisory_lock() is not allowed in an SQL lab.')
    expect(await refusal('SELECT pg_cancel_backend(1)')).toBe('pg_cancel_backend() is not allowed in an SQL lab.')
    expect(await refusal('LISTEN x')).toBe('LISTEN is not allowed in an SQL lab.')
    expect(await refusal('DECLARE c CURSOR WITH HOLD FOR SELECT 1')).toBe('DECLARE is not allowed in an SQL lab.')
    expect(await refusal('BEGIN; COMMIT')).toBe('This exercise takes a single statement, but the text has 2.')
  })

  it('still holds the exercise to its allowed kinds', async () => {
    expect(await refusal('UPDATE accounts SET balance = 0', ['select'])).toMatch(/UPDATE is not allowed here\.$/)
    expect(await refusal('CREATE TABLE t (a int)')).toMatch(/CREATE TABLE is not allowed here\.$/)
    expect(await runs('COMMIT', ['select'])).toBe('transaction')
  })

  it('is off unless asked for', async () => {
    const plain = await vetSql('BEGIN ISOLATION LEVEL SERIALIZABLE', rules(['select', 'dml']))
    expect(plain).toMatchObject({ ok: false, message: 'BEGIN is not allowed in an SQL lab.' })
    const transaction = await vetSql('SET TRANSACTION ISOLATION LEVEL SERIALIZABLE', rules(['select', 'dml']))
    expect(transaction).toMatchObject({ ok: false, message: 'SET TRANSACTION is not allowed in an SQL lab.' })
  })
})

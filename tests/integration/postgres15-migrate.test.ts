import pg from 'pg'
import { Sequelize } from 'sequelize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrate } from '#db/migrate.ts'
import { startDebianPostgres, type DebianPostgres } from '#tests/fixtures/debian-postgres.ts'
import { sequenceValues, tableDigests } from '#tests/fixtures/row-digests.ts'

// The portal's database on Debian's PostgreSQL (older than the embedded 18), as a role that is no superuser:
// the first guard of moving a backup between major versions. Every migration and the job queue's schema
// must install there; and the row digests the backup tests compare must be the same on both versions for
// the same rows, and differ when a value does.

let debian: DebianPostgres
let applied: string[] = []

/** Statements run on a database, one session. */
async function run(url: string, ...statements: string[]) {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => undefined)
  await client.connect()
  try {
    const results = []
    for (const statement of statements) results.push((await client.query(statement)).rows)
    return results
  } finally {
    await client.end()
  }
}

// The same rows for both servers: uuids, timestamps with fractions and offsets, citext, jsonb, text[], a real,
// an identity column, and non-ASCII text.
const ROWS = [
  `INSERT INTO users (id, first_name, last_name, user_name, email, password_hash, role_id, external_id, created_at, updated_at)
   VALUES ('6f1c2e0a-8b1d-4c4e-9a57-0d3f5b9e2a11', 'Ada', 'Lovelace', 'Ada.L', 'Ada@Example.com', NULL, 2, NULL,
           '2024-03-01 12:34:56.789+01', '2024-03-31 01:30:00.000001+02'),
          ('0b8e4d7c-3f2a-4e61-8c90-5a1b2c3d4e5f', 'Zoë', 'Ünal, "the second"', 'zoe', 'ZOE@example.org', 'x', 3, 'ext-1',
           '1999-12-31 23:59:59+00', '2038-01-19 03:14:08+00')`,
  `INSERT INTO courses (id, title, description, created_at, updated_at)
   VALUES ('a3d5c6b7-1e2f-4a3b-8c4d-5e6f7a8b9c0d', 'Star schemas', E'Facts, dimensions\\nand a tab\\t.',
           '2024-06-01 08:00:00+00', '2024-06-02 09:00:00.5+00')`,
  `INSERT INTO labs (id, course_id, title, description, minutes, dataset_name, dataset_sql, order_id, visibility,
                     database, state_copies, tables, built_at, created_at, updated_at)
   VALUES ('c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f', 'a3d5c6b7-1e2f-4a3b-8c4d-5e6f7a8b9c0d', 'Joins', '', 20, 'shop',
           'CREATE TABLE t (x int);', 1, true, 'lab_db_1', ARRAY['lab_copy_1', 'with "quote", comma', NULL],
           '[{"name": "orders", "columns": ["id", "total"], "rows": 1.50e2, "note": "ü"}]', '2024-06-03 10:00:00+00',
           '2024-06-03 10:00:00+00', '2024-06-03 10:00:00+00')`,
  `INSERT INTO settings (key, value, updated_at)
   VALUES ('site', '{"name": "Portal", "limits": {"upload": 1e3, "ratio": 0.1}, "on": true, "none": null}',
           '2024-01-01 00:00:00+00')`,
  `INSERT INTO sign_in_events (at, account, user_id, address, outcome)
   VALUES ('2024-02-29 23:59:59.999+00', 'user:6f1c2e0a-8b1d-4c4e-9a57-0d3f5b9e2a11',
           '6f1c2e0a-8b1d-4c4e-9a57-0d3f5b9e2a11', '192.0.2.1', 'success'),
          ('2024-03-01 00:00:00+00', 'name:nobody', NULL, NULL, 'wrong_password')`,
]

beforeAll(async () => {
  debian = await startDebianPostgres()
  // migrated as the portal's own role, as on a hosted PostgreSQL
  const sequelize = new Sequelize(debian.url(), { dialect: 'postgres', logging: false })
  try {
    applied = await migrate(sequelize)
  } finally {
    await sequelize.close()
  }
  await run(debian.url(), ...ROWS)
  await run(process.env.DATABASE_URL!, ...ROWS)
}, 120_000)

afterAll(async () => {
  await debian?.stop()
}, 60_000)

describe("the portal's database on Debian's PostgreSQL", () => {
  it('takes every migration and the job queue, as a role that is no superuser', async () => {
    expect(debian.major).toBeLessThan(18)
    const [[self], extensions, [queue]] = await run(
      debian.url(),
      `SELECT current_user AS name, rolsuper AS superuser, current_setting('server_version_num')::int / 10000 AS major
         FROM pg_roles WHERE rolname = current_user`,
      `SELECT e.extname AS name, r.rolname AS owner FROM pg_extension e JOIN pg_roles r ON r.oid = e.extowner
        WHERE e.extname <> 'plpgsql' ORDER BY 1`,
      'SELECT version FROM pgboss.version',
    )
    expect(self).toEqual({ name: 'portal', superuser: false, major: debian.major })
    // citext is a trusted extension: the database's owner creates it, and owns it
    expect(extensions).toEqual([{ name: 'citext', owner: 'portal' }])

    const [done, [suiteQueue]] = await run(
      process.env.DATABASE_URL!,
      'SELECT name FROM schema_migrations ORDER BY name',
      'SELECT version FROM pgboss.version',
    )
    expect(applied).toEqual(done.map((row) => row.name))
    expect(queue).toEqual(suiteQueue)
  })

  it('gives every table the same digest for the same rows on both major versions', async () => {
    const [older, newer] = await Promise.all([tableDigests(debian.url()), tableDigests(process.env.DATABASE_URL!)])
    expect(Object.keys(older)).toContain('users')
    expect(older.users.rows).toBe(2)
    expect(older.labs.rows).toBe(1)
    expect(older).toEqual(newer)

    const [olderSequences, newerSequences] = await Promise.all([
      sequenceValues(debian.url()),
      sequenceValues(process.env.DATABASE_URL!),
    ])
    expect(olderSequences.sign_in_events_id_seq).toBe(2n)
    expect(olderSequences).toEqual(newerSequences)
  })

  it('changes a table’s digest when one of its values changes, and not when that column is left out', async () => {
    // equal for citext, but another value
    await run(debian.url(), `UPDATE users SET user_name = 'ADA.L' WHERE user_name = 'Ada.L'`)
    const [older, newer] = await Promise.all([tableDigests(debian.url()), tableDigests(process.env.DATABASE_URL!)])
    expect(older.users.rows).toBe(newer.users.rows)
    expect(older.users.digest).not.toBe(newer.users.digest)
    expect({ ...older, users: undefined }).toEqual({ ...newer, users: undefined })

    const exclude = { users: ['user_name'] }
    const [olderLeftOut, newerLeftOut] = await Promise.all([
      tableDigests(debian.url(), { exclude }),
      tableDigests(process.env.DATABASE_URL!, { exclude }),
    ])
    expect(olderLeftOut).toEqual(newerLeftOut)
    await expect(tableDigests(debian.url(), { exclude: { users: ['nickname'] } })).rejects.toThrow(
      'users has no column nickname',
    )
  })
})

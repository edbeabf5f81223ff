import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { QueryTypes, Sequelize } from 'sequelize'
import { inject } from 'vitest'
import { migrateTables } from '#db/migrate.ts'

// A database of a migration test's own, in the shape an older portal left it: migrated up to a named migration
// only, for the test to fill with rows of that time and then take further.

/** A database on the test server migrated up to `migration`; `drop()` closes it and removes it. */
export async function databaseAt(migration: string) {
  const server = inject('postgres')
  const database = `portal_old_${randomBytes(6).toString('hex')}`
  await onServer(`CREATE DATABASE ${database}`)
  const url = `postgres://${server.user}:${server.password}@${server.host}:${server.port}/${database}`
  const sequelize = new Sequelize(url, { dialect: 'postgres', logging: false })
  await migrateTables(sequelize, () => {}, migration)
  return {
    url,
    sequelize,
    /** The rows a statement with `$1 …` parameters reads. */
    rows: <T extends object>(text: string, bind: unknown[] = []) =>
      sequelize.query<T>(text, { bind, type: QueryTypes.SELECT }),
    async drop() {
      await sequelize.close()
      await onServer(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    },
  }
}

/** A statement on the test server's maintenance database (creating and dropping databases). */
async function onServer(statement: string) {
  const client = new pg.Client({ ...inject('postgres'), database: 'postgres' })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

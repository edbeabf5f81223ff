import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, inject } from 'vitest'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { disconnect } from '#db/client.ts'

// Each test file gets a database of its own, cloned from the migrated template, and a DATA_DIR of
// its own for uploads and secrets; both are dropped when the file is done.

const server = inject('postgres')
const database = `portal_test_${randomBytes(6).toString('hex')}`

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...server, database: 'postgres' })
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

await admin((client) => client.query(`CREATE DATABASE ${database} TEMPLATE ${server.template}`))
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-test-data-'))

process.env.NODE_ENV = 'test'
process.env.DATA_DIR = dataDir
process.env.DATABASE_URL = `postgres://${server.user}:${server.password}@${server.host}:${server.port}/${database}`
process.env.PUBLIC_URL = 'http://portal.test'
resetEnvCache()

afterAll(async () => {
  await disconnect()
  await admin((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`))
  await rm(dataDir, { recursive: true, force: true })
})

import { randomBytes } from 'node:crypto'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { QueryTypes, Sequelize } from 'sequelize'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { openEmbeddedDatabase } from '#db/embedded.ts'
import { migrate } from '#db/migrate.ts'
import { printMachine } from '#tests/bench/serve.ts'
import { freePort } from '#tests/setup/global.ts'

/**
 * A bench's own migrated database on a throwaway embedded server, which the portal's code then uses
 * (DATABASE_URL, DATA_DIR and `env` set), with the machine and the server's version printed first.
 * `close` stops the server and removes its folder.
 */
export async function benchDatabase(name: string, env: Record<string, string> = {}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), `portal-bench-${name}-`))
  // as root, PostgreSQL runs as the "postgres" user, which must reach the folder
  await chmod(dir, 0o755)
  const server = await openEmbeddedDatabase({
    dataDir: dir,
    port: await freePort(),
    password: randomBytes(16).toString('hex'),
    mode: 'own',
    database: 'portal_bench',
  })
  const sequelize = new Sequelize(server.url, { dialect: 'postgres', logging: false })
  await migrate(sequelize)
  Object.assign(process.env, { DATABASE_URL: server.url, DATA_DIR: dir, ...env })
  resetEnvCache()
  const [{ server_version: version }] = await sequelize.query<{ server_version: string }>('SHOW server_version', {
    type: QueryTypes.SELECT,
  })
  printMachine(version)
  return {
    url: server.url,
    sequelize,
    async close() {
      await sequelize.close()
      await server.stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

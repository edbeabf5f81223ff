import { randomBytes } from 'node:crypto'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Sequelize } from 'sequelize'
import type { TestProject } from 'vitest/node'
import { openEmbeddedDatabase } from '#db/embedded.ts'
import { migrate } from '#db/migrate.ts'

// One real PostgreSQL for the whole integration run, in a throwaway folder (never the developer's
// data/), with a migrated template database that every test file clones (tests/setup/database.ts).

export const TEMPLATE_DATABASE = 'portal_template'

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: { host: string; port: number; user: string; password: string; template: string }
  }
}

export default async function setup(project: TestProject) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-vitest-'))
  // as root, PostgreSQL runs as the "postgres" user, which must reach the folder (mkdtemp makes it 700)
  await chmod(dataDir, 0o755)
  const password = randomBytes(16).toString('hex')
  const port = await freePort()
  const server = await openEmbeddedDatabase({
    dataDir,
    port,
    password,
    mode: 'own',
    database: TEMPLATE_DATABASE,
    fast: true,
  })
  const sequelize = new Sequelize(server.url, { dialect: 'postgres', logging: false })
  await migrate(sequelize)
  await sequelize.close()
  project.provide('postgres', { host: '127.0.0.1', port, user: 'postgres', password, template: TEMPLATE_DATABASE })

  return async () => {
    await server.stop()
    await rm(dataDir, { recursive: true, force: true })
  }
}

/** A port nobody listens on right now, from the operating system. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

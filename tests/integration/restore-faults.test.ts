import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import pg from 'pg'
import { beforeAll, describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { createArchiveWriter, readArchive, type Compression } from '#app/modules/backups/archive.server.ts'
import { takeBackup } from '#app/modules/backups/backup.server.ts'
import { fileEntry, HEADER_ENTRY, MANIFEST_ENTRY, MANIFEST_HASH_ENTRY } from '#app/modules/backups/manifest.ts'
import { storeFile } from '#app/modules/files/service.server.ts'
import { portal } from '#tests/cli.ts'
import { assignCourse, makeCourse, makeLearner, makeStoredFile, recordWatched } from '#tests/factories.ts'
import { readBody } from '#tests/fixtures/files.ts'
import {
  archivedDigests,
  envOf,
  onServer,
  portalChild,
  restoreTargets,
  schemaDefinitions,
  sessionWhen,
  sha256,
  uploadsOf,
  userObjects,
  type RestoreTarget,
} from '#tests/fixtures/restore-targets.ts'
import { eventually, exitOf } from '#tests/jobs.ts'

// What `portal restore` does with an archive it must not trust, a target it must not overwrite, and a restore
// that was killed: refused in one line before the target is touched, moved aside only when asked, finished by
// running it again. The archives are of this file's small database, made with the factories.

const { folder, target } = restoreTargets()

/** 256 KiB that neither zstd nor gzip can shrink: stored as they are, they can be found in an archive's bytes. */
const NOISE = randomBytes(256 * 1024)

let source: {
  zstd: string
  gzip: string
  digests: Awaited<ReturnType<typeof archivedDigests>>
  uploads: Record<string, string>
  noiseKey: string
}

beforeAll(async () => {
  const learners = [await makeLearner(), await makeLearner()]
  const course = await makeCourse({ videos: [{ duration: 60 }, { duration: 90 }] })
  for (const learner of learners) await assignCourse(learner.id, course.id)
  await recordWatched(learners[0].id, course.id, course.videos[0], 60)
  await makeStoredFile('document')
  await makeStoredFile('course_image')
  const noise = await storeFile({
    purpose: 'document',
    name: 'noise.bin',
    contentType: 'application/octet-stream',
    body: NOISE,
    uploadedBy: null,
  })
  const out = await folder('portal-archives-')
  const zstd = await takeBackup(SYSTEM, { to: `${out}/` })
  const gzip = await takeBackup(SYSTEM, { to: `${out}/`, compression: 'gzip' })
  source = {
    zstd: zstd.location,
    gzip: gzip.location,
    digests: await archivedDigests(process.env.DATABASE_URL!),
    uploads: await uploadsOf(process.env.DATA_DIR!),
    noiseKey: noise.key,
  }
}, 60_000)

/** The entries of an archive, in order, as the portal's reader gives them. */
async function entriesOf(archive: string) {
  const names: string[] = []
  for await (const entry of readArchive(createReadStream(archive))) {
    names.push(entry.name)
    entry.body.resume()
  }
  return names
}

/**
 * The archive written again, entry by entry, with the archive module's own writer: `edit` may give an entry
 * other bytes (same name, same place); everything else is copied as it is.
 */
async function repack(
  archive: string,
  compression: Compression,
  edit: (name: string, body: Buffer) => Buffer | undefined,
) {
  const out = path.join(await folder('portal-repacked-'), `repacked.${compression === 'zstd' ? 'tar.zst' : 'tar.gz'}`)
  const writer = createArchiveWriter(createWriteStream(out), { compression })
  for await (const entry of readArchive(createReadStream(archive))) {
    const body = await readBody(entry.body)
    await writer.addBuffer(entry.name, edit(entry.name, body) ?? body)
  }
  await writer.finish()
  return out
}

/** One byte of `body` changed, at `at`, to another byte that is neither a line end nor a tab. */
function flipped(body: Buffer, at: number) {
  const copy = Buffer.from(body)
  copy[at] = copy[at] === 0x30 ? 0x31 : 0x30
  return copy
}

/** `portal backup verify` of an archive: its exit code and its lines. */
const verify = (archive: string) => portal(['backup', 'verify', archive])

/** `portal restore` of an archive into `into`. */
const restore = (archive: string, into: RestoreTarget, ...flags: string[]) =>
  portal(['restore', archive, ...flags], envOf(into))

/** `text` as a regular expression that matches it alone. */
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** A refused restore left the target as it was: no relation, no schema, no file. */
async function expectUntouched(into: RestoreTarget) {
  expect(await userObjects(into.database)).toEqual([])
  expect(await readdir(into.dataDir)).toEqual([])
}

describe('an archive that is damaged', () => {
  it('cut short: verify names the last complete entry, and restore refuses it before touching the target', async () => {
    const names = await entriesOf(source.zstd)
    const noise = names.indexOf(fileEntry(source.noiseKey))
    const lastComplete = names[noise - 1]
    // cut in the middle of the stored file zstd kept as it is
    const bytes = await readFile(source.zstd)
    const cut = bytes.indexOf(NOISE.subarray(128 * 1024, 128 * 1024 + 64))
    expect(cut).toBeGreaterThan(0)
    const truncated = path.join(await folder('portal-truncated-'), path.basename(source.zstd))
    await writeFile(truncated, bytes.subarray(0, cut))
    const line = `portal: The archive ends early after ${lastComplete}: it is truncated.\n`

    expect(await verify(truncated)).toMatchObject({ code: 1, stderr: line })
    const into = await target()
    expect(await restore(truncated, into)).toMatchObject({ code: 2, stderr: line })
    await expectUntouched(into)
  })

  it('with a byte of a table flipped: verify names the entry, and restore refuses it', async () => {
    const entry = 'data/users/000001.tsv'
    const damaged = await repack(source.gzip, 'gzip', (name, body) => (name === entry ? flipped(body, 0) : undefined))
    const line = `portal: ${entry} does not match its checksum in the manifest.\n`

    expect(await verify(damaged)).toMatchObject({ code: 1, stderr: line })
    const into = await target()
    expect(await restore(damaged, into)).toMatchObject({ code: 2, stderr: line })
    await expectUntouched(into)
  })

  it('with a byte of a stored file flipped: verify names the file, and restore refuses it', async () => {
    const entry = fileEntry(source.noiseKey)
    const damaged = await repack(source.gzip, 'gzip', (name, body) =>
      name === entry ? flipped(body, 1000) : undefined,
    )
    const line = `portal: ${entry} does not match its checksum in files.jsonl.\n`

    expect(await verify(damaged)).toMatchObject({ code: 1, stderr: line })
    const into = await target()
    expect(await restore(damaged, into)).toMatchObject({ code: 2, stderr: line })
    await expectUntouched(into)
  })

  it.each(['zstd', 'gzip'] as const)(
    'with a byte of a stored file flipped on disk in a %s archive: verify names the file, restore refuses it',
    async (compression) => {
      // the noise is stored as it is: found only by the checksum at the end of the compressed data, which
      // must not hide the entries before it (the manifest names the damaged one)
      const archive = compression === 'zstd' ? source.zstd : source.gzip
      const bytes = Buffer.from(await readFile(archive))
      const at = bytes.indexOf(NOISE.subarray(100_000, 100_064))
      expect(at).toBeGreaterThan(0)
      bytes[at + 10] ^= 0x01
      const damaged = path.join(await folder('portal-flipped-'), path.basename(archive))
      await writeFile(damaged, bytes)
      const line = `portal: ${fileEntry(source.noiseKey)} does not match its checksum in files.jsonl.\n`

      expect(await verify(damaged)).toMatchObject({ code: 1, stderr: line })
      const into = await target()
      expect(await restore(damaged, into)).toMatchObject({ code: 2, stderr: line })
      await expectUntouched(into)
    },
  )
})

describe('an archive of a newer portal', () => {
  /** The archive with its header and manifest changed as `change` says, and every checksum made to fit. */
  async function newer(change: (described: Record<string, unknown>) => void) {
    let manifestBytes = Buffer.alloc(0)
    let headerSha256 = ''
    return repack(source.zstd, 'zstd', (name, body) => {
      if (name === HEADER_ENTRY) {
        const header = JSON.parse(body.toString('utf8')) as Record<string, unknown>
        change(header)
        const bytes = Buffer.from(`${JSON.stringify(header, null, 2)}\n`)
        headerSha256 = sha256(bytes)
        return bytes
      }
      if (name === MANIFEST_ENTRY) {
        const manifest = JSON.parse(body.toString('utf8')) as Record<string, unknown>
        change(manifest)
        manifest.header = { sha256: headerSha256 }
        manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)
        return manifestBytes
      }
      if (name === MANIFEST_HASH_ENTRY) return Buffer.from(`${sha256(manifestBytes)}\n`)
      return undefined
    })
  }

  it('made at a migration this portal does not have: restore says to upgrade first', async () => {
    const archive = await newer((described) => (described.migration = '0999-future'))
    const checked = await portal(['backup', 'verify', archive, '--json'])
    expect(checked.code).toBe(0)
    expect(JSON.parse(checked.stdout)).toMatchObject({
      ok: true,
      restorable: false,
      problems: [{ entry: HEADER_ENTRY, message: expect.stringMatching(/: upgrade the portal first\.$/) }],
    })

    const into = await target()
    expect(await restore(archive, into)).toMatchObject({
      code: 2,
      stderr:
        'portal: This archive was made by portal 0.1.0 at migration 0999-future, newer than this portal: upgrade the portal first.\n',
    })
    await expectUntouched(into)
  })

  it('of a newer archive format: verify and restore say to upgrade first', async () => {
    const archive = await newer((described) => (described.formatVersion = 2))
    const line = 'portal: This archive was made by a newer portal (format 2): upgrade the portal first.\n'
    expect(await verify(archive)).toMatchObject({ code: 1, stderr: line })
    const into = await target()
    expect(await restore(archive, into)).toMatchObject({ code: 2, stderr: line })
    await expectUntouched(into)
  })
})

describe('a target that is not empty', () => {
  it('with data: refused naming its users; with --force moved aside, still readable, and restored', async () => {
    const into = await target({ migrated: true })
    await onServer(
      (client) =>
        client.query(
          `INSERT INTO users (first_name, user_name, email, role_id)
           SELECT 'Kept', 'kept' || g, 'kept' || g || '@example.com', 2 FROM generate_series(1, 3) g`,
        ),
      into.database,
    )
    const uploads = path.join(into.dataDir, 'uploads')
    await mkdir(uploads)
    await writeFile(path.join(uploads, 'kept-notes.pdf'), '%PDF-1.7 kept')

    expect(await restore(source.zstd, into)).toMatchObject({
      code: 1,
      stderr:
        'portal: The target database already holds data (3 users); restore into an empty one, or pass --force to ' +
        'move what is there aside (it is kept, never deleted).\n',
    })
    expect(await uploadsOf(into.dataDir)).toEqual({ 'kept-notes.pdf': sha256(Buffer.from('%PDF-1.7 kept')) })

    // one connection for the rows, as a server that should not be loaded harder is restored
    const forced = await restore(source.zstd, into, '--force', '--jobs', '1', '--json')
    expect(forced.stderr).toBe('')
    expect(forced.code).toBe(0)
    const { movedAside } = JSON.parse(forced.stdout) as { movedAside: string[] }
    const schema = /^the schema (before_restore_\w+) in the database /.exec(movedAside[0])?.[1]
    expect(schema).toMatch(/^before_restore_\d{8}t\d{6}z$/)
    expect(movedAside).toEqual([
      `the schema ${schema} in the database ${into.database} (the portal's tables)`,
      `the schema ${schema}_pgboss in the database ${into.database} (the job queue's)`,
      expect.stringMatching(new RegExp(`^${escaped(uploads)}\\.before-restore-\\d{8}T\\d{6}Z$`)),
    ])
    // what was there is kept and readable where it was moved
    const kept = await onServer(
      (client) => client.query<{ user_name: string }>(`SELECT user_name FROM ${schema}.users ORDER BY user_name`),
      into.database,
    )
    expect(kept.rows.map((r) => r.user_name)).toEqual(['kept1', 'kept2', 'kept3'])
    expect(await readFile(path.join(movedAside[2], 'kept-notes.pdf'), 'utf8')).toBe('%PDF-1.7 kept')
    // and the archive's data is what the portal now has
    expect(await archivedDigests(into.url)).toEqual(source.digests)
    expect(await uploadsOf(into.dataDir)).toEqual(source.uploads)
  })

  it('with --jobs out of range: a usage error, before the archive or the database is touched', async () => {
    const into = await target()
    for (const jobs of ['0', '9', '1.5', 'two'])
      expect(await restore(source.zstd, into, '--jobs', jobs)).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `portal: --jobs takes a whole number from 1 to 8, not "${jobs}".\n`,
      })
    await expectUntouched(into)
  })

  it('with uploaded files in its data folder: refused without --force, before the database is touched', async () => {
    const into = await target()
    const uploads = path.join(into.dataDir, 'uploads')
    await mkdir(uploads)
    await writeFile(path.join(uploads, 'kept-notes.pdf'), '%PDF-1.7 kept')
    expect(await restore(source.zstd, into)).toMatchObject({
      code: 1,
      stderr: `portal: ${uploads} already holds uploaded files; pass --force to move them aside (kept, never deleted).\n`,
    })
    expect(await userObjects(into.database)).toEqual([])
    expect(await readdir(into.dataDir)).toEqual(['uploads'])
  })
})

describe('a restore killed while it loads the tables', () => {
  // five runs of the CLI, two of them restores
  it(
    'is refused by migrations and backups, finished by the same archive, and another needs --force',
    {
      timeout: 90_000,
    },
    async () => {
      // enough rows that the load takes a while, and small entries so that it goes chunk by chunk
      const learner = await makeLearner()
      const pings = new pg.Client({ connectionString: process.env.DATABASE_URL })
      await pings.connect()
      await pings
        .query(
          `INSERT INTO access_log_pings (user_id, page_name, recorded_at)
         SELECT $1, 'My Courses', timestamptz '2026-11-27 10:00:00+00' - g * interval '1 minute'
           FROM generate_series(1, 40000) g`,
          [learner.id],
        )
        .finally(() => pings.end())
      const out = await folder('portal-archives-')
      const { location: archive } = await takeBackup(SYSTEM, { to: `${out}/`, chunkBytes: 32 * 1024 })
      const digests = await archivedDigests(process.env.DATABASE_URL!)
      const uploads = await uploadsOf(process.env.DATA_DIR!)

      const into = await target()
      const restoring = portalChild(['restore', archive], envOf(into))
      const pid = await sessionWhen(into.database, 'portal-restore', `state = 'active' AND query LIKE 'COPY %'`)
      restoring.kill('SIGKILL')
      expect(await exitOf(restoring)).toEqual({ code: null, signal: 'SIGKILL' })
      // the server ends the killed session and its transaction: the load left no row
      await eventually(() =>
        onServer(
          async (client) => (await client.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0,
        ),
      )
      const loaded = await onServer(
        (client) => client.query<{ n: number }>('SELECT count(*)::int AS n FROM access_log_pings'),
        into.database,
      )
      expect(loaded.rows[0].n).toBe(0)

      const migrated = await portal(['db', 'migrate'], envOf(into))
      expect(migrated.code).toBe(1)
      expect(migrated.stderr).toMatch(
        new RegExp(
          `^portal: This database holds an incomplete restore of ${escaped(archive)} \\(started \\S+, stopped after "tables emptied"\\); ` +
            'run `portal restore` with that archive again to finish it, or with --force to set it aside\\.\\n$',
        ),
      )
      const backups = await folder('portal-archives-')
      expect(await portal(['backup', '--to', `${backups}/`], envOf(into))).toMatchObject({
        code: 1,
        stderr: 'portal: This database holds a restore that has not finished; finish it before taking a backup.\n',
      })
      expect(await readdir(backups)).toEqual([])
      expect(await restore(source.zstd, into)).toMatchObject({
        code: 1,
        stderr:
          `portal: The target database holds an unfinished restore of another archive (${archive}); restore into an ` +
          'empty one, or pass --force to move what is there aside (it is kept, never deleted).\n',
      })

      const finished = await restore(archive, into, '--json')
      expect(finished.stderr).toBe('')
      expect(finished.code).toBe(0)
      expect(JSON.parse(finished.stdout)).toMatchObject({ resumed: true, movedAside: [] })
      expect(await archivedDigests(into.url)).toEqual(digests)
      // the keys and indexes the stopped load took off came back, from the marker
      expect(await schemaDefinitions(into.url)).toEqual(await schemaDefinitions(process.env.DATABASE_URL!))
      expect(await uploadsOf(into.dataDir)).toEqual(uploads)
      expect(await portal(['db', 'migrate'], envOf(into))).toMatchObject({ code: 0 })
    },
  )
})

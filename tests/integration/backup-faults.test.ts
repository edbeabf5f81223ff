import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import { promisify } from 'node:util'
import { ListObjectsV2Command } from '@aws-sdk/client-s3'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { takeBackup } from '#app/modules/backups/backup.server.ts'
import { EXCLUDED_SCHEMAS, EXCLUDED_TABLES } from '#app/modules/backups/snapshot.server.ts'
import { openArchive } from '#app/modules/backups/source.server.ts'
import { verifyArchive } from '#app/modules/backups/verify.server.ts'
import { makeS3Client, s3Storage } from '#app/modules/files/s3-storage.server.ts'
import { storeFile } from '#app/modules/files/service.server.ts'
import { MIGRATION_LOCK } from '#db/migrate.ts'
import { portal } from '#tests/cli.ts'
import { assignCourse, makeCourse, makeLearner, makeStoredFile, recordWatched } from '#tests/factories.ts'
import { readBody, S3_TEST_BUCKET, useS3rver } from '#tests/fixtures/files.ts'
import {
  archivedDigests,
  envOf,
  portalChild,
  restoreTargets,
  sessionWhen,
  sha256,
  uploadsOf,
} from '#tests/fixtures/restore-targets.ts'
import { startS3Recorder } from '#tests/fixtures/s3-recorder.ts'
import { exitOf } from '#tests/jobs.ts'

// What `portal backup` leaves when it cannot finish: a full disk, S3 refusing a part, a kill, a second backup
// at once. Never an archive that looks whole and is not. And what it holds: every table of the schema, or a
// reason why not; taken to S3 and restored from there, every row and file.

const { folder, target } = restoreTargets()
const execute = promisify(execFile)
const sourceDatabase = () => new URL(process.env.DATABASE_URL!).pathname.slice(1)
/** An archive's final name (a backup writes beside it, under a hidden name, until it is whole). */
const ARCHIVE_NAME = /^portal-backup-\d{8}T\d{6}Z-v[\d.]+\.tar\.(zst|gz)$/

beforeAll(async () => {
  const learner = await makeLearner()
  const course = await makeCourse({ videos: [{ duration: 60 }] })
  await assignCourse(learner.id, course.id)
  await recordWatched(learner.id, course.id, course.videos[0], 30)
  await makeStoredFile('document')
  // larger than an S3 part (5 MiB), and than the small disk below; noise, so that it stays so compressed
  await storeFile({
    purpose: 'document',
    name: 'recording.bin',
    contentType: 'application/octet-stream',
    body: randomBytes(6 * 1024 * 1024),
    uploadedBy: null,
  })
})

/**
 * Runs `work` while this test holds the lock a migration holds: a backup started meanwhile takes the lock of
 * a running backup, begins its archive, and waits for the migration to end before its snapshot starts.
 */
async function whileMigrating<T>(work: () => Promise<T>) {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
  client.on('error', () => undefined)
  await client.connect()
  try {
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    return await work()
  } finally {
    await client.query('ROLLBACK').catch(() => undefined)
    await client.end()
  }
}

/** Resolves when a backup of this file's database waits for a lock (the migration's). */
const backupWaiting = () => sessionWhen(sourceDatabase(), 'portal-backup', "wait_event_type = 'Lock'")

describe('a backup that cannot finish', () => {
  const mounted: string[] = []
  afterAll(async () => {
    for (const dir of mounted) await execute('umount', [dir])
  })

  it('on a full disk fails in one line and leaves no file at all', async () => {
    const dir = await folder('portal-full-disk-')
    try {
      await execute('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir])
    } catch (error) {
      throw new Error(
        `This test fills a disk of 256 KiB it mounts (tmpfs), which takes root: ${(error as { stderr?: string }).stderr ?? error}`,
      )
    }
    mounted.push(dir)
    expect(await portal(['backup', '--to', `${dir}/`])).toMatchObject({
      code: 1,
      stderr: `portal: The disk holding ${dir} is full; no archive was left.\n`,
    })
    expect(await readdir(dir)).toEqual([])
  })

  it('killed part-way leaves no file with an archive’s name', async () => {
    const dir = await folder('portal-killed-')
    await whileMigrating(async () => {
      const backup = portalChild(['backup', '--to', `${dir}/`], {})
      await backupWaiting()
      // it is writing its archive, under a hidden name
      expect(await readdir(dir)).toEqual([expect.stringMatching(/^\.portal-backup-.+\.partial$/)])
      backup.kill('SIGKILL')
      expect(await exitOf(backup)).toEqual({ code: null, signal: 'SIGKILL' })
    })
    expect((await readdir(dir)).filter((name) => ARCHIVE_NAME.test(name))).toEqual([])
  })

  it('is refused while another backup of the database runs, which then finishes', async () => {
    const first = await folder('portal-first-')
    const second = await folder('portal-second-')
    const { running } = await whileMigrating(async () => {
      const started = portal(['backup', '--to', `${first}/`, '--json'])
      await backupWaiting()
      expect(await portal(['backup', '--to', `${second}/`])).toMatchObject({
        code: 1,
        stderr: 'portal: Another backup of this database is running.\n',
      })
      expect(await readdir(second)).toEqual([])
      // (in an object: a promise returned would be waited for, with the lock still held)
      return { running: started }
    })
    const finished = await running
    expect(finished).toMatchObject({ code: 0, stderr: '' })
    const { location } = JSON.parse(finished.stdout) as { location: string }
    expect(await readdir(first)).toEqual([expect.stringMatching(ARCHIVE_NAME)])
    expect(await verifyArchive(await openArchive(location))).toMatchObject({ ok: true, restorable: true })
  })
})

describe('the tables of an archive', () => {
  it('are every table of the schema but the excluded ones, each excluded with its reason', async () => {
    const { location } = await takeBackup(SYSTEM, { to: `${await folder('portal-tables-')}/` })
    const { manifest } = await verifyArchive(await openArchive(location))
    const archived = new Set(manifest!.tables.map((t) => t.name))
    const excluded = new Set(Object.keys(EXCLUDED_TABLES))

    const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await client.connect()
    const catalog = await client
      .query<{ name: string; schemas: string[] }>(
        `SELECT c.relname AS name,
                array(SELECT nspname::text FROM pg_namespace
                       WHERE nspname NOT IN ('public', 'information_schema') AND nspname NOT LIKE 'pg\\_%'
                       ORDER BY 1) AS schemas
           FROM pg_class c
          WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'f', 'm')
          ORDER BY 1`,
      )
      .finally(() => client.end())
    const tables = catalog.rows.map((r) => r.name)
    expect(tables.length).toBeGreaterThan(30)
    // a table a migration adds is in the archive, unless it is listed as excluded, with a reason
    expect(tables.filter((t) => !archived.has(t) && !excluded.has(t))).toEqual([])
    expect(tables.filter((t) => archived.has(t) && excluded.has(t))).toEqual([])
    expect([...archived].filter((t) => !tables.includes(t))).toEqual([])
    for (const [table, reason] of Object.entries(EXCLUDED_TABLES)) expect(reason.length, table).toBeGreaterThan(20)
    expect(manifest!.excluded.tables).toEqual([...excluded])
    // and the database's other schemas (the job queue's) are ones the portal installs again
    expect(catalog.rows[0].schemas.filter((s) => !(EXCLUDED_SCHEMAS as readonly string[]).includes(s))).toEqual([])
    expect(manifest!.excluded.schemas).toEqual([...EXCLUDED_SCHEMAS])
  })
})

describe('a backup to S3', () => {
  const running = useS3rver({ uploads: false })

  const objectKeys = async (prefix: string) => {
    const client = makeS3Client(running().options)
    try {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: S3_TEST_BUCKET, Prefix: prefix }))
      return (listed.Contents ?? []).map((o) => o.Key)
    } finally {
      client.destroy()
    }
  }

  it('that S3 refuses a part of fails in one line, its upload aborted, and leaves no object', async () => {
    const prefix = `refused-${randomBytes(4).toString('hex')}/`
    const recorder = await startS3Recorder(running(), (part) => (part === 2 ? 'fail' : 'store'))
    const restore = recorder.use()
    let run: Awaited<ReturnType<typeof portal>>
    try {
      run = await portal(['backup', '--to', `s3://${S3_TEST_BUCKET}/${prefix}`])
    } finally {
      restore()
      await recorder.close()
    }
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(
      new RegExp(
        `^portal: Uploading to s3://${S3_TEST_BUCKET}/${prefix}portal-backup-\\S+\\.tar\\.zst failed: ` +
          'We encountered an internal error\\. Please try again\\.\\n$',
      ),
    )
    expect(run.stderr).not.toMatch(/S3RVER|Signature|Credential/)
    const parts = recorder.calls.filter((c) => c.op === 'part')
    expect(recorder.calls.filter((c) => c.op === 'create')).toHaveLength(1)
    expect(parts.filter((c) => c.partNumber === 2).every((c) => c.status === 500)).toBe(true)
    expect(recorder.calls.filter((c) => c.op === 'complete')).toEqual([])
    expect(recorder.calls.filter((c) => c.op === 'abort')).toEqual([
      expect.objectContaining({ uploadId: parts[0].uploadId, status: 204 }),
    ])
    expect(await objectKeys(prefix)).toEqual([])
  })

  it(
    'is verified from S3 and restored from there, its files into a bucket, every row and file the same',
    {
      timeout: 60_000,
    },
    async () => {
      const digests = await archivedDigests(process.env.DATABASE_URL!)
      const uploads = await uploadsOf(process.env.DATA_DIR!)
      const prefix = `round-trip-${randomBytes(4).toString('hex')}/`
      const backup = await portal(['backup', '--to', `s3://${S3_TEST_BUCKET}/${prefix}`, '--json'])
      expect(backup).toMatchObject({ code: 0, stderr: '' })
      const { location } = JSON.parse(backup.stdout) as { location: string }
      expect(location).toMatch(new RegExp(`^s3://${S3_TEST_BUCKET}/${prefix}portal-backup-\\S+\\.tar\\.zst$`))

      const verified = await portal(['backup', 'verify', location])
      expect(verified).toMatchObject({ code: 0, stderr: '' })
      expect(verified.stdout).toMatch(
        /^OK: \d+ tables, \d+ rows, 2 files \(6\.0 MB\) — this portal can restore it\.\n$/,
      )

      const into = await target()
      const restored = await portal(['restore', location, '--json'], { ...envOf(into), S3_BUCKET: S3_TEST_BUCKET })
      expect(restored).toMatchObject({ code: 0, stderr: '' })
      expect(JSON.parse(restored.stdout)).toMatchObject({ files: { restored: 2, skipped: 0, missing: [] } })
      expect(await archivedDigests(into.url)).toEqual(digests)
      const bucket = s3Storage({ ...running().options, bucket: S3_TEST_BUCKET })
      const stored: Record<string, string> = {}
      for (const key of Object.keys(uploads)) {
        const object = await bucket.get(key)
        if (object) stored[key] = sha256(await readBody(object.body))
      }
      expect(stored).toEqual(uploads)
      expect(await readdir(into.dataDir)).not.toContain('uploads')
    },
  )
})

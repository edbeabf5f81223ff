import { createHash } from 'node:crypto'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import zlib from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { MIGRATION_NAMES } from '#db/migrate.ts'
import {
  createArchiveWriter,
  readArchive,
  type ChunkDigest,
  type Compression,
  type EntryDigest,
} from './archive.server.ts'
import {
  ArchiveHeaderSchema,
  fileEntry,
  FILES_INDEX_ENTRY,
  FORMAT_VERSION,
  HEADER_ENTRY,
  MANIFEST_ENTRY,
  MANIFEST_HASH_ENTRY,
  ManifestSchema,
  SECRETS_ENTRY,
  type ArchiveHeader,
  type Manifest,
} from './manifest.ts'
import { verifyArchive, type VerifyProblem, type VerifyReport } from './verify.server.ts'

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex')
// one migration for good, not the newest: the archive's bytes (where a flipped byte lands) must not move with each new one
const MIGRATION = '0023-certificate-work-and-signatures'

/** Rows of hex that compress about as well as a table's do, the same on every run. */
function rows(count: number, seed: number) {
  let state = seed
  const lines: string[] = []
  for (let id = 1; id <= count; id++) {
    state = (state * 1103515245 + 12345) % 2 ** 31
    lines.push(`${id}\t${state.toString(16).repeat(1 + (state % 5))}\t2026-11-27 10:15:00+00\n`)
  }
  return Buffer.from(lines.join(''))
}

const TABLES: Record<string, Buffer> = {
  courses: rows(40, 1),
  events: rows(4000, 2),
  users: rows(200, 3),
  viewings: Buffer.alloc(0),
}
const FILES: Record<string, Buffer> = {
  'a7f3-report.pdf': Buffer.from('%PDF-1.7 the whole report'),
  [`${'0123456789abcdef'.repeat(12)}-long-key-of-201.txt`.slice(0, 201)]: Buffer.alloc(5000, 'q'),
  'z9-empty.txt': Buffer.alloc(0),
}

type Options = {
  compression?: Compression
  header?: Partial<ArchiveHeader>
  secrets?: boolean
  /** entries put in before the manifest */
  extra?: [string, Buffer][]
  /** change the manifest (its checksum follows unless `hash` is given) */
  manifest?: (manifest: Manifest) => void
  /** what manifest.sha256 holds, from the manifest's own */
  hash?: (sha256: string) => string
  /** a file's bytes, by key, in place of the one its line describes */
  fileBody?: Record<string, Buffer>
}

/** A whole backup as the portal writes it, its manifest made of the writer's digests. */
async function backup(options: Options = {}) {
  const { compression = 'zstd' } = options
  const parts: Buffer[] = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      parts.push(chunk)
      done()
    },
  })
  // the same bytes on every run, so that a flipped byte lands where it did before
  const writer = createArchiveWriter(sink, {
    compression,
    chunkBytes: 16 * 1024,
    mtime: new Date('2026-11-27T10:15:00Z'),
  })
  const header = ArchiveHeaderSchema.parse({
    format: 'portal-backup',
    formatVersion: FORMAT_VERSION,
    portalVersion: '0.1.0',
    migration: MIGRATION,
    postgres: { version: '18.4', versionNum: 180004 },
    compression,
    secrets: options.secrets ?? false,
    startedAt: '2026-11-27T10:15:00.123Z',
    trigger: 'cli',
    runId: null,
    ...options.header,
  })
  const headerDigest = await writer.addBuffer(HEADER_ENTRY, Buffer.from(JSON.stringify(header)))
  const tables: Manifest['tables'] = []
  for (const [name, text] of Object.entries(TABLES)) {
    const table = writer.tableWriter(name)
    await pipeline(Readable.from(text.length ? [text] : []), table)
    tables.push({ name, columns: ['id', 'value', 'at'], ...(await table.result()) })
  }
  const files: EntryDigest[] = []
  for (const [key, body] of Object.entries(FILES)) {
    const written = options.fileBody?.[key] ?? body
    files.push(await writer.addStream(fileEntry(key), written.length, Readable.from([written])))
  }
  const index = Buffer.from(
    Object.entries(FILES)
      .map(([key, body]) => `${JSON.stringify({ key, size: body.length, sha256: sha256(body) })}\n`)
      .join(''),
  )
  const indexDigest = await writer.addBuffer(FILES_INDEX_ENTRY, index)
  let secrets: EntryDigest | undefined
  if (options.secrets) secrets = await writer.addBuffer(SECRETS_ENTRY, Buffer.from('{"sessionSecret":"s3cr3t"}'))
  for (const [name, body] of options.extra ?? []) await writer.addBuffer(name, body)
  const manifest: Manifest = ManifestSchema.parse({
    formatVersion: header.formatVersion,
    portalVersion: header.portalVersion,
    migration: header.migration,
    postgres: { ...header.postgres, encoding: 'UTF8' },
    startedAt: header.startedAt,
    snapshotAt: '2026-11-27T10:15:00.200Z',
    tablesDoneAt: '2026-11-27T10:15:01.000Z',
    finishedAt: '2026-11-27T10:15:02.000Z',
    copy: { format: 'text', DateStyle: 'ISO, YMD', extra_float_digits: 3 },
    tables,
    sequences: [{ name: 'users_id_seq', table: 'users', column: 'id', lastValue: '200', isCalled: true }],
    files: {
      storage: 'disk',
      count: files.length,
      bytes: files.reduce((sum, f) => sum + f.bytes, 0),
      indexSha256: indexDigest.sha256,
      missing: [],
    },
    excluded: { tables: ['schema_migrations'], schemas: ['pgboss'] },
    secrets: secrets ? { included: true, bytes: secrets.bytes, sha256: secrets.sha256 } : { included: false },
    header: { sha256: headerDigest.sha256 },
  })
  const manifestHash = sha256(JSON.stringify(manifest))
  options.manifest?.(manifest)
  const manifestBytes = Buffer.from(JSON.stringify(manifest))
  await writer.addBuffer(MANIFEST_ENTRY, manifestBytes)
  const hash = options.hash ? options.hash(manifestHash) : sha256(manifestBytes)
  await writer.addBuffer(MANIFEST_HASH_ENTRY, Buffer.from(`${hash}\n`))
  await writer.finish()
  return { archive: Buffer.concat(parts), manifest, tables }
}

const plain = (archive: Buffer, compression: Compression) =>
  compression === 'zstd' ? zlib.zstdDecompressSync(archive) : zlib.gunzipSync(archive)

const verify = (archive: Buffer): Promise<VerifyReport> =>
  verifyArchive(Readable.from([archive]), { knownMigrations: MIGRATION_NAMES })

/** Where an entry's header block starts in a plain tar (names under 100 characters). */
function headerAt(tar: Buffer, name: string) {
  for (let at = 0; at < tar.length; at += 512)
    if (tar.subarray(at, at + name.length + 1).equals(Buffer.from(`${name}\0`))) return at
  throw new Error(`no ${name}`)
}

async function readNames(archive: Buffer) {
  const names: string[] = []
  for await (const entry of readArchive(Readable.from([archive]))) {
    names.push(entry.name)
    entry.body.resume()
  }
  return names
}

const flip = (bytes: Buffer, at: number) => {
  const copy = Buffer.from(bytes)
  copy[at] ^= 0x01
  return copy
}

describe('verifyArchive', () => {
  it.each(['zstd', 'gzip'] as const)('finds a sound %s backup sound, and one this portal can restore', async (c) => {
    const { archive, manifest } = await backup({ compression: c, secrets: true })
    const report = await verify(archive)
    expect(report.problems).toEqual([])
    expect(report).toMatchObject({ ok: true, restorable: true, manifest })
    expect(report.header).toMatchObject({ migration: MIGRATION, compression: c, secrets: true })
    expect(report.summary).toEqual({
      tables: 4,
      rows: 4240,
      files: 3,
      fileBytes: Object.values(FILES).reduce((sum, body) => sum + body.length, 0),
      archiveBytes: archive.length,
    })
    // several chunks for the large table, none for the empty one
    expect(manifest.tables.find((t) => t.name === 'events')!.chunks.length).toBeGreaterThan(3)
    expect(manifest.tables.find((t) => t.name === 'viewings')).toMatchObject({ rows: 0, chunks: [] })
  })

  it('reads a plain tar the same', async () => {
    const { archive } = await backup({ compression: 'gzip' })
    expect(await verify(plain(archive, 'gzip'))).toMatchObject({ ok: true, restorable: true, problems: [] })
  })

  it('names the last whole entry of an archive cut short', async () => {
    const { archive, tables } = await backup({ compression: 'gzip' })
    const tar = plain(archive, 'gzip')
    const events = tables.find((t) => t.name === 'events')!.chunks
    const cuts: [number, string | null][] = [
      // inside the header
      [headerAt(tar, HEADER_ENTRY) + 530, null],
      // inside a chunk of the events
      [headerAt(tar, events[2].name) + 2000, events[1].name],
      // just before the manifest
      [headerAt(tar, MANIFEST_ENTRY), FILES_INDEX_ENTRY],
      // whole entries, but not the end of the tar
      [tar.length - 1024, MANIFEST_HASH_ENTRY],
    ]
    for (const [cut, entry] of cuts) {
      const report = await verify(tar.subarray(0, cut))
      expect(report.ok).toBe(false)
      expect(report.restorable).toBe(false)
      const truncated: VerifyProblem = {
        entry,
        message: entry
          ? `The archive ends early after ${entry}: it is truncated.`
          : 'The archive ends early, before its first entry is complete: it is truncated.',
      }
      expect(report.problems).toEqual([truncated])
    }
    // compressed, the same words, naming an entry the archive has
    const cut = await verify(archive.subarray(0, Math.floor(archive.length * 0.6)))
    expect(cut.problems[0].message).toMatch(/^The archive ends early after \S+: it is truncated\.$/)
  })

  it.each(['plain', 'zstd', 'gzip'] as const)(
    'names the data entry a flipped byte is in, in a %s archive',
    async (kind) => {
      const { archive, tables } = await backup({ compression: 'gzip' })
      const chunk = tables.find((t) => t.name === 'events')!.chunks[1]
      const tar = flip(plain(archive, 'gzip'), headerAt(plain(archive, 'gzip'), chunk.name) + 512 + 100)
      // compressed after the flip, so that only the entry's checksum can tell
      const damaged =
        kind === 'plain'
          ? tar
          : kind === 'gzip'
            ? zlib.gzipSync(tar)
            : zlib.zstdCompressSync(tar, { params: { [zlib.constants.ZSTD_c_checksumFlag]: 1 } })
      const report = await verify(damaged)
      expect(report).toMatchObject({ ok: false, restorable: false })
      expect(report.problems).toEqual([
        { entry: chunk.name, message: `${chunk.name} does not match its checksum in the manifest.` },
      ])
    },
  )

  it.each(['zstd', 'gzip'] as const)('finds a byte flipped anywhere in the %s data', async (c) => {
    const { archive } = await backup({ compression: c })
    const names = [null, ...(await readNames(archive))]
    const messages: string[] = []
    for (let tenth = 1; tenth <= 9; tenth++) {
      const damaged = flip(archive, Math.floor((archive.length * tenth) / 10))
      const report = await verify(damaged)
      if (report.ok) {
        // a flip can leave what is decoded as it was (a reference to other bytes of the same value)
        expect(plain(damaged, c)).toEqual(plain(archive, c))
        continue
      }
      expect(report.restorable).toBe(false)
      expect(names).toContain(report.problems[0].entry)
      messages.push(report.problems[0].message)
    }
    // a chunk that no longer matches the manifest, or where the decoder or the tar reader stopped
    for (const message of messages)
      expect(message).toMatch(
        /^(data\/\S+ does not match its checksum in the manifest\.|The archive is damaged (in|after|at) .+)$/,
      )
    expect(messages.filter((m) => m.endsWith('does not match its checksum in the manifest.')).length).toBeGreaterThan(2)
  })

  it('finds a changed manifest', async () => {
    const { archive } = await backup({
      manifest: (m) => {
        m.tables[0].rows += 1
      },
      hash: (original) => original,
    })
    expect((await verify(archive)).problems).toEqual([
      { entry: MANIFEST_ENTRY, message: 'manifest.json does not match manifest.sha256: the manifest is damaged.' },
    ])
  })

  it.each<[string, (m: Manifest) => void, { entry: string; message: string | RegExp }]>([
    [
      'counts a chunk’s rows wrong',
      (m) => {
        m.tables[1].chunks[0].rows -= 1
      },
      {
        entry: 'data/events/000001.tsv',
        message: /^data\/events\/000001\.tsv holds \d+ rows; the manifest says \d+\.$/,
      },
    ],
    [
      'counts a table’s rows wrong',
      (m) => {
        m.tables[0].rows = 41
      },
      {
        entry: 'data/courses/000001.tsv',
        message: /^The chunks of courses hold 40 rows in \d+ bytes; the manifest counts 41 in \d+\.$/,
      },
    ],
    [
      'names a chunk that is not there',
      (m) => {
        const chunk: ChunkDigest = { ...m.tables[2].chunks[0], name: 'data/users/000009.tsv' }
        m.tables[2].chunks.push(chunk)
      },
      { entry: 'data/users/000009.tsv', message: 'data/users/000009.tsv is missing from the archive.' },
    ],
    [
      'has another checksum for a table',
      (m) => {
        m.tables[2].sha256 = 'f'.repeat(64)
      },
      { entry: 'data/users/000001.tsv', message: 'The data of users does not match its checksum in the manifest.' },
    ],
    [
      'has another checksum for the header',
      (m) => {
        m.header.sha256 = '0'.repeat(64)
      },
      { entry: HEADER_ENTRY, message: 'portal-backup.json does not match its checksum in the manifest.' },
    ],
    [
      'counts the files wrong',
      (m) => {
        m.files.count = 4
      },
      {
        entry: FILES_INDEX_ENTRY,
        message: /^The manifest counts 4 files of \d+ bytes; files\.jsonl lists 3 of \d+\.$/,
      },
    ],
    [
      'has another checksum for files.jsonl',
      (m) => {
        m.files.indexSha256 = '1'.repeat(64)
      },
      { entry: FILES_INDEX_ENTRY, message: 'files.jsonl does not match its checksum in the manifest.' },
    ],
  ])('finds a manifest that %s, though its own checksum is right', async (_, change, expected) => {
    const { archive } = await backup({ manifest: change })
    const report = await verify(archive)
    expect(report).toMatchObject({ ok: false, restorable: false })
    expect(report.problems).toEqual([{ entry: expected.entry, message: expect.stringMatching(expected.message) }])
  })

  it('finds an entry that is no part of a backup', async () => {
    const { archive } = await backup({ extra: [['notes.txt', Buffer.from('hello')]] })
    expect((await verify(archive)).problems).toEqual([
      { entry: 'notes.txt', message: 'notes.txt is not part of a portal backup.' },
    ])
  })

  it('finds a chunk the manifest does not name', async () => {
    const { archive } = await backup({ extra: [['data/users/000002.tsv', Buffer.from('201\tx\n')]] })
    expect((await verify(archive)).problems).toEqual([
      { entry: 'data/users/000002.tsv', message: 'data/users/000002.tsv is not in the manifest.' },
    ])
  })

  it('finds a stored file that is not the one files.jsonl describes', async () => {
    const { archive } = await backup({ fileBody: { 'a7f3-report.pdf': Buffer.from('%PDF-1.7 the whole rep0rt') } })
    expect((await verify(archive)).problems).toEqual([
      {
        entry: 'files/a7f3-report.pdf',
        message: 'files/a7f3-report.pdf does not match its checksum in files.jsonl.',
      },
    ])
  })

  it('refuses an archive of a newer format, at its header', async () => {
    const { archive } = await backup({ header: { formatVersion: FORMAT_VERSION + 1 } })
    expect(await verify(archive)).toMatchObject({
      ok: false,
      restorable: false,
      header: null,
      problems: [
        {
          entry: HEADER_ENTRY,
          message: `This archive was made by a newer portal (format ${FORMAT_VERSION + 1}): upgrade the portal first.`,
        },
      ],
    })
  })

  it('tells that an archive made at a migration this portal does not know cannot be restored here', async () => {
    const { archive } = await backup({ header: { migration: '0099-from-the-future', portalVersion: '0.9.0' } })
    const report = await verify(archive)
    expect(report).toMatchObject({ ok: true, restorable: false })
    expect(report.problems).toEqual([
      {
        entry: HEADER_ENTRY,
        message:
          'This archive was made by portal 0.9.0 at migration 0099-from-the-future, newer than this portal: upgrade the portal first.',
      },
    ])
    // without the list of migrations, nothing is said of it
    expect(await verifyArchive(Readable.from([archive]))).toMatchObject({ ok: true, restorable: true, problems: [] })
  })

  it('refuses an archive that does not start with its header', async () => {
    const parts: Buffer[] = []
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        parts.push(chunk)
        done()
      },
    })
    const writer = createArchiveWriter(sink, { compression: 'gzip' })
    await writer.addBuffer('manifest.json', Buffer.from('{}'))
    await writer.finish()
    expect((await verify(Buffer.concat(parts))).problems).toEqual([
      {
        entry: MANIFEST_ENTRY,
        message: 'The archive does not start with portal-backup.json: it is not a portal backup.',
      },
    ])
  })

  it('passes on a failure to read the archive', async () => {
    const source = new Readable({
      read() {
        this.destroy(new Error('EIO: the disk is unwell'))
      },
    })
    await expect(verifyArchive(source)).rejects.toThrow('EIO: the disk is unwell')
  })
})

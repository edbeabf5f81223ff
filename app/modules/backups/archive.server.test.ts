import { createHash, randomBytes } from 'node:crypto'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import zlib from 'node:zlib'
import { extract as tarExtract, pack as tarPack } from 'tar-stream'
import { describe, expect, it } from 'vitest'
import {
  ArchiveError,
  createArchiveWriter,
  readArchive,
  type ArchiveWriter,
  type Compression,
  type TableDigest,
  type TableSink,
} from './archive.server.ts'
import { chunkEntry, fileEntry } from './manifest.ts'

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex')
const MTIME = new Date('2026-11-27T10:15:00Z')

/** A sink that keeps what it is given. */
function memorySink() {
  const parts: Buffer[] = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      parts.push(chunk)
      done()
    },
  })
  return { sink, bytes: () => Buffer.concat(parts) }
}

/** Numbers that are the same on every run, so a failure can be replayed. */
function random(seed: number) {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31
    return state / 2 ** 31
  }
}

/** COPY-like text: `count` rows of a tab-separated id and hex, some long, some empty. */
function copyText(count: number, seed = 1) {
  const next = random(seed)
  const rows: string[] = []
  for (let id = 1; id <= count; id++) {
    const width = Math.floor(next() * 40)
    rows.push(`${id}\t${Math.floor(next() * 16 ** 8).toString(16)}${'ab\\n'.repeat(width)}\n`)
  }
  return Buffer.from(rows.join(''))
}

/** `text` in pieces of random sizes, as COPY hands them over. */
function pieces(text: Buffer, seed: number, most = 97) {
  const next = random(seed)
  const out: Buffer[] = []
  for (let at = 0; at < text.length;) {
    const size = 1 + Math.floor(next() * most)
    out.push(text.subarray(at, at + size))
    at += size
  }
  return out
}

async function writeTable(writer: ArchiveWriter, table: string, body: Buffer[]): Promise<TableDigest> {
  const sink: TableSink = writer.tableWriter(table)
  await pipeline(Readable.from(body), sink)
  return sink.result()
}

type Read = { name: string; size: number; body: Buffer }

/** `bytes` in pieces of `size` (the last one shorter), as a file or a socket hands them over. */
function chunksOf(bytes: Buffer, size: number) {
  const out: Buffer[] = []
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size))
  return out
}

async function readAll(archive: Buffer | Readable): Promise<Read[]> {
  const entries: Read[] = []
  const source = Buffer.isBuffer(archive) ? Readable.from([archive]) : archive
  for await (const entry of readArchive(source)) {
    const parts: Buffer[] = []
    for await (const chunk of entry.body) parts.push(chunk as Buffer)
    entries.push({ name: entry.name, size: entry.size, body: Buffer.concat(parts) })
  }
  return entries
}

async function readError(archive: Buffer): Promise<ArchiveError> {
  const error = await readAll(archive).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ArchiveError)
  return error as ArchiveError
}

const decompress = (archive: Buffer, compression: Compression) =>
  compression === 'zstd' ? zlib.zstdDecompressSync(archive) : zlib.gunzipSync(archive)

const USERS = copyText(300)
const LONG_ROW = Buffer.from(`1\t${'x'.repeat(700)}\n2\tshort\n`)
const LONG_KEY = `${'a1b2c3d4e5'.repeat(20)}z` // 201 characters, the longest a storage key may be
const FILES: Record<string, Buffer> = {
  'report.pdf': Buffer.from('%PDF-1.7 pretend'),
  [LONG_KEY]: Buffer.alloc(3000, 7),
  'empty.txt': Buffer.alloc(0),
}

/** An archive of everything the writer does: small entries, tables in chunks, files streamed. */
async function sampleArchive(compression: Compression, chunkBytes = 256) {
  const { sink, bytes } = memorySink()
  const writer = createArchiveWriter(sink, { compression, chunkBytes, mtime: MTIME })
  const header = await writer.addBuffer('portal-backup.json', Buffer.from('{"format":"portal-backup"}'))
  const tables = {
    users: await writeTable(writer, 'users', pieces(USERS, 2)),
    notes: await writeTable(writer, 'notes', [LONG_ROW]),
    empty: await writeTable(writer, 'empty', []),
  }
  const files = []
  for (const [key, body] of Object.entries(FILES))
    files.push(await writer.addStream(fileEntry(key), body.length, Readable.from(pieces(body, 3, 1000))))
  await writer.finish()
  return { archive: bytes(), header, tables, files, written: writer.written }
}

describe('the archive writer and reader', () => {
  it.each(['zstd', 'gzip'] as const)('give back every entry as written, with %s', async (compression) => {
    const { archive, header, tables, files, written } = await sampleArchive(compression)
    expect(written).toBe(archive.length)
    const entries = await readAll(archive)
    expect(entries.map((e) => e.name)).toEqual([
      'portal-backup.json',
      ...tables.users.chunks.map((c) => c.name),
      ...tables.notes.chunks.map((c) => c.name),
      ...Object.keys(FILES).map(fileEntry),
    ])
    expect(entries[0].body.toString()).toBe('{"format":"portal-backup"}')
    expect(header).toEqual({ name: 'portal-backup.json', bytes: 26, sha256: sha256(entries[0].body) })

    const byName = new Map(entries.map((e) => [e.name, e.body]))
    for (const [key, body] of Object.entries(FILES)) expect(byName.get(fileEntry(key))).toEqual(body)
    expect(files.map((f) => f.sha256)).toEqual(Object.values(FILES).map((body) => sha256(body)))
    expect(files.find((f) => f.name === fileEntry(LONG_KEY))).toMatchObject({ bytes: 3000 })

    // the chunks are named in order, hold what their digests say, and put back together are the table
    expect(tables.users.chunks.map((c) => c.name)).toEqual(
      tables.users.chunks.map((_, i) => chunkEntry('users', i + 1)),
    )
    for (const chunk of [...tables.users.chunks, ...tables.notes.chunks]) {
      const body = byName.get(chunk.name)!
      expect(chunk).toEqual({ name: chunk.name, bytes: body.length, sha256: sha256(body), rows: rowsOf(body) })
    }
    const users = Buffer.concat(tables.users.chunks.map((c) => byName.get(c.name)!))
    expect(users).toEqual(USERS)
    expect(tables.users).toMatchObject({ rows: 300, bytes: USERS.length, sha256: sha256(USERS) })
  })

  it('cuts a table at row ends, in chunks no larger than asked, whatever pieces the text comes in', async () => {
    const { tables } = await sampleArchive('gzip')
    expect(tables.users.chunks.length).toBeGreaterThan(10)
    expect(tables.users.chunks.every((c) => c.bytes <= 256)).toBe(true)
    // each chunk is as full as the next row allows: with it, the chunk would be too large
    const rows = USERS.toString().split(/(?<=\n)/)
    let at = 0
    for (const chunk of tables.users.chunks) {
      at += chunk.rows
      if (at < rows.length) expect(chunk.bytes + Buffer.byteLength(rows[at])).toBeGreaterThan(256)
    }
    expect(at).toBe(300)
    // the same text in other pieces (one byte at a time, then all at once) makes the same chunks
    for (const body of [pieces(USERS, 9, 1), [USERS]]) {
      const { sink } = memorySink()
      const writer = createArchiveWriter(sink, { compression: 'gzip', chunkBytes: 256, mtime: MTIME })
      expect(await writeTable(writer, 'users', body)).toEqual(tables.users)
      await writer.finish()
    }
  })

  it('writes a row longer than a chunk as a chunk of its own, and nothing for an empty table', async () => {
    const { tables } = await sampleArchive('zstd')
    expect(tables.notes.chunks).toEqual([
      { name: 'data/notes/000001.tsv', bytes: 703, sha256: sha256(LONG_ROW.subarray(0, 703)), rows: 1 },
      { name: 'data/notes/000002.tsv', bytes: 8, sha256: sha256('2\tshort\n'), rows: 1 },
    ])
    expect(tables.empty).toEqual({ rows: 0, bytes: 0, sha256: sha256(''), chunks: [] })
  })

  it('writes each entry as a file of mode 600 with the given time, and long names whole', async () => {
    const { archive } = await sampleArchive('gzip')
    const headers: { name: string; mode?: number; mtime?: Date; type?: string | null }[] = []
    const extract = tarExtract()
    extract.on('entry', (header, stream, next) => {
      headers.push(header)
      stream.on('end', next)
      stream.resume()
    })
    await pipeline(Readable.from([zlib.gunzipSync(archive)]), extract)
    expect(headers.map((h) => h.name)).toContain(`files/${LONG_KEY}`)
    for (const header of headers) expect(header).toMatchObject({ mode: 0o600, mtime: MTIME, type: 'file' })
  })

  it('reads zstd data whatever pieces it comes in, and of more than one frame', async () => {
    const { archive } = await sampleArchive('zstd')
    const names = (await readAll(archive)).map((e) => e.name)
    // node's encoder ends the data with a frame of its own (empty): cut anywhere in it, or in the checksum before
    for (let cut = archive.length - 24; cut < archive.length; cut++) {
      const read = await readAll(Readable.from([archive.subarray(0, cut), archive.subarray(cut)]))
      expect(read.map((e) => e.name)).toEqual(names)
    }
    // as `zstd` makes it of files put one after the other, cut where the frames meet and elsewhere
    const tar = zlib.zstdDecompressSync(archive)
    const half = Math.floor(tar.length / 2)
    const frames = [tar.subarray(0, half), tar.subarray(half)].map((part) =>
      zlib.zstdCompressSync(part, { params: { [zlib.constants.ZSTD_c_checksumFlag]: 1 } }),
    )
    for (const size of [7, 1000, frames[0].length, 1 << 20]) {
      const read = await readAll(Readable.from(chunksOf(Buffer.concat(frames), size)))
      expect(read.map((e) => e.name)).toEqual(names)
    }
  })

  it('reads a plain tar as well, telling the kind from the first bytes', async () => {
    const { archive } = await sampleArchive('zstd')
    const expected = await readAll(archive)
    expect(await readAll(decompress(archive, 'zstd'))).toEqual(expected)
    // what a file arrives as, in small pieces, does not matter either
    expect(await readAll(Readable.from(pieces(archive, 4, 50)))).toEqual(expected)
  })

  it('drains a body its reader did not touch when the next entry is asked for', async () => {
    const { archive } = await sampleArchive('zstd')
    const names: string[] = []
    for await (const entry of readArchive(Readable.from([archive]))) names.push(entry.name)
    expect(names).toEqual((await readAll(archive)).map((e) => e.name))
  })

  it('passes on a failure to read the source as it is', async () => {
    const { archive } = await sampleArchive('gzip')
    const source = new Readable({
      read() {
        this.push(archive.subarray(0, 300))
        this.destroy(new Error('ECONNRESET: the object store hung up'))
      },
    })
    await expect(readAll(source)).rejects.toThrow(/^ECONNRESET: the object store hung up$/)
  })

  it('fails a table whose text ends inside a row', async () => {
    const { sink } = memorySink()
    const writer = createArchiveWriter(sink, { compression: 'gzip', chunkBytes: 64, mtime: MTIME })
    const table = writer.tableWriter('users')
    await expect(pipeline(Readable.from([Buffer.from('1\tana\n2\tbo')]), table)).rejects.toThrow(
      'The COPY text of users ends inside a row.',
    )
    await expect(table.result()).rejects.toThrow('ends inside a row')
  })

  it.each([
    ['shorter', 9, 'files/a has 5 bytes, not the 9 its entry was given.'],
    ['longer', 3, 'files/a is longer than the 3 bytes its entry was given.'],
  ])('refuses a body %s than its size, and with it the archive', async (_, size, message) => {
    const { sink } = memorySink()
    const writer = createArchiveWriter(sink, { compression: 'zstd', mtime: MTIME })
    await writer.addBuffer('portal-backup.json', Buffer.from('{}'))
    const body = Readable.from([Buffer.from('hel'), Buffer.from('lo')])
    await expect(writer.addStream('files/a', size, body)).rejects.toThrow(message)
    expect(body.destroyed).toBe(true)
    await expect(writer.addBuffer('files/b', Buffer.from('x'))).rejects.toThrow(message)
    await expect(writer.finish()).rejects.toThrow(message)
    expect(sink.destroyed).toBe(true)
  })

  it.each([5, 12])(
    'relies on a tar library that refuses a body of %i bytes where its header says 9',
    async (length) => {
      // the library's own check, behind the writer's: a wrong size would make every later header unreadable
      const pack = tarPack()
      pack.on('error', () => undefined)
      const result = new Promise<unknown>((resolve) => {
        const entry = pack.entry({ name: 'a', size: 9 }, resolve)
        entry.on('error', () => undefined)
        entry.write(Buffer.alloc(length))
        entry.end()
      })
      pack.resume()
      expect(await result).toMatchObject({ message: 'Size mismatch' })
    },
  )

  it('stops on abort with the error given, and ends the sink with it', async () => {
    const { sink } = memorySink()
    const writer = createArchiveWriter(sink, { compression: 'gzip', mtime: MTIME })
    const table = writer.tableWriter('users')
    table.write(USERS)
    writer.abort(new Error('The database went away.'))
    await expect(writer.finish()).rejects.toThrow('The database went away.')
    expect(sink.destroyed).toBe(true)
    await expect(writer.addBuffer('x', Buffer.from('x'))).rejects.toThrow('The database went away.')
  })
})

const rowsOf = (body: Buffer) => body.toString().split('\n').length - 1

describe('the writer under a slow sink', () => {
  it('pauses the COPY stream while the sink is busy, so it holds about one chunk whatever the table', async () => {
    const chunkBytes = 1024 * 1024
    const total = 32 * 1024 * 1024
    const next = random(5)
    let produced = 0
    let rows = 0
    const copy = new Readable({
      read() {
        if (produced >= total) return void this.push(null)
        // 64 KiB of rows of hex, hardly compressible, as COPY hands them over
        const lines: string[] = []
        let size = 0
        while (size < 64 * 1024) {
          const line = `${++rows}\t${Math.floor(next() * 16 ** 12).toString(16)}${Math.floor(next() * 16 ** 12).toString(16)}\n`
          lines.push(line)
          size += line.length
        }
        produced += size
        this.push(Buffer.from(lines.join('')))
      },
    })
    const held: (() => void)[] = []
    let stalled = true
    const received: Buffer[] = []
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        received.push(chunk)
        if (stalled) held.push(done)
        else setImmediate(done)
      },
    })
    const writer = createArchiveWriter(sink, { compression: 'gzip', chunkBytes, mtime: MTIME })
    const table = writer.tableWriter('events')
    const copying = pipeline(copy, table)

    // wait until nothing moves any more (the sink holds its first writes), however long that takes
    let seen = -1
    for (let still = 0; still < 20; still = produced === seen && held.length > 0 ? still + 1 : 0) {
      seen = produced
      await sleep(10)
    }
    expect(copy.isPaused()).toBe(true)
    expect(produced).toBeGreaterThanOrEqual(chunkBytes)
    // the chunk being written, the next one gathering, and what the streams between hold
    expect(produced).toBeLessThan(4 * chunkBytes)

    stalled = false
    held.splice(0).forEach((done) => done())
    await copying
    const digest = await table.result()
    await writer.finish()
    expect(produced).toBeGreaterThanOrEqual(total)
    expect(digest).toMatchObject({ rows, bytes: produced })
    expect(digest.chunks.every((c) => c.bytes <= chunkBytes)).toBe(true)
    const entries = await readAll(Buffer.concat(received))
    expect(entries.map((e) => [e.name, e.body.length])).toEqual(digest.chunks.map((c) => [c.name, c.bytes]))
    expect(sha256(Buffer.concat(entries.map((e) => e.body)))).toBe(digest.sha256)
  }, 60_000)
})

describe('a damaged archive', () => {
  /** Where an entry's header block starts in a plain tar (names under 100 characters). */
  function headerAt(tar: Buffer, name: string) {
    for (let at = 0; at < tar.length; at += 512)
      if (tar.subarray(at, at + name.length + 1).equals(Buffer.from(`${name}\0`))) return at
    throw new Error(`no ${name}`)
  }

  it('is reported as truncated after the last entry it holds whole', async () => {
    const { archive, tables } = await sampleArchive('gzip')
    const tar = zlib.gunzipSync(archive)
    const [first, second, third] = tables.users.chunks.map((c) => c.name)
    const cuts: [number, string][] = [
      [headerAt(tar, 'portal-backup.json') + 520, 'The archive ends early, before its first entry is complete'],
      [headerAt(tar, second) + 600, `The archive ends early after ${first}`],
      [headerAt(tar, third), `The archive ends early after ${second}`],
      [headerAt(tar, third) + 100, `The archive ends early after ${second}`],
      // whole entries, but not the two blocks of zeros that end a tar
      [tar.length - 1024, `The archive ends early after files/empty.txt`],
      [tar.length - 512, `The archive ends early after files/empty.txt`],
      [100, 'The archive ends early, before its first entry is complete'],
    ]
    for (const [cut, message] of cuts) {
      const error = await readError(tar.subarray(0, cut))
      expect(error.message).toBe(`${message}: it is truncated.`)
    }
    expect((await readError(tar.subarray(0, headerAt(tar, third)))).entry).toBe(second)
  })

  it.each(['zstd', 'gzip'] as const)('is reported as truncated when %s data stops early', async (compression) => {
    const { archive } = await sampleArchive(compression)
    const names = (await readAll(archive)).map((e) => e.name)
    for (const cut of [10, Math.floor(archive.length / 2), archive.length - 30]) {
      const error = await readError(archive.subarray(0, cut))
      expect(error.message).toMatch(
        /^The archive ends early( after .+|, before its first entry is complete): it is truncated\.$/,
      )
      if (error.entry) expect(names).toContain(error.entry)
    }
  })

  it('names the entry whose header is damaged', async () => {
    const { archive, tables } = await sampleArchive('gzip')
    const tar = Buffer.from(zlib.gunzipSync(archive))
    const [first, second] = tables.users.chunks.map((c) => c.name)
    tar[headerAt(tar, second) + 3] ^= 0x20
    const error = await readError(tar)
    expect(error.message).toBe(`The archive is damaged after ${first}: a tar header is not valid`)
    expect(error.entry).toBe(first)
  })

  it('names the entry a zstd archive breaks in', async () => {
    const { archive } = await sampleArchive('zstd')
    const damaged = Buffer.from(archive)
    // the end of the compressed data: the last files, whose bytes are a run the decoder must rebuild; rebuilt
    // wrongly, the header after them is garbage, which the tar reader finds before the frame's checksum is read
    damaged[Math.floor(archive.length * 0.9)] ^= 0xff
    const error = await readError(damaged)
    expect(error.message).toBe(`The archive is damaged after ${fileEntry(LONG_KEY)}: a tar header is not valid`)
  })

  it.each([
    ['zstd', "Restored data doesn't match checksum"],
    ['gzip', 'incorrect data check'],
  ] as const)(
    'hands out every entry before it says a %s checksum is wrong, so the entries’ own checksums can name the damage',
    async (compression, reason) => {
      // bytes that neither zstd nor gzip can shrink are stored as they are: one flipped is found by the
      // checksum at the end of the data only, and the decoder would lose the last piece it decoded with it
      const noise = randomBytes(200_000)
      const { sink, bytes } = memorySink()
      const writer = createArchiveWriter(sink, { compression, mtime: MTIME })
      await writer.addBuffer('files/noise.bin', noise)
      await writer.addBuffer('manifest.json', Buffer.from(copyText(400)))
      await writer.addBuffer('manifest.sha256', Buffer.from(`${'0'.repeat(64)}\n`))
      await writer.finish()
      const damaged = Buffer.from(bytes())
      const stored = damaged.indexOf(noise.subarray(100_000, 100_064))
      expect(stored).toBeGreaterThan(0)
      damaged[stored + 10] ^= 0x01

      const read: Read[] = []
      const error = await (async () => {
        for await (const entry of readArchive(Readable.from(chunksOf(damaged, 4096)))) {
          const parts: Buffer[] = []
          for await (const chunk of entry.body) parts.push(chunk as Buffer)
          read.push({ name: entry.name, size: entry.size, body: Buffer.concat(parts) })
        }
      })().catch((e: unknown) => e)
      expect(read.map((e) => e.name)).toEqual(['files/noise.bin', 'manifest.json', 'manifest.sha256'])
      expect(read[0].body).not.toEqual(noise)
      expect(read[1].body).toEqual(copyText(400))
      expect(error).toMatchObject({
        message: `The archive is damaged after manifest.sha256: ${compression}: ${reason}`,
        entry: 'manifest.sha256',
      })
    },
  )

  it.each([
    [Buffer.alloc(0), 'The archive is empty.'],
    [Buffer.alloc(2000, 'x'), 'This is not a backup archive: it holds neither zstd, gzip nor tar data.'],
  ])('is refused when it is no archive at all', async (bytes, message) => {
    expect((await readError(bytes)).message).toBe(message)
  })
})

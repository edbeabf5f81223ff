import { createHash } from 'node:crypto'
import { Readable, Transform, Writable } from 'node:stream'
import { finished, pipeline } from 'node:stream/promises'
import zlib from 'node:zlib'
import { extract as tarExtract, pack as tarPack, type Entry } from 'tar-stream'
import { chunkEntry } from './manifest.ts'

// The container of a backup: a tar written and read as a stream, compressed with zstd (or gzip), no
// database in sight. A tar header states its entry's size before the body, so every entry is written
// whole and one at a time: a table's COPY text is cut into chunks held in memory (at most one chunk and
// the row that overflows it), each written as one entry of its exact size. Backpressure holds from the
// sink back to whoever writes into the archive, so memory stays flat whatever the size of a table.
// The reader tells the compression from the first bytes, never the file name, and names the entry
// where a damaged or truncated archive breaks.

export type Compression = 'zstd' | 'gzip'
export type EntryDigest = { name: string; bytes: number; sha256: string }
export type ChunkDigest = EntryDigest & { rows: number }
export type TableDigest = { rows: number; bytes: number; sha256: string; chunks: ChunkDigest[] }
/** A table's COPY text goes in; `result()` resolves once it has finished and every chunk entry is written. */
export type TableSink = Writable & { result(): Promise<TableDigest> }

export interface ArchiveWriter {
  /** compressed bytes handed to the sink so far (for progress) */
  readonly written: number
  addBuffer(name: string, body: Buffer): Promise<EntryDigest>
  /** the body's length must be `size`; otherwise this fails, and with it the archive */
  addStream(name: string, size: number, body: Readable): Promise<EntryDigest>
  /**
   * COPY text of one table: cut into entries data/<table>/000001.tsv, 000002.tsv … of at most
   * chunkBytes, each ending right after a '\n' (a row end: the text format escapes line breaks inside
   * values, so every 0x0A byte ends a row), or of one row when a row alone is longer. Counts rows per
   * chunk, hashes each chunk and the whole table. A table with no bytes writes no entry.
   */
  tableWriter(table: string): TableSink
  /** ends the tar and the compression; resolves when the sink has finished */
  finish(): Promise<void>
  /** stop: destroys the pipeline with this error (the caller removes or aborts the destination) */
  abort(error: Error): void
}

export type ArchiveEntry = { name: string; size: number; body: Readable }

/** Where and why an archive cannot be read; `entry` is the entry the message names, when it names one. */
export class ArchiveError extends Error {
  entry?: string
  constructor(message: string, entry?: string) {
    super(message)
    this.name = 'ArchiveError'
    this.entry = entry
  }
}

const DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024
const ENTRY_MODE = 0o600
const BLOCK = 512
/** A tar ends with two blocks of zeros after its last entry. */
const END_OF_TAR = 2 * BLOCK
const LINE_END = 0x0a

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)))
const sha256Hex = (hash: ReturnType<typeof createHash>) => hash.digest('hex')

/** Resolves once a stream wants more (or is gone, which its other listeners report). */
function drained(stream: NodeJS.EventEmitter & { destroyed: boolean }) {
  return new Promise<void>((resolve) => {
    if (stream.destroyed) return resolve()
    const done = () => {
      stream.off('drain', done)
      stream.off('close', done)
      resolve()
    }
    stream.on('drain', done)
    stream.on('close', done)
  })
}

function compressor(compression: Compression): Transform {
  if (compression === 'gzip') return zlib.createGzip({ level: 1 })
  // level 1 is the fastest; the checksum makes a flipped compressed byte fail in the decoder
  return zlib.createZstdCompress({
    params: { [zlib.constants.ZSTD_c_compressionLevel]: 1, [zlib.constants.ZSTD_c_checksumFlag]: 1 },
  })
}

export function createArchiveWriter(
  sink: Writable,
  options: { compression: Compression; chunkBytes?: number; mtime?: Date },
): ArchiveWriter {
  const { compression, chunkBytes = DEFAULT_CHUNK_BYTES, mtime = new Date() } = options
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1) throw new Error(`chunkBytes must be a whole number ≥ 1.`)
  const pack = tarPack()
  pack.on('error', () => undefined) // its error reaches the pipeline through the reader below
  const tar = Readable.from(pack, { objectMode: false })
  let written = 0
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      written += chunk.length
      done(null, chunk)
    },
  })
  let failure: Error | undefined
  const piped = pipeline(tar, compressor(compression), counter, sink)
  piped.catch((error: unknown) => {
    failure ??= asError(error)
  })
  // entries are written one after another, in the order they were asked for
  let queue: Promise<unknown> = Promise.resolve()
  let finishing = false

  function abort(error: Error) {
    failure ??= error
    tar.destroy(error)
  }

  function serial<T>(write: () => Promise<T>): Promise<T> {
    const result = queue.then(() => {
      if (failure) throw failure
      if (finishing) throw new Error('The archive is finished; no entry can be added.')
      return write()
    })
    queue = result.catch(() => undefined)
    return result
  }

  /** One entry of `size` bytes; a body of another length fails the archive (its header is out already). */
  async function writeEntry(
    name: string,
    size: number,
    body: Iterable<Buffer> | AsyncIterable<Buffer>,
  ): Promise<EntryDigest> {
    const hash = createHash('sha256')
    let bytes = 0
    let entry!: Writable
    const done = new Promise<void>((resolve, reject) => {
      entry = pack.entry({ name, size, mode: ENTRY_MODE, mtime, type: 'file' }, (error) =>
        error ? reject(asError(error)) : resolve(),
      )
    })
    entry.on('error', () => undefined) // reported through `done`
    done.catch(() => undefined) // awaited only once the body is in
    try {
      for await (const part of body) {
        bytes += part.length
        if (bytes > size) throw new Error(`${name} is longer than the ${size} bytes its entry was given.`)
        hash.update(part)
        if (!entry.write(part)) await drained(entry)
        if (failure) throw failure
      }
      if (bytes !== size) throw new Error(`${name} has ${bytes} bytes, not the ${size} its entry was given.`)
      entry.end()
      await done
    } catch (error) {
      // the body's own failure stops the archive; one of the archive's (the sink's) is already doing so
      if (!tar.destroyed) abort(asError(error))
      await piped.catch(() => undefined)
      throw failure ?? asError(error)
    }
    return { name, bytes, sha256: sha256Hex(hash) }
  }

  return {
    get written() {
      return written
    },
    addBuffer: (name, body) => serial(() => writeEntry(name, body.length, [body])),
    addStream: (name, size, body) =>
      serial(() => writeEntry(name, size, body)).catch((error: unknown) => {
        body.destroy()
        throw error
      }),
    tableWriter: (table) =>
      new TableChunker(table, chunkBytes, (name, size, parts) => serial(() => writeEntry(name, size, parts))),
    async finish() {
      await queue
      if (failure) {
        await piped.catch(() => undefined)
        throw failure
      }
      finishing = true
      pack.finalize()
      await piped
    },
    abort,
  }
}

/**
 * Cuts a table's COPY text at row ends into chunks, each written as an entry before more text is taken
 * in: the writable's callback waits for the entry, which is how a slow sink pauses the COPY.
 */
class TableChunker extends Writable implements TableSink {
  private parts: Buffer[] = []
  private pending = 0
  private readonly hash = createHash('sha256')
  private readonly digest: TableDigest = { rows: 0, bytes: 0, sha256: '', chunks: [] }
  private readonly settled: Promise<TableDigest>
  private settle!: { resolve: (digest: TableDigest) => void; reject: (error: Error) => void }
  private done = false

  constructor(
    private readonly table: string,
    private readonly chunkBytes: number,
    private readonly writeEntry: (name: string, size: number, parts: Buffer[]) => Promise<EntryDigest>,
  ) {
    super()
    if (!table || /[/\0]/.test(table) || table === '.' || table === '..')
      throw new Error(`"${table}" cannot name a table's entries.`)
    this.settled = new Promise((resolve, reject) => (this.settle = { resolve, reject }))
    this.settled.catch(() => undefined) // reported by result() and by the stream's error
  }

  result() {
    return this.settled
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void) {
    this.parts.push(chunk)
    this.pending += chunk.length
    this.cut(false).then(() => callback(), callback)
  }

  override _final(callback: (error?: Error | null) => void) {
    this.cut(true).then(() => {
      this.done = true
      this.settle.resolve({ ...this.digest, sha256: sha256Hex(this.hash) })
      callback()
    }, callback)
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void) {
    if (!this.done) this.settle.reject(error ?? new Error(`The COPY text of ${this.table} was cut off before its end.`))
    this.parts = []
    callback(error)
  }

  /** Writes every chunk the text held so far makes: all of it at the end, which must be a row end. */
  private async cut(final: boolean) {
    while (this.pending >= this.chunkBytes || (final && this.pending > 0)) {
      let size = final && this.pending <= this.chunkBytes ? this.pending : this.lastRowEndWithin(this.chunkBytes)
      // a row longer than a chunk is a chunk of its own, once its end has come
      if (size === 0) size = this.firstRowEnd()
      if (size === 0 && !final) return
      if (size === 0 || (final && size === this.pending && this.byteAt(size - 1) !== LINE_END))
        throw new Error(`The COPY text of ${this.table} ends inside a row.`)
      await this.writeChunk(size)
    }
  }

  private async writeChunk(size: number) {
    const parts = this.take(size)
    let rows = 0
    for (const part of parts) {
      for (let at = part.indexOf(LINE_END); at !== -1; at = part.indexOf(LINE_END, at + 1)) rows++
      this.hash.update(part)
    }
    const entry = await this.writeEntry(chunkEntry(this.table, this.digest.chunks.length + 1), size, parts)
    this.digest.chunks.push({ ...entry, rows })
    this.digest.rows += rows
    this.digest.bytes += size
  }

  /** How many bytes up to and including the last '\n' in the first `limit` bytes (0: none there). */
  private lastRowEndWithin(limit: number) {
    let offset = 0
    const starts = this.parts.map((part) => {
      const start = offset
      offset += part.length
      return start
    })
    for (let i = this.parts.length - 1; i >= 0; i--) {
      if (starts[i] >= limit) continue
      const at = this.parts[i].lastIndexOf(LINE_END, limit - starts[i] - 1)
      if (at !== -1) return starts[i] + at + 1
    }
    return 0
  }

  /** How many bytes up to and including the first '\n' (0: none yet). */
  private firstRowEnd() {
    let offset = 0
    for (const part of this.parts) {
      const at = part.indexOf(LINE_END)
      if (at !== -1) return offset + at + 1
      offset += part.length
    }
    return 0
  }

  private byteAt(index: number) {
    let offset = 0
    for (const part of this.parts) {
      if (index < offset + part.length) return part[index - offset]
      offset += part.length
    }
    return undefined
  }

  /** The first `size` bytes, taken off what is held. */
  private take(size: number) {
    const taken: Buffer[] = []
    let left = size
    while (left > 0) {
      const part = this.parts[0]
      if (part.length <= left) {
        taken.push(part)
        this.parts.shift()
        left -= part.length
      } else {
        taken.push(part.subarray(0, left))
        this.parts[0] = part.subarray(left)
        left = 0
      }
    }
    this.pending -= size
    return taken
  }
}

const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd])
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b])
const USTAR = Buffer.from('ustar')
const USTAR_OFFSET = 257
const SNIFF_BYTES = USTAR_OFFSET + USTAR.length
/** What ends gzip data: its CRC-32 and size. */
const GZIP_TRAILER = 8

const ZSTD_FRAME = 0xfd2fb528
const ZSTD_SKIPPABLE = 0x184d2a50
const ZSTD_SKIPPABLE_MASK = 0xfffffff0

type ZstdStage =
  'magic' | 'descriptor' | 'header' | 'block header' | 'block' | 'checksum' | 'skippable size' | 'skippable' | 'unknown'

/**
 * Where zstd data must be cut before it goes to node's decoder (RFC 8878's frame layout, read as the bytes
 * go by, nothing decoded): at the end of each frame, since the decoder ends its output at a frame's end when
 * more bytes came with it (the next frame, even the empty one node's encoder adds at the end, is then lost or
 * taken for garbage); and before each frame's checksum, so that a checksum found wrong fails a piece with
 * nothing decoded in it. Bytes it cannot make sense of are passed on uncut, for the decoder to refuse.
 */
class ZstdCuts {
  private stage: ZstdStage = 'magic'
  private left = 4
  private field: number[] = []
  private checksum = false
  private last = false

  /** The offsets in `chunk`, in order, at which a piece must end. */
  cuts(chunk: Buffer): number[] {
    const cuts: number[] = []
    let at = 0
    while (at < chunk.length && this.stage !== 'unknown') {
      if (this.stage === 'block' || this.stage === 'skippable') {
        const take = Math.min(this.left, chunk.length - at)
        at += take
        this.left -= take
      } else {
        this.field.push(chunk[at++])
        this.left--
      }
      if (this.left === 0) this.next(cuts, at)
    }
    return cuts.filter((cut) => cut > 0 && cut < chunk.length)
  }

  private expect(stage: ZstdStage, bytes: number) {
    this.stage = stage
    this.left = bytes
    this.field = []
  }

  /** The stage just read is complete at `at`: on to the next (stages of no bytes are passed at once). */
  private next(cuts: number[], at: number) {
    const field = this.field
    const number = field.reduce((value, byte, i) => value + byte * 2 ** (8 * i), 0)
    switch (this.stage) {
      case 'magic':
        if (number === ZSTD_FRAME) return this.expect('descriptor', 1)
        if ((number & ZSTD_SKIPPABLE_MASK) >>> 0 === ZSTD_SKIPPABLE) return this.expect('skippable size', 4)
        return this.expect('unknown', 0)
      case 'descriptor': {
        const descriptor = field[0]
        const single = (descriptor & 0x20) !== 0
        this.checksum = (descriptor & 0x04) !== 0
        const contentSize = [single ? 1 : 0, 2, 4, 8][descriptor >> 6]
        const bytes = (single ? 0 : 1) + [0, 1, 2, 4][descriptor & 0x03] + contentSize
        return bytes ? this.expect('header', bytes) : this.expect('block header', 3)
      }
      case 'header':
        return this.expect('block header', 3)
      case 'block header': {
        this.last = (number & 1) === 1
        const type = (number >> 1) & 3
        if (type === 3) return this.expect('unknown', 0)
        const size = type === 1 ? 1 : number >>> 3
        if (size > 0) return this.expect('block', size)
        return this.blockEnd(cuts, at)
      }
      case 'block':
        return this.blockEnd(cuts, at)
      case 'skippable size':
        if (number > 0) return this.expect('skippable', number)
        return this.frameEnd(cuts, at)
      default:
        // the checksum, or a skippable frame's bytes
        return this.frameEnd(cuts, at)
    }
  }

  private blockEnd(cuts: number[], at: number) {
    if (!this.last) return this.expect('block header', 3)
    if (!this.checksum) return this.frameEnd(cuts, at)
    cuts.push(at)
    return this.expect('checksum', 4)
  }

  private frameEnd(cuts: number[], at: number) {
    cuts.push(at)
    return this.expect('magic', 4)
  }
}

function sniff(head: Buffer): Compression | 'tar' | undefined {
  if (head.subarray(0, ZSTD_MAGIC.length).equals(ZSTD_MAGIC)) return 'zstd'
  if (head.subarray(0, GZIP_MAGIC.length).equals(GZIP_MAGIC)) return 'gzip'
  if (head.subarray(USTAR_OFFSET, SNIFF_BYTES).equals(USTAR)) return 'tar'
  return undefined
}

/** The tar's own words for what it found, in the archive's. */
function tarReason(error: Error) {
  if (error.message.startsWith('Invalid tar header')) return 'a tar header is not valid'
  return error.message.split('\n')[0]
}

/**
 * The entries of an archive, in order. The consumer reads (or resumes) each body before it asks for the
 * next; a body nobody touched is drained when the next is asked for. Fails with an ArchiveError that
 * names where the archive broke:
 * "The archive ends early after <last complete entry>: it is truncated." or
 * "The archive is damaged in <entry>: <reason>" (or "after <entry>" when it broke between two entries).
 * A failure to read the source itself is passed on as it is.
 */
export async function* readArchive(source: Readable): AsyncGenerator<ArchiveEntry, void, undefined> {
  const input = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>
  const extract = tarExtract()
  // the tar reader's own error says more than the "destroyed" its entry streams fail with
  let tarError: Error | undefined
  extract.on('error', (error: Error) => {
    tarError ??= error
  })
  const closed = new Promise<void>((resolve) => extract.once('close', resolve))
  let decoder: Transform | undefined
  let compression: Compression | undefined
  // the entry last handed out, the last one read to its end, and where the last one's data ends
  let current: string | undefined
  let complete: string | undefined
  let open = false
  let end = 0
  let decoded = 0
  // what stopped the bytes before the tar's end: a decoder's error, or the source's own (`unreadable`)
  let broken: Error | undefined
  let unreadable = false
  // the tar reader holds as much as it wants (it says so when a write returns false, until 'drain')
  let full = false
  extract.on('drain', () => {
    full = false
  })

  const truncated = () =>
    new ArchiveError(
      complete
        ? `The archive ends early after ${complete}: it is truncated.`
        : 'The archive ends early, before its first entry is complete: it is truncated.',
      complete,
    )

  /** The archive's failure as an ArchiveError that names where it broke, once the tar reader has stopped. */
  async function failure(error: unknown): Promise<Error> {
    if (error instanceof ArchiveError) return error
    await closed
    return translate(tarError ?? asError(error))
  }

  function translate(error: Error): Error {
    if (broken && unreadable) return broken
    const cause = broken ?? error
    if ((cause as { code?: string }).code === 'Z_BUF_ERROR' || cause.message === 'Unexpected end of data')
      return truncated()
    const reason = broken ? `${compression}: ${broken.message.split('\n')[0]}` : tarReason(cause)
    if (open) return new ArchiveError(`The archive is damaged in ${current}: ${reason}`, current)
    if (complete) return new ArchiveError(`The archive is damaged after ${complete}: ${reason}`, complete)
    return new ArchiveError(`The archive is damaged at its start: ${reason}`)
  }

  function toExtract(chunk: Buffer) {
    decoded += chunk.length
    if (!extract.write(chunk)) full = true
  }

  /**
   * Decoded bytes into the tar reader while it wants them: the next piece of the source goes to the
   * decoder once the last is decoded and the tar reader has room. The decoder's output is taken as it
   * comes (flowing), so an error of the decoder loses only the piece it was making, and the tar reader
   * still reads all that came before: the archive breaks where the damage is, not before it.
   *
   * The compressed data's checksum (at the end of each zstd frame, of gzip data) goes to the decoder
   * alone, after the bytes it covers: a checksum found wrong then fails a piece with nothing decoded in it.
   * Given with the last bytes of data, it failed the piece that decoded them, and the end of the tar (the
   * manifest) was lost with it: a byte that zstd or gzip stored as it was, flipped, was then blamed on the
   * manifest, not on its entry, which the manifest's checksums name.
   */
  async function feed(head: Buffer[]) {
    const write = async (chunk: Buffer) => {
      if (decoder) {
        const stream = decoder
        await new Promise<void>((resolve, reject) => {
          const gone = () => reject(broken ?? new Error('The decoder stopped.'))
          stream.once('close', gone)
          stream.write(chunk, (error) => {
            stream.off('close', gone)
            if (error) reject(error)
            else resolve()
          })
        })
      } else toExtract(chunk)
      if (full) await drained(extract)
    }
    const zstd = compression === 'zstd' ? new ZstdCuts() : undefined
    // gzip's trailer is known only by the end of the source: the last bytes seen are held back until then
    let held = Buffer.alloc(0)
    const pass = async (chunk: Buffer) => {
      if (zstd) {
        let from = 0
        for (const cut of zstd.cuts(chunk)) {
          await write(chunk.subarray(from, cut))
          from = cut
        }
        return write(from ? chunk.subarray(from) : chunk)
      }
      if (compression !== 'gzip') return write(chunk)
      const bytes = held.length ? Buffer.concat([held, chunk]) : chunk
      const keep = Math.min(GZIP_TRAILER, bytes.length)
      held = Buffer.from(bytes.subarray(bytes.length - keep))
      if (bytes.length > keep) await write(bytes.subarray(0, bytes.length - keep))
    }
    try {
      if (decoder) {
        decoder.on('data', toExtract)
        decoder.on('error', (error: Error) => {
          broken ??= error
        })
      }
      for (const chunk of head) await pass(chunk)
      for (;;) {
        let step: IteratorResult<Buffer>
        try {
          step = await input.next()
        } catch (error) {
          broken ??= asError(error)
          unreadable = broken === error
          throw error
        }
        if (step.done || extract.destroyed) break
        await pass(step.value)
      }
      if (decoder) {
        if (held.length && !extract.destroyed) await write(held)
        decoder.end()
        await finished(decoder)
      }
    } catch (error) {
      broken ??= asError(error)
      decoder?.destroy()
    } finally {
      // the tar reader takes in what it was given, then ends: early if the bytes stopped early
      extract.end()
    }
  }

  try {
    const head: Buffer[] = []
    let headBytes = 0
    while (headBytes < SNIFF_BYTES) {
      const step = await input.next()
      if (step.done) break
      head.push(step.value)
      headBytes += step.value.length
    }
    if (headBytes === 0) throw new ArchiveError('The archive is empty.')
    const kind = sniff(Buffer.concat(head))
    if (!kind && headBytes < SNIFF_BYTES) throw truncated()
    if (!kind) throw new ArchiveError('This is not a backup archive: it holds neither zstd, gzip nor tar data.')
    if (kind !== 'tar') {
      compression = kind
      // zlib's pieces of 16 KiB: a decoder's error loses the piece it was making, so larger ones would
      // hide more of where an archive broke
      decoder = kind === 'zstd' ? zlib.createZstdDecompress() : zlib.createGunzip()
    }
    void feed(head)

    const entries = extract[Symbol.asyncIterator]()
    for (;;) {
      let step: IteratorResult<Entry>
      try {
        step = await entries.next()
      } catch (error) {
        throw await failure(error)
      }
      if (step.done) break
      const stream = step.value
      const { name, size = 0, type } = stream.header
      current = name
      open = true
      end = (stream as unknown as { offset: number }).offset + BLOCK + Math.ceil(size / BLOCK) * BLOCK
      if (type !== 'file')
        throw new ArchiveError(`The archive is damaged in ${name}: it is a ${type}, not a file.`, name)
      const body = Readable.from(bodyOf(stream, name), { objectMode: false })
      yield { name, size, body }
      if (open && body.readableFlowing === null) body.resume()
    }
    if (broken) throw translate(broken)
    // the tar reader stops at the end of the bytes; a tar cut at an entry's end lacks only its zeros
    if (decoded < end + END_OF_TAR) throw truncated()
  } finally {
    extract.destroy()
    decoder?.destroy()
    source.destroy()
  }

  async function* bodyOf(stream: Entry, name: string) {
    try {
      for await (const chunk of stream) yield chunk as Buffer
    } catch (error) {
      throw await failure(error)
    }
    open = false
    complete = name
  }
}

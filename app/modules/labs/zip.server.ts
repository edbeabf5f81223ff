import { crc32 } from 'node:zlib'
import { Inflate } from 'fflate'
import { invalid, isServiceError } from '../errors.ts'

// The entries of an uploaded zip, read from its central directory, and one entry's bytes. fflate's own
// unzip says nothing of an entry's file type, so a symbolic link would pass as a file, and it inflates
// into a buffer of the size the entry declares, so an entry that holds more than it declares is cut
// short without a word. Here the directory is read once, every entry can be judged before anything is
// inflated, and fflate inflates an entry in small steps that stop as soon as it outgrows its size.

export type ZipEntry = {
  /** the path in the zip, as written (folders separated by /) */
  name: string
  /** a folder entry (its name ends in /) */
  folder: boolean
  symlink: boolean
  /** the size the entry declares once unpacked */
  size: number
  compressedSize: number
  method: number
  encrypted: boolean
  crc: number
  /** where the entry's local header starts */
  offset: number
}

const END_OF_DIRECTORY = 0x06054b50
const DIRECTORY_ENTRY = 0x02014b50
const LOCAL_HEADER = 0x04034b50
/** A 32-bit size or offset of this value is in the entry's ZIP64 extra field instead. */
const IN_ZIP64 = 0xffffffff
const UNIX = 3
const S_IFMT = 0o170000
const S_IFLNK = 0o120000

const damaged = (detail: string) => invalid(`The file is not a zip that can be read (${detail}).`)

/**
 * The entries of a zip, from its central directory. Refuses a zip of more than `most` entries before
 * reading any of them, and a zip split over several files.
 */
export function zipEntries(zip: Uint8Array, most: number): ZipEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength)
  const end = endOfDirectory(view)
  if (view.getUint16(end + 4, true) !== 0 || view.getUint16(end + 6, true) !== 0)
    throw invalid('The zip is split over several files; upload it as one zip.')
  const count = view.getUint16(end + 10, true)
  if (count > most) throw invalid(`The zip holds ${count} entries; a lab zip may hold at most ${most}.`)
  let at = view.getUint32(end + 16, true)
  const entries: ZipEntry[] = []
  for (let i = 0; i < count; i++) {
    const { entry, next } = directoryEntry(zip, view, at)
    entries.push(entry)
    at = next
  }
  return entries
}

/** Where the end-of-directory record starts: the last one, within the 64 KB a comment may take. */
function endOfDirectory(view: DataView) {
  for (let at = view.byteLength - 22; at >= 0 && at >= view.byteLength - 22 - 0xffff; at--)
    if (view.getUint32(at, true) === END_OF_DIRECTORY) return at
  throw damaged('no end of its directory')
}

function directoryEntry(zip: Uint8Array, view: DataView, at: number): { entry: ZipEntry; next: number } {
  if (at + 46 > view.byteLength || view.getUint32(at, true) !== DIRECTORY_ENTRY) throw damaged('a broken directory')
  const flags = view.getUint16(at + 8, true)
  const nameLength = view.getUint16(at + 28, true)
  const extraLength = view.getUint16(at + 30, true)
  const commentLength = view.getUint16(at + 32, true)
  const next = at + 46 + nameLength + extraLength + commentLength
  if (next > view.byteLength) throw damaged('a broken directory')
  const nameBytes = zip.subarray(at + 46, at + 46 + nameLength)
  // bit 11: the name is UTF-8; zips without it are old DOS ones, read here as Latin-1 as fflate does
  const name = new TextDecoder(flags & 0x800 ? 'utf-8' : 'latin1').decode(nameBytes)
  const sizes = zip64Sizes(view, at + 46 + nameLength, extraLength, {
    size: view.getUint32(at + 24, true),
    compressedSize: view.getUint32(at + 20, true),
    offset: view.getUint32(at + 42, true),
  })
  const madeBy = view.getUint16(at + 4, true) >> 8
  const mode = view.getUint32(at + 38, true) >>> 16
  const entry: ZipEntry = {
    name,
    folder: name.endsWith('/'),
    symlink: madeBy === UNIX && (mode & S_IFMT) === S_IFLNK,
    method: view.getUint16(at + 10, true),
    encrypted: (flags & 1) === 1,
    crc: view.getUint32(at + 16, true),
    ...sizes,
  }
  return { entry, next }
}

type Sizes = Pick<ZipEntry, 'size' | 'compressedSize' | 'offset'>

/** The sizes and offset an entry keeps in its ZIP64 extra field (id 1), in this order, when its own fields say so. */
function zip64Sizes(view: DataView, at: number, length: number, sizes: Sizes): Sizes {
  const wanted = (['size', 'compressedSize', 'offset'] as const).filter((key) => sizes[key] === IN_ZIP64)
  if (wanted.length === 0) return sizes
  for (let field = at; field + 4 <= at + length; field += 4 + view.getUint16(field + 2, true)) {
    if (view.getUint16(field, true) !== 1) continue
    const found = { ...sizes }
    wanted.forEach((key, i) => (found[key] = Number(view.getBigUint64(field + 4 + 8 * i, true))))
    return found
  }
  throw damaged('an entry without its ZIP64 sizes')
}

/** An entry's bytes, refused when they are more than it declared, or are not what its checksum says. */
export function unzipEntry(zip: Uint8Array, entry: ZipEntry): Uint8Array {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength)
  if (entry.offset + 30 > zip.byteLength || view.getUint32(entry.offset, true) !== LOCAL_HEADER)
    throw damaged(`${entry.name} has no header`)
  const start = entry.offset + 30 + view.getUint16(entry.offset + 26, true) + view.getUint16(entry.offset + 28, true)
  if (start + entry.compressedSize > zip.byteLength) throw damaged(`${entry.name} is cut off`)
  const data = zip.subarray(start, start + entry.compressedSize)
  if (entry.encrypted) throw invalid(`${entry.name} in the zip is encrypted; zip the lab without a password.`)
  const bytes = entry.method === 0 ? data : entry.method === 8 ? inflated(entry, data) : undefined
  if (!bytes)
    throw invalid(`${entry.name} in the zip is compressed in a way the portal does not read (method ${entry.method}).`)
  if (bytes.length !== entry.size || crc32(bytes) !== entry.crc) throw damaged(`${entry.name} is damaged`)
  return bytes
}

/** Compressed bytes handed to fflate at a time: what one step can unpack to (about 1000 times this) stays small. */
const STEP = 16 * 1024

function inflated(entry: ZipEntry, data: Uint8Array) {
  const out = new Uint8Array(entry.size)
  let length = 0
  const inflate = new Inflate((chunk) => {
    // a zip bomb that lies about its size stops here, a step past what it declared
    if (length + chunk.length > out.length)
      throw invalid(`${entry.name} in the zip unpacks to more than the ${entry.size} bytes it declares.`)
    out.set(chunk, length)
    length += chunk.length
  })
  try {
    let at = 0
    do {
      inflate.push(data.subarray(at, at + STEP), at + STEP >= data.length)
      at += STEP
    } while (at < data.length)
  } catch (error) {
    if (isServiceError(error)) throw error
    throw damaged(`${entry.name} does not unpack`)
  }
  return out.subarray(0, length)
}

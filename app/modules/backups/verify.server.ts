import { createHash } from 'node:crypto'
import { type Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { ArchiveError, readArchive, type ArchiveEntry } from './archive.server.ts'
import {
  DATA_PREFIX,
  fileEntry,
  FILES_INDEX_ENTRY,
  FILES_PREFIX,
  FileIndexLineSchema,
  FORMAT_VERSION,
  HEADER_ENTRY,
  MANIFEST_ENTRY,
  MANIFEST_HASH_ENTRY,
  parseHeader,
  parseManifest,
  SECRETS_ENTRY,
  type ArchiveHeader,
  type Manifest,
} from './manifest.ts'

// A backup checked without a database: one pass over the archive that keeps a small digest of each
// entry (its name, size, SHA-256 and, for table data, its row count), never a body, except the header
// and the manifest. Then the checks, in the order of the archive, and the first problem is the answer:
// the header; the manifest against manifest.sha256, and the header against the manifest; every entry
// against what the manifest (or files.jsonl, for stored files) says of it; what is missing; and last
// whether the archive ended as it should. Whether this portal could restore it is said beside, without
// making the archive any less sound.

export type VerifyProblem = { entry: string | null; message: string }
export type VerifyReport = {
  /** the archive is whole and every entry matches the manifest */
  ok: boolean
  header: ArchiveHeader | null
  manifest: Manifest | null
  summary: { tables: number; rows: number; files: number; fileBytes: number; archiveBytes: number }
  /** the first problem of the archive, if any; then, if so, why this portal cannot restore it */
  problems: VerifyProblem[]
  /** sound, of a format this portal reads, and made at a migration this portal knows */
  restorable: boolean
}

type Digest = { name: string; bytes: number; sha256: string; rows: number }
type ManifestTable = Manifest['tables'][number]

/** How large the entries read whole may be. */
const HEADER_LIMIT = 1024 * 1024
const MANIFEST_LIMIT = 64 * 1024 * 1024
const MANIFEST_HASH_LIMIT = 1024
const INDEX_LINE_LIMIT = 64 * 1024
const LINE_END = 0x0a

const problem = (entry: string | null, message: string): VerifyProblem => ({ entry, message })
const tableOf = (name: string) => name.slice(DATA_PREFIX.length, name.lastIndexOf('/'))

/**
 * files.jsonl read as it streams: each line against the files/ entry at its place, which came before
 * it. Keeps the first mismatch only.
 */
class IndexCheck {
  lines = 0
  bytes = 0
  /** the first files/ entry (by its place among them) that does not match its line */
  mismatch: { at: number; message: string } | undefined
  invalid: string | undefined
  private partial: Buffer[] = []
  private partialBytes = 0

  constructor(private readonly files: Digest[]) {}

  push(chunk: Buffer) {
    let start = 0
    for (let at = chunk.indexOf(LINE_END); at !== -1 && !this.invalid; at = chunk.indexOf(LINE_END, start)) {
      this.partial.push(chunk.subarray(start, at))
      this.line(Buffer.concat(this.partial).toString('utf8'))
      this.partial = []
      this.partialBytes = 0
      start = at + 1
    }
    if (this.invalid || start === chunk.length) return
    this.partial.push(chunk.subarray(start))
    this.partialBytes += chunk.length - start
    if (this.partialBytes > INDEX_LINE_LIMIT) this.invalid = `${FILES_INDEX_ENTRY} line ${this.lines + 1} is too long.`
  }

  end() {
    if (this.partialBytes > 0 && !this.invalid) this.invalid = `${FILES_INDEX_ENTRY} does not end with a line end.`
  }

  private line(text: string) {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      value = undefined
    }
    const parsed = FileIndexLineSchema.safeParse(value)
    if (!parsed.success) {
      this.invalid = `${FILES_INDEX_ENTRY} line ${this.lines + 1} does not describe a file.`
      return
    }
    const at = this.lines++
    const { key, size, sha256 } = parsed.data
    this.bytes += size
    const file = this.files[at]
    if (!file || this.mismatch) return
    const message =
      file.name !== fileEntry(key)
        ? `${file.name} is not the file ${FILES_INDEX_ENTRY} lists at its place (${key}).`
        : file.bytes !== size
          ? `${file.name} is ${file.bytes} bytes; ${FILES_INDEX_ENTRY} says ${size}.`
          : file.sha256 !== sha256
            ? `${file.name} does not match its checksum in ${FILES_INDEX_ENTRY}.`
            : undefined
    if (message) this.mismatch = { at, message }
  }
}

/** Read an archive through and check it: see the head of this file. */
export async function verifyArchive(
  source: Readable,
  options: { knownMigrations?: readonly string[] } = {},
): Promise<VerifyReport> {
  let archiveBytes = 0
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      archiveBytes += chunk.length
      done(null, chunk)
    },
  })
  // a failure of the source reaches readArchive through `counted`
  pipeline(source, counted).catch(() => undefined)

  const entries: Digest[] = []
  const files: Digest[] = []
  const tableHashes = new Map<string, ReturnType<typeof createHash>>()
  const kept = new Map<string, Buffer>()
  const tooLarge = new Set<string>()
  const index = new IndexCheck(files)
  let header: ArchiveHeader | null = null
  let manifest: Manifest | null = null
  let broken: ArchiveError | undefined

  const report = (first: VerifyProblem | undefined): VerifyReport => {
    const problems = first ? [first] : []
    const readable = header !== null && header.formatVersion <= FORMAT_VERSION
    const known = !header || !options.knownMigrations || options.knownMigrations.includes(header.migration)
    if (header && !known)
      problems.push(
        problem(
          HEADER_ENTRY,
          `This archive was made by portal ${header.portalVersion} at migration ${header.migration}, newer than this portal: upgrade the portal first.`,
        ),
      )
    return {
      ok: !first,
      header,
      manifest,
      summary: {
        tables: manifest?.tables.length ?? 0,
        rows: manifest?.tables.reduce((sum, t) => sum + t.rows, 0) ?? 0,
        files: manifest?.files.count ?? 0,
        fileBytes: manifest?.files.bytes ?? 0,
        archiveBytes,
      },
      problems,
      restorable: !first && readable && known,
    }
  }

  async function digest(entry: ArchiveEntry): Promise<Digest> {
    const { name } = entry
    const hash = createHash('sha256')
    const limit =
      name === HEADER_ENTRY
        ? HEADER_LIMIT
        : name === MANIFEST_ENTRY
          ? MANIFEST_LIMIT
          : name === MANIFEST_HASH_ENTRY
            ? MANIFEST_HASH_LIMIT
            : 0
    const keep = limit > 0 && !kept.has(name) && entry.size <= limit
    if (limit > 0 && entry.size > limit) tooLarge.add(name)
    const data = name.startsWith(DATA_PREFIX)
    const tableHash = data ? (tableHashes.get(tableOf(name)) ?? createHash('sha256')) : undefined
    if (tableHash) tableHashes.set(tableOf(name), tableHash)
    const isIndex = name === FILES_INDEX_ENTRY && !entries.some((e) => e.name === name)
    const parts: Buffer[] = []
    let bytes = 0
    let rows = 0
    for await (const chunk of entry.body as AsyncIterable<Buffer>) {
      hash.update(chunk)
      bytes += chunk.length
      if (keep) parts.push(chunk)
      if (data) {
        tableHash!.update(chunk)
        for (let at = chunk.indexOf(LINE_END); at !== -1; at = chunk.indexOf(LINE_END, at + 1)) rows++
      }
      if (isIndex) index.push(chunk)
    }
    if (isIndex) index.end()
    if (keep) kept.set(name, Buffer.concat(parts))
    return { name, bytes, sha256: hash.digest('hex'), rows }
  }

  try {
    for await (const entry of readArchive(counted)) {
      if (entries.length === 0 && entry.name !== HEADER_ENTRY)
        return report(
          problem(entry.name, `The archive does not start with ${HEADER_ENTRY}: it is not a portal backup.`),
        )
      const seen = await digest(entry)
      entries.push(seen)
      if (seen.name.startsWith(FILES_PREFIX)) files.push(seen)
      if (entries.length === 1) {
        // the header says whether the rest can be read at all (a newer format may mean anything by it)
        try {
          header = parseHeader(kept.get(HEADER_ENTRY) ?? Buffer.alloc(0))
        } catch (error) {
          return report(problem(HEADER_ENTRY, (error as Error).message))
        }
      }
    }
  } catch (error) {
    if (!(error instanceof ArchiveError)) throw error
    broken = error
  }

  const first = firstProblem()
  return report(first)

  function firstProblem(): VerifyProblem | undefined {
    const broke = broken && problem(broken.entry ?? null, broken.message)
    const find = (name: string) => entries.findIndex((e) => e.name === name)
    const manifestAt = find(MANIFEST_ENTRY)
    const hashAt = find(MANIFEST_HASH_ENTRY)
    // until the manifest is in, there is nothing to check the entries against. A decoder that finds
    // its checksum wrong at the very end has handed over every entry first (readArchive holds the
    // checksum back): the manifest then shows which entry is damaged. When the bytes broke off after
    // the manifest, inside manifest.sha256, the manifest, unconfirmed, may still show it.
    if (broke && (manifestAt === -1 || !header)) return broke
    if (!header) return problem(HEADER_ENTRY, `The archive holds no ${HEADER_ENTRY}.`)
    if (manifestAt === -1) return problem(MANIFEST_ENTRY, `The archive holds no ${MANIFEST_ENTRY}.`)
    if (hashAt === -1 && !broke) return problem(MANIFEST_HASH_ENTRY, `The archive holds no ${MANIFEST_HASH_ENTRY}.`)
    if (tooLarge.has(MANIFEST_ENTRY)) return problem(MANIFEST_ENTRY, `${MANIFEST_ENTRY} is too large to be a manifest.`)
    if (hashAt !== -1) {
      const hashText = tooLarge.has(MANIFEST_HASH_ENTRY) ? '' : kept.get(MANIFEST_HASH_ENTRY)!.toString('utf8')
      if (!/^[0-9a-f]{64}\n?$/.test(hashText))
        return problem(MANIFEST_HASH_ENTRY, `${MANIFEST_HASH_ENTRY} does not hold a SHA-256.`)
      if (hashText.trim() !== entries[manifestAt].sha256)
        return problem(
          MANIFEST_ENTRY,
          `${MANIFEST_ENTRY} does not match ${MANIFEST_HASH_ENTRY}: the manifest is damaged.`,
        )
    }
    try {
      manifest = parseManifest(kept.get(MANIFEST_ENTRY)!)
    } catch (error) {
      return broke || problem(MANIFEST_ENTRY, (error as Error).message)
    }
    if (manifest.header.sha256 !== entries[0].sha256)
      return problem(HEADER_ENTRY, `${HEADER_ENTRY} does not match its checksum in the manifest.`)
    if (
      manifest.formatVersion !== header.formatVersion ||
      manifest.portalVersion !== header.portalVersion ||
      manifest.migration !== header.migration
    )
      return problem(MANIFEST_ENTRY, `${MANIFEST_ENTRY} and ${HEADER_ENTRY} name different versions of the portal.`)
    if (manifest.secrets.included !== header.secrets)
      return problem(MANIFEST_ENTRY, `${MANIFEST_ENTRY} and ${HEADER_ENTRY} disagree on whether secrets are included.`)

    // what the entries are checked against: the chunks the manifest names, and files.jsonl
    const chunks = new Map<string, ManifestTable['chunks'][number] & { table: ManifestTable }>()
    const tables = new Set<string>()
    for (const table of manifest.tables) {
      if (tables.has(table.name))
        return problem(MANIFEST_ENTRY, `${MANIFEST_ENTRY} lists the table ${table.name} twice.`)
      tables.add(table.name)
      for (const chunk of table.chunks) {
        if (chunks.has(chunk.name) || tableOf(chunk.name) !== table.name || !chunk.name.startsWith(DATA_PREFIX))
          return problem(MANIFEST_ENTRY, `${MANIFEST_ENTRY} names ${chunk.name} wrongly or twice.`)
        chunks.set(chunk.name, { ...chunk, table })
      }
    }
    const indexAt = find(FILES_INDEX_ENTRY)
    if (indexAt === -1) return problem(FILES_INDEX_ENTRY, `The archive holds no ${FILES_INDEX_ENTRY}.`)
    if (entries[indexAt].sha256 !== manifest.files.indexSha256)
      return problem(FILES_INDEX_ENTRY, `${FILES_INDEX_ENTRY} does not match its checksum in the manifest.`)
    if (index.invalid) return problem(FILES_INDEX_ENTRY, index.invalid)

    // the entries, in order; a table with an entry the manifest does not name gets that entry named, not its checksum
    const foreign = new Set(
      entries.filter((e) => e.name.startsWith(DATA_PREFIX) && !chunks.has(e.name)).map((e) => tableOf(e.name)),
    )
    const lastOfTable = new Map<string, number>()
    entries.forEach((e, at) => {
      if (chunks.has(e.name)) lastOfTable.set(chunks.get(e.name)!.table.name, at)
    })
    const names = new Set<string>()
    let fileAt = 0
    for (const [at, e] of entries.entries()) {
      const found = entryProblem(e, at, names.has(e.name), fileAt)
      if (found) return found
      names.add(e.name)
      if (e.name.startsWith(FILES_PREFIX)) fileAt++
      const table = chunks.get(e.name)?.table
      if (table && lastOfTable.get(table.name) === at) {
        const wrong = tableProblem(table, names)
        if (wrong) return wrong
      }
    }
    for (const table of manifest.tables) {
      if (lastOfTable.has(table.name)) continue
      const wrong = tableProblem(table, names)
      if (wrong) return wrong
    }
    if (manifest.secrets.included && !names.has(SECRETS_ENTRY))
      return problem(SECRETS_ENTRY, `${SECRETS_ENTRY} is missing from the archive.`)
    return broke

    function entryProblem(e: Digest, at: number, twice: boolean, fileAt: number): VerifyProblem | undefined {
      const m = manifest!
      if (twice) return problem(e.name, `${e.name} appears twice in the archive.`)
      if (hashAt !== -1 && at > hashAt)
        return problem(e.name, `${e.name} follows ${MANIFEST_HASH_ENTRY}, which ends a backup.`)
      if (e.name === HEADER_ENTRY || e.name === MANIFEST_ENTRY || e.name === MANIFEST_HASH_ENTRY) return undefined
      if (e.name === FILES_INDEX_ENTRY) {
        if (index.lines !== fileAt)
          return problem(e.name, `${e.name} lists ${index.lines} files; the archive holds ${fileAt} before it.`)
        if (m.files.count !== index.lines || m.files.bytes !== index.bytes)
          return problem(
            e.name,
            `The manifest counts ${m.files.count} files of ${m.files.bytes} bytes; ${e.name} lists ${index.lines} of ${index.bytes}.`,
          )
        return undefined
      }
      if (e.name === SECRETS_ENTRY) {
        if (!m.secrets.included)
          return problem(e.name, `${e.name} is in the archive, but the manifest says it holds no secrets.`)
        if ((m.secrets.bytes ?? e.bytes) !== e.bytes || (m.secrets.sha256 ?? e.sha256) !== e.sha256)
          return problem(e.name, `${e.name} does not match its checksum in the manifest.`)
        return undefined
      }
      if (e.name.startsWith(DATA_PREFIX)) {
        const chunk = chunks.get(e.name)
        if (!chunk) return problem(e.name, `${e.name} is not in the manifest.`)
        if (chunk.bytes !== e.bytes)
          return problem(e.name, `${e.name} is ${e.bytes} bytes; the manifest says ${chunk.bytes}.`)
        if (chunk.sha256 !== e.sha256) return problem(e.name, `${e.name} does not match its checksum in the manifest.`)
        if (chunk.rows !== e.rows)
          return problem(e.name, `${e.name} holds ${e.rows} rows; the manifest says ${chunk.rows}.`)
        return undefined
      }
      if (e.name.startsWith(FILES_PREFIX)) {
        if (index.mismatch?.at === fileAt) return problem(e.name, index.mismatch.message)
        if (fileAt >= index.lines || at > indexAt)
          return problem(e.name, `${e.name} has no line in ${FILES_INDEX_ENTRY}.`)
        return undefined
      }
      return problem(e.name, `${e.name} is not part of a portal backup.`)
    }

    function tableProblem(table: ManifestTable, present: Set<string>): VerifyProblem | undefined {
      const last = table.chunks.at(-1)?.name ?? MANIFEST_ENTRY
      const missing = table.chunks.find((c) => !present.has(c.name))
      if (missing) return problem(missing.name, `${missing.name} is missing from the archive.`)
      const rows = table.chunks.reduce((sum, c) => sum + c.rows, 0)
      const bytes = table.chunks.reduce((sum, c) => sum + c.bytes, 0)
      if (rows !== table.rows || bytes !== table.bytes)
        return problem(
          last,
          `The chunks of ${table.name} hold ${rows} rows in ${bytes} bytes; the manifest counts ${table.rows} in ${table.bytes}.`,
        )
      const sha256 = (tableHashes.get(table.name) ?? createHash('sha256')).copy().digest('hex')
      if (sha256 !== table.sha256 && !foreign.has(table.name))
        return problem(last, `The data of ${table.name} does not match its checksum in the manifest.`)
      return undefined
    }
  }
}

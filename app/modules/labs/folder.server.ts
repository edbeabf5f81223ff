import { randomBytes } from 'node:crypto'
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { conflict, invalid } from '../errors.ts'
import { parseLabYaml, stringifyLab } from './format.ts'
import type { LabDefinition } from './schema.ts'
import { unzipEntry, zipEntries, type ZipEntry } from './zip.server.ts'

// A lab as its author keeps it in git: a folder with lab.yaml, the dataset's .sql file and the .csv files
// the dataset copies from, all at the top. Other files (a README, notes, .git) are the author's and are
// neither read nor touched. An admin uploads the same folder as a zip. docs/labs.md describes both.

/** A lab read whole: its definition, the SQL that builds its tables, and the CSV files that SQL copies from. */
export type LabFolder = {
  definition: LabDefinition
  datasetSql: string
  dataFiles: { name: string; content: Buffer }[]
}

const LAB_FILE = 'lab.yaml'
/** A CSV file of the folder: a plain name, not hidden (as the dataset's name is, in schema.ts). */
const CSV_NAME = /^[^/\\.\x00-\x1f][^/\\\x00-\x1f]{0,250}\.csv$/i

/** The most a lab may hold, read from a folder or a zip: far above a teaching dataset, far below a danger. */
export const LAB_FILES_LIMITS = { files: 200, bytes: 50 * 1024 * 1024 } as const

/** The files a lab is made of, by name; where they came from is in `source` (for messages). */
type LabFiles = { source: string; files: Map<string, Uint8Array> }

/** Whether a file at the top of a lab folder or zip is one the lab is read from (or lab.yml, to say so). */
const isLabFile = (name: string) => /^lab\.ya?ml$|\.(sql|csv)$/i.test(name)

/** Reads a lab folder: lab.yaml, the dataset it names and every .csv file at the top. */
export async function readLabFolder(dir: string): Promise<LabFolder> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw invalid(`There is no lab folder at ${dir}.`)
    if (error.code === 'ENOTDIR') throw invalid(`${dir} is a file, not a lab folder.`)
    throw invalid(`The folder ${dir} cannot be read (${error.code ?? error.message}).`)
  })
  const names: string[] = []
  let bytes = 0
  for (const entry of entries) {
    if (entry.name.startsWith('.') || !isLabFile(entry.name)) continue
    // a link could make the portal read (or, writing, overwrite) a file outside the folder
    if (entry.isSymbolicLink()) throw invalid(`${entry.name} in ${dir} is a symbolic link; put the file itself there.`)
    if (!entry.isFile()) continue
    bytes += (await lstat(path.join(dir, entry.name))).size
    names.push(entry.name)
  }
  checkLimits(`The folder ${dir}`, names.length, bytes)
  const files = new Map<string, Uint8Array>()
  for (const name of names) files.set(name, await readFile(path.join(dir, name)))
  return labFromFiles({ source: `the folder ${dir}`, files })
}

/**
 * Reads a lab from an uploaded zip: of the folder's files, or of the folder itself (every entry in one
 * top folder). __MACOSX/ and hidden files are ignored. Nothing is inflated before every entry's name,
 * type and declared size passed, and only the lab's own files are inflated then.
 */
export function readLabZip(bytes: Uint8Array): LabFolder {
  const entries = zipEntries(bytes, LAB_FILES_LIMITS.files)
  let declared = 0
  const kept: { entry: ZipEntry; parts: string[] }[] = []
  for (const entry of entries) {
    // every entry is judged, even one that is then ignored: a name that climbs out is never fine
    const parts = entryParts(entry.name)
    if (entry.symlink) throw invalid(`${entry.name} in the zip is a symbolic link; zip the file itself.`)
    declared += entry.size
    if (!entry.folder && parts.length > 0 && parts[0] !== '__MACOSX' && !parts.some((part) => part.startsWith('.')))
      kept.push({ entry, parts })
  }
  if (declared > LAB_FILES_LIMITS.bytes)
    throw invalid(
      `The zip unpacks to ${megabytes(declared)}; a lab may have at most ${megabytes(LAB_FILES_LIMITS.bytes)}.`,
    )
  const top = oneTopFolder(kept.map((k) => k.parts))
  const files = new Map<string, Uint8Array>()
  for (const { entry, parts } of kept) {
    const inLab = top ? parts.slice(1) : parts
    if (inLab.length !== 1 || !isLabFile(inLab[0])) continue
    if (files.has(inLab[0])) throw invalid(`The zip holds ${inLab[0]} twice.`)
    files.set(inLab[0], unzipEntry(bytes, entry))
  }
  if (!files.has(LAB_FILE)) {
    const deeper = kept.find((k) => k.parts.at(-1) === LAB_FILE)?.entry.name
    if (deeper)
      throw invalid(
        `The zip has ${deeper}, too deep: zip the lab's folder, or its files, so that lab.yaml is at the top or in the one folder at the top.`,
      )
  }
  return labFromFiles({ source: 'the zip', files })
}

/** An entry's name as its folders and file; refused when absolute, climbing out with .., or with a backslash. */
function entryParts(name: string): string[] {
  if (name.includes('\\'))
    throw invalid(`${name} in the zip has a \\ in its name; zip the lab with a tool that writes / between folders.`)
  if (name.startsWith('/') || /^[a-z]:/i.test(name)) throw invalid(`${name} in the zip has an absolute path.`)
  if (/[\x00-\x1f]/.test(name)) throw invalid(`An entry of the zip has a control character in its name.`)
  const parts = name.split('/').filter((part) => part !== '' && part !== '.')
  if (parts.includes('..')) throw invalid(`${name} in the zip climbs out of the folder with .. in its name.`)
  return parts
}

/** Whether every entry sits in one top folder, which is then the lab's folder. */
function oneTopFolder(entries: string[][]) {
  const first = entries[0]?.[0]
  return entries.length > 0 && entries.every((parts) => parts.length > 1 && parts[0] === first)
}

/** Refuses a folder's lab files beyond LAB_FILES_LIMITS; `what` starts the message. */
function checkLimits(what: string, files: number, bytes: number) {
  if (files > LAB_FILES_LIMITS.files)
    throw invalid(`${what} holds ${files} lab files; a lab may have at most ${LAB_FILES_LIMITS.files}.`)
  if (bytes > LAB_FILES_LIMITS.bytes)
    throw invalid(
      `${what} holds ${megabytes(bytes)} of lab files; a lab may have at most ${megabytes(LAB_FILES_LIMITS.bytes)}.`,
    )
}

const megabytes = (bytes: number) => `${Math.ceil(bytes / (1024 * 1024))} MB`

/**
 * A lab from its files (a folder's or a zip's top level): lab.yaml checked, the dataset it names
 * present, every file the lab reads UTF-8 text.
 */
function labFromFiles({ source, files }: LabFiles): LabFolder {
  const yaml = files.get(LAB_FILE)
  if (!yaml) throw invalid(`${capitalized(source)} has no ${LAB_FILE}${nearName(files)}.`)
  const parsed = parseLabYaml(textOf(LAB_FILE, yaml))
  if (!parsed.ok) throw invalid(`${LAB_FILE} is not a valid lab: ${listed(parsed.errors)}`)
  const { definition } = parsed
  const sql = files.get(definition.dataset)
  if (!sql) throw invalid(`${LAB_FILE} names the dataset ${definition.dataset}, but ${source} ${sqlFilesIn(files)}.`)
  const dataFiles = [...files.keys()]
    .filter((name) => CSV_NAME.test(name))
    .sort()
    .map((name) => ({ name, content: csvContent(name, files.get(name)!) }))
  return { definition, datasetSql: textOf(definition.dataset, sql), dataFiles }
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** A file named almost lab.yaml is the likeliest reason there is none. */
function nearName(files: Map<string, Uint8Array>) {
  const near = [...files.keys()].find((name) => /^lab\.ya?ml$/i.test(name))
  return near ? ` (it has ${near}; the file must be named exactly ${LAB_FILE})` : ''
}

function sqlFilesIn(files: Map<string, Uint8Array>) {
  const sql = [...files.keys()].filter((name) => /\.sql$/i.test(name))
  return sql.length ? `has no such file (its .sql files: ${sql.join(', ')})` : 'has no .sql file'
}

/** The first problems of a lab.yaml, enough to start fixing; the rest show once those are fixed. */
function listed(errors: string[], most = 10) {
  const shown = errors.slice(0, most).join('; ')
  return errors.length > most ? `${shown}; and ${errors.length - most} more.` : `${shown}.`
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** A file read as UTF-8 text (a BOM dropped); anything else is refused by name. */
function textOf(name: string, bytes: Uint8Array) {
  // UTF-16 decodes as UTF-8 without a fault, but with NUL bytes between the letters
  if (bytes.includes(0))
    throw invalid(`${name} is not text: it holds NUL bytes (a binary file, or text saved as UTF-16). Save it as UTF-8.`)
  try {
    return utf8.decode(bytes)
  } catch {
    throw invalid(`${name} is not UTF-8 text. Save it as UTF-8.`)
  }
}

/**
 * A CSV file as COPY will read it: UTF-8 text (checked here, where the file can be named), without the
 * BOM a spreadsheet's "CSV UTF-8" starts with, which COPY would take for part of the first value.
 */
function csvContent(name: string, bytes: Uint8Array) {
  textOf(name, bytes)
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
  return Buffer.from(bom ? bytes.subarray(3) : bytes)
}

/**
 * Writes a lab folder: lab.yaml, the dataset and the CSV files. The folder is made when missing; an
 * existing one must be empty or already a lab's folder (it has a lab.yaml), which is then updated:
 * the lab's files are replaced, .csv files and an old dataset the lab no longer has are removed, and
 * the author's other files stay. A folder the portal did not make is never filled with a lab's files
 * by mistake, and an author's checkout can be written over with an edited lab (git keeps what was).
 */
export async function writeLabFolder(dir: string, folder: LabFolder): Promise<void> {
  const yaml = checkedYaml(folder)
  const existing = await labFolderState(dir)
  await mkdir(dir, { recursive: true })
  for (const file of folder.dataFiles) await replaceFile(dir, file.name, file.content)
  await replaceFile(dir, folder.definition.dataset, folder.datasetSql)
  // after its files, so a folder whose writing broke off never names a dataset it does not have
  await replaceFile(dir, LAB_FILE, yaml)
  const keep = new Set([LAB_FILE, folder.definition.dataset, ...folder.dataFiles.map((f) => f.name)])
  for (const name of existing.stale) if (!keep.has(name)) await rm(path.join(dir, name), { force: true })
}

/** lab.yaml for the folder, refused unless it reads back as the same lab with files a folder can hold. */
function checkedYaml({ definition, dataFiles }: LabFolder) {
  const yaml = stringifyLab(definition)
  const parsed = parseLabYaml(yaml)
  if (!parsed.ok) throw invalid(`The lab is not valid: ${listed(parsed.errors)}`)
  const seen = new Set<string>()
  for (const { name } of dataFiles) {
    if (!CSV_NAME.test(name)) throw invalid(`${name} is not a name for a lab's CSV file (a plain name ending in .csv).`)
    if (seen.has(name)) throw invalid(`The lab has two CSV files named ${name}.`)
    seen.add(name)
  }
  return yaml
}

/**
 * Whether a lab may be written to `dir`, and the files of the lab already there that the new one may no
 * longer have: its .csv files and the dataset its lab.yaml names.
 */
async function labFolderState(dir: string): Promise<{ stale: string[] }> {
  const info = await lstat(dir).catch(() => undefined)
  if (!info) return { stale: [] }
  if (!info.isDirectory()) throw invalid(`${dir} is not a folder.`)
  const entries = await readdir(dir, { withFileTypes: true })
  if (entries.length === 0) return { stale: [] }
  const lab = entries.find((e) => e.name === LAB_FILE && e.isFile())
  if (!lab)
    throw conflict(
      `${dir} is not empty and holds no ${LAB_FILE}; write the lab to an empty folder or to a lab's folder.`,
    )
  const stale = entries.filter((e) => e.isFile() && CSV_NAME.test(e.name)).map((e) => e.name)
  const old = parseLabYaml(await readFile(path.join(dir, LAB_FILE), 'utf8'))
  // an old lab.yaml that does not parse names no dataset to remove: that file is left to the author
  if (old.ok) stale.push(old.definition.dataset)
  return { stale }
}

/**
 * Writes a file through a new file renamed over the old: a reader never sees half a file, and a link
 * of that name is replaced rather than followed to wherever it points.
 */
async function replaceFile(dir: string, name: string, content: string | Uint8Array) {
  const temporary = path.join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`)
  await writeFile(temporary, content, { flag: 'wx' })
  try {
    await rename(temporary, path.join(dir, name))
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}

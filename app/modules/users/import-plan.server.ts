import type { Readable } from 'node:stream'
import { parse } from 'csv-parse'
import { db } from '#db/client.ts'
import { canManageContent, type Actor } from '../auth/roles.ts'
import { forbidden, notFound } from '../errors.ts'
import { storage } from '../files/storage.server.ts'
import type { ImportPreview } from './import-files.server.ts'
import { importColumnOf, type ImportColumn, type ImportDelimiter } from './import-schema.ts'
import { importUsers, sniffDelimiter, type ImportCounts } from './import.server.ts'

// Which rows of an uploaded file the import would create and which it would update: the first few of
// each, for the dry run's table. The engine tells only counts, after every batch; so the start of the
// file is dry-run once more a row at a time (each count that moves names the row's fate) and read beside
// it with the same CSV settings, to show the row's values. Passwords are never read out.

/** rows shown of each kind */
export const PLAN_SHOWN = 50
/** rows of the file looked at, at most, to find them */
export const PLAN_SCAN = 500

/** A row the import would write, as the dry run's table shows it (no password). */
export type PlannedRow = {
  row: number
  firstName: string
  lastName: string
  email: string
  userName: string
  /** as the file gives it; empty for the default */
  role: string
  courses: string
  programs: string
}

export type ImportPlan = { create: PlannedRow[]; update: PlannedRow[] }

type ParsedRecord = { line: number; cells: string[] }

class Enough extends Error {}

/**
 * The first rows to create and to update in a file this admin uploaded and dry-ran (`preview`). Rows
 * beyond PLAN_SCAN are not looked at: the counts of the dry run tell how many more there are.
 */
export async function planImport(actor: Actor, preview: ImportPreview): Promise<ImportPlan> {
  if (!canManageContent(actor.roleId) || !actor.id) throw forbidden('Only admins can import users.')
  const plan: ImportPlan = { create: [], update: [] }
  const wanted = {
    create: Math.min(PLAN_SHOWN, preview.counts.created),
    update: Math.min(PLAN_SHOWN, preview.counts.updated),
  }
  if (wanted.create === 0 && wanted.update === 0) return plan

  const { StoredFile } = await db()
  const file = await StoredFile.findByPk(preview.key)
  if (!file || file.purpose !== 'user_import' || file.uploadedBy !== actor.id)
    throw notFound('The uploaded file is gone; upload it again.')
  const open = async () => {
    const stored = await storage().get(preview.key)
    if (!stored) throw notFound('The uploaded file is gone; upload it again.')
    return stored.body
  }
  const delimiter = preview.choices.delimiter === 'auto' ? undefined : preview.choices.delimiter
  const [header, ...records] = await firstRecords(await open(), delimiter, PLAN_SCAN + 1)
  if (!header) return plan
  const index = new Map<ImportColumn, number>()
  header.cells.forEach((name, i) => {
    const column = importColumnOf(name.trim())
    if (column && !index.has(column)) index.set(column, i)
  })
  const planned = ({ line, cells }: ParsedRecord): PlannedRow => {
    const cell = (column: ImportColumn) => {
      const i = index.get(column)
      return i === undefined ? '' : (cells[i] ?? '').trim()
    }
    return {
      row: line,
      firstName: cell('firstName'),
      lastName: cell('lastName'),
      email: cell('email'),
      userName: cell('userName'),
      role: cell('role'),
      courses: cell('courses'),
      programs: cell('programs'),
    }
  }

  // one record a batch: after the n-th batch the counts have moved by what the n-th record did
  let before: ImportCounts = { rows: 0, created: 0, updated: 0, skipped: 0, assigned: 0, failed: 0 }
  let batches = 0
  const full = () => plan.create.length >= wanted.create && plan.update.length >= wanted.update
  try {
    await importUsers(actor, await open(), {
      dryRun: true,
      onExisting: preview.choices.onExisting,
      delimiter,
      batchSize: 1,
      onProgress: (counts) => {
        const record = records[batches++]
        if (record && counts.created > before.created && plan.create.length < wanted.create)
          plan.create.push(planned(record))
        if (record && counts.updated > before.updated && plan.update.length < wanted.update)
          plan.update.push(planned(record))
        before = { ...counts }
        if (full() || batches >= records.length) throw new Enough()
      },
    })
  } catch (error) {
    if (!(error instanceof Enough)) throw error
  }
  return plan
}

/**
 * The file's first `count` records (the header first) with the line each starts on, read with the
 * import's own CSV settings. A file that breaks off gives the records before the break.
 */
async function firstRecords(source: Readable, delimiter: ImportDelimiter | undefined, count: number) {
  const records: ParsedRecord[] = []
  let lastEnd = 0
  let emptySoFar = 0
  let head: Buffer = Buffer.alloc(0)
  let parser: ReturnType<typeof parse> | undefined
  let broken = false
  const start = (firstLine: string) =>
    parse({
      bom: true,
      delimiter: delimiter ?? sniffDelimiter(firstLine),
      relax_column_count: true,
      skip_empty_lines: true,
      on_record: (cells: string[], context) => {
        // the line the record starts on, counted as the import counts it
        records.push({ line: lastEnd + 1 + (context.empty_lines - emptySoFar), cells })
        lastEnd = context.lines
        emptySoFar = context.empty_lines
        return null
      },
    })
      .on('error', () => (broken = true))
      .resume()
  const write = (p: ReturnType<typeof parse>, chunk: Buffer) =>
    new Promise<void>((resolve) => p.write(chunk, () => resolve()))
  try {
    for await (const chunk of source as AsyncIterable<Buffer | string>) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      if (!parser) {
        head = Buffer.concat([head, bytes])
        const newline = head.indexOf(10)
        if (newline < 0) continue
        parser = start(
          head
            .subarray(0, newline)
            .toString('utf8')
            .replace(/^\uFEFF/, ''),
        )
        await write(parser, head)
      } else await write(parser, bytes)
      if (broken || records.length >= count) break
    }
    if (!parser && head.length) {
      parser = start(head.toString('utf8').replace(/^\uFEFF/, ''))
      await write(parser, head)
    }
    if (parser && !broken && records.length < count) await new Promise<void>((resolve) => parser!.end(resolve))
  } finally {
    source.destroy()
  }
  return records.slice(0, count)
}

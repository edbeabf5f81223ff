import type { Readable } from 'node:stream'
import { parse, type CsvError } from 'csv-parse'
import { invalid } from '../errors.ts'
import { sniffDelimiter, type CsvDelimiter } from './sniff.ts'

// An imported CSV file, read record by record with the line each starts on. Records are taken from the
// parser as it makes them: read through a stream, those parsed in the same chunk as a broken line would be
// lost with the stream's error, and the line would be counted from the last one read. A line that is not
// CSV ends the reading there and is named, in words an admin can act on, so an import can say which rows
// before it were handled.

/** The header line must end within this many bytes. */
const HEAD_LIMIT = 1024 * 1024

/** A record of the file: the line it starts on (blank lines and line breaks inside quotes counted) and its cells. */
export type CsvRecord = { line: number; cells: string[] }

/** Where the file stopped being CSV: the line of the record it broke in, and why, in words naming the line. */
type CsvBreak = { line: number; reason: string }

export type CsvReaderOptions = {
  /** read from the header line when not given */
  delimiter?: CsvDelimiter
}

/**
 * The records of a CSV file (UTF-8 with or without a BOM, CRLF or LF; empty lines skipped), through
 * `records` or `for await`. When a line cannot be read, the records before it are all given, then the
 * reading ends with `broken` set. A file that is not text, or whose first line never ends, is a 400 error
 * before any record.
 */
export class CsvReader implements AsyncIterable<CsvRecord> {
  /** the bytes of the file handed to the parser so far */
  bytes = 0
  /** set when the reading ended at a line that is not CSV */
  broken: CsvBreak | undefined
  readonly records: AsyncGenerator<CsvRecord>

  constructor(
    private source: Readable,
    private options: CsvReaderOptions = {},
  ) {
    this.records = this.read()
  }

  [Symbol.asyncIterator]() {
    return this.records
  }

  private async *read(): AsyncGenerator<CsvRecord> {
    const chunks = this.source[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>
    try {
      const head = await readHead(chunks)
      const lines = new LineCounter()
      const parsed: CsvRecord[] = []
      const parser = parse({
        bom: true,
        delimiter: this.options.delimiter ?? sniffDelimiter(head.firstLine),
        relax_column_count: true,
        skip_empty_lines: true,
        on_record: (record: string[], context) => {
          parsed.push({ line: lines.startOf(record, context), cells: record })
          return null
        },
      })
      let failure: CsvError | undefined
      parser.on('error', (error: CsvError) => (failure ??= error))
      parser.resume()
      // a failing write or end calls back too (the listener above keeps the error)
      const write = (chunk: Buffer | null) =>
        new Promise<void>((resolve) => {
          if (chunk === null) return parser.end(() => resolve())
          this.bytes += chunk.length
          parser.write(chunk, () => resolve())
        })
      await write(head.bytes)
      let ended = head.ended
      if (ended) await write(null)
      for (;;) {
        while (parsed.length > 0) yield parsed.shift()!
        if (failure) {
          this.broken = brokenLine(failure, lines)
          return
        }
        if (ended) return
        const next = await chunks.next()
        ended = next.done === true
        await write(next.done ? null : asBuffer(next.value))
      }
    } finally {
      // the file is read no further, however the reading ended
      await chunks.return?.()
    }
  }
}

const asBuffer = (chunk: Buffer | string) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)

/** The start of the file, up to its first line break: enough to check it is text and to find the separator. */
async function readHead(chunks: AsyncIterator<Buffer | string>) {
  const parts: Buffer[] = []
  let size = 0
  let ended = false
  for (;;) {
    const next = await chunks.next()
    if (next.done) {
      ended = true
      break
    }
    const chunk = asBuffer(next.value)
    parts.push(chunk)
    size += chunk.length
    if (chunk.includes(10) || size > HEAD_LIMIT) break
  }
  const bytes = Buffer.concat(parts)
  if (bytes.includes(0))
    throw invalid('The file is not CSV text: it holds NUL bytes (a binary file, or text saved as UTF-16).')
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '')
  const newline = text.indexOf('\n')
  if (newline < 0 && size > HEAD_LIMIT) throw invalid('The file is not CSV text: its first line never ends.')
  return { bytes, ended, firstLine: newline < 0 ? text : text.slice(0, newline) }
}

const LINE_BREAK = /\r\n|\r|\n/g

/**
 * The line each record starts on, counted as an editor shows the file: from the blank lines the parser
 * skipped and the line breaks inside the quoted values before it. The parser's own count takes a CRLF
 * inside quotes for two lines, so it is used only to place a fault it reports, less what it ran ahead.
 */
class LineCounter {
  private lastEnd = 0
  private blankSoFar = 0
  /** how many lines the parser's count is ahead of ours at the end of the last record */
  private drift = 0

  startOf(cells: string[], context: { lines: number; empty_lines: number }) {
    const start = this.lastEnd + 1 + (context.empty_lines - this.blankSoFar)
    let breaks = 0
    for (const cell of cells) breaks += cell.match(LINE_BREAK)?.length ?? 0
    this.lastEnd = start + breaks
    this.blankSoFar = context.empty_lines
    this.drift = context.lines - this.lastEnd
    return start
  }

  /** where the record the parser stopped in starts */
  next(error: CsvError) {
    const blank = typeof error.empty_lines === 'number' ? error.empty_lines : this.blankSoFar
    return this.lastEnd + 1 + Math.max(0, blank - this.blankSoFar)
  }

  /** the line the parser found its fault on, in our count */
  faultOf(error: CsvError) {
    return typeof error.lines === 'number' ? error.lines - this.drift : undefined
  }
}

function brokenLine(error: CsvError, lines: LineCounter): CsvBreak {
  const line = lines.next(error)
  // the parser's own line is where it found the fault, within the record that starts at `line`
  const fault = lines.faultOf(error)
  const at = fault !== undefined && fault >= line ? fault : line
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      // noticed only at the end of the file: the broken value starts with the record
      return { line, reason: `a quoted value starts on line ${line} and is never closed (the file may be cut off)` }
    case 'INVALID_OPENING_QUOTE':
      return { line, reason: `line ${at} has a quote inside a value that is not quoted` }
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return { line, reason: `line ${at} has text right after a closing quote` }
    default:
      return { line, reason: `line ${at} is not valid CSV (${error.message.split(':')[0]})` }
  }
}

/** A file read no further than a break, where nothing can be said of rows before it: its header, a list. */
export function unreadableMessage(broken: CsvBreak) {
  return `The file cannot be read: ${broken.reason}.`
}

/**
 * An import the file broke off in: where, why, and what became of the rows before the broken line
 * (`kept`: they were written as the import reported them; otherwise nothing was).
 */
export function stoppedMessage(broken: CsvBreak, { rowsBefore, kept }: { rowsBefore: number; kept: boolean }) {
  const { line, reason } = broken
  const outcome =
    kept && rowsBefore > 0
      ? `${rowsBefore === 1 ? 'The 1 row before it was' : `The ${rowsBefore} rows before it were`} handled as reported; nothing from line ${line} on was imported.`
      : 'Nothing was imported.'
  return `The file cannot be read past line ${line - 1}: ${reason}. ${outcome}`
}

import { Transform, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { stringify, type Stringifier } from 'csv-stringify'
import { neutraliseFormula } from './formula.ts'

// Every CSV the portal writes: the exports (the users list, the access log) and the error files of the
// imports. One set of rules, so a file opens alike in any spreadsheet and reads back into the imports.

/**
 * Records (arrays of cells) in, CSV text out. RFC 4180: records end in CRLF, and a value holding a line
 * break of any kind (a lone LF or CR too, which csv-stringify only quotes when it is the whole record
 * delimiter) goes in quotes. Every text cell, the header's too, has a formula neutralised.
 */
export function csvWriter(header?: readonly string[]): Stringifier {
  return stringify({
    ...(header ? { header: true, columns: [...header] } : {}),
    record_delimiter: 'windows',
    quoted_match: /[\r\n]/,
    cast: { string: (cell) => neutraliseFormula(cell) },
  })
}

/** A cell as the exports write it: text (neutralised), a number as it is, or nothing. */
type CsvCell = string | number | null

/** An export's items in, CSV text out: the header line, then `cellsOf` each item, in the header's order. */
export function csvRecords<T>(header: readonly string[], cellsOf: (item: T) => CsvCell[]): Transform[] {
  const records = new Transform({
    objectMode: true,
    transform(item: T, _encoding, done) {
      done(null, cellsOf(item))
    },
  })
  return [records, csvWriter(header)]
}

/**
 * The CSV of an import's failing rows that an admin downloads: `row` (the line in the file), `field`,
 * `message`, then the row's own columns. Rows are written as they fail and each write waits while the
 * sink is behind, so a file with many failing rows never piles up in memory. A sink that fails fails the
 * next write (and `end`).
 */
export class ErrorCsv {
  private csv = csvWriter()
  private done: Promise<void>
  private headed = false

  constructor(sink: Writable) {
    this.done = pipeline(this.csv, sink)
    // reported by the write or the end that meets it
    this.done.catch(() => undefined)
  }

  /** The header line, with the file's own column names after the three of the report (once). */
  async header(columns: readonly string[]) {
    if (this.headed) return
    this.headed = true
    await this.write(['row', 'field', 'message', ...columns])
  }

  /** One problem: the row's line (none for the file as a whole), the column at fault, why, the row's cells. */
  async row(line: number | null, field: string, message: string, cells: readonly string[] = []) {
    await this.header([])
    await this.write([line === null ? '' : String(line), field, message, ...cells])
  }

  /** Finish the file: resolves once the sink has all of it. */
  async end() {
    if (!this.csv.writableEnded && !this.csv.destroyed) this.csv.end()
    await this.done
  }

  /** Give the file up: the sink is closed unfinished. */
  async abort() {
    this.csv.destroy()
    await this.done.catch(() => undefined)
  }

  private async write(cells: string[]) {
    if (this.csv.writableEnded || this.csv.destroyed) return this.done
    if (this.csv.write(cells)) return
    await Promise.race([new Promise((resolve) => this.csv.once('drain', resolve)), this.done])
  }
}

import { parse } from 'csv-parse/sync'

// Which separator a file uses, read from its header line: spreadsheets save commas, semicolons where the
// comma is the decimal mark, and tabs for "tab-delimited text".

/** The separators a file is read with, in the order a tie is settled. */
const CSV_DELIMITERS = [',', ';', '\t'] as const
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number]

/**
 * The separator that splits the header line into the most cells, read as CSV (so one inside a quoted
 * name does not count); a comma when none splits it.
 */
export function sniffDelimiter(headerLine: string): CsvDelimiter {
  let best: { delimiter: CsvDelimiter; cells: number } = { delimiter: ',', cells: 1 }
  for (const delimiter of CSV_DELIMITERS) {
    const cells = cellsOf(headerLine, delimiter)
    if (cells > best.cells) best = { delimiter, cells }
  }
  return best.delimiter
}

function cellsOf(line: string, delimiter: CsvDelimiter) {
  try {
    const [record] = parse(line, { bom: true, delimiter, relax_column_count: true }) as string[][]
    return record?.length ?? 0
  } catch {
    // a quote this separator cannot explain: the line is not written with it
    return 0
  }
}

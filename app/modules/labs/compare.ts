// A lab grades a learner's result against the reference query's. Both arrive as PostgreSQL's text output of each
// value, and are compared as that text: the learner sees 1.50 and 1.5 as different values in psql, and so does the
// grade. Rows are counted by a key per row in a Map, never searched for, so a result of 100,000 rows compares in
// linear time.

export type Cell = string | null // PostgreSQL's text output of a value; null is SQL NULL
export type ResultSet = { columns: string[]; rows: Cell[][] }
export type Difference = {
  passed: boolean
  message: string // one or two plain sentences for the learner
  missingRows: Cell[][] // expected rows the learner's result lacks (at most `show`)
  extraRows: Cell[][] // rows the learner's result has too many of (at most `show`), in the expected column order
  wrongOrder: boolean
  columns?: { expected: string[]; actual: string[] } // set when the columns do not match
}

type Rules = { order: 'strict' | 'any'; columns: 'names' | 'positions'; show?: number }

/**
 * Whether the learner's result is the expected one: the same columns (by name in any order, or by count), then the
 * same rows, counted with their duplicates, in the same order when the exercise asks for one.
 */
export function compareResults(expected: ResultSet, actual: ResultSet, rules: Rules): Difference {
  const show = Math.max(0, rules.show ?? 10)
  const order =
    rules.columns === 'names' ? matchNames(expected.columns, actual.columns) : samePositions(expected, actual)
  if (!order) {
    const message =
      rules.columns === 'names'
        ? `The columns differ: expected ${listed(expected.columns)}; got ${listed(actual.columns)}.`
        : `The columns differ: expected ${columnCount(expected.columns.length)}, got ${actual.columns.length}.`
    const columns = { expected: expected.columns, actual: actual.columns }
    return { passed: false, message, missingRows: [], extraRows: [], wrongOrder: false, columns }
  }

  // the learner's columns, put in the expected order
  const rows = order === 'same' ? actual.rows : actual.rows.map((row) => order.map((index) => row[index]))
  const expectedKeys = expected.rows.map(rowKey)
  const actualKeys = rows.map(rowKey)

  // how many more of each row were expected than given: above 0 missing, below 0 extra
  const balance = new Map<string, number>()
  for (const key of expectedKeys) balance.set(key, (balance.get(key) ?? 0) + 1)
  for (const key of actualKeys) balance.set(key, (balance.get(key) ?? 0) - 1)
  let missing = 0
  let extra = 0
  for (const count of balance.values()) {
    if (count > 0) missing += count
    else extra -= count
  }

  if (missing > 0 || extra > 0) {
    const message = `${countsMessage(missing, extra)} Expected ${rowCount(expected.rows.length)}, got ${rows.length}.`
    return {
      passed: false,
      message,
      missingRows: unmatched(expected.rows, expectedKeys, balance, 1, show),
      extraRows: unmatched(rows, actualKeys, balance, -1, show),
      wrongOrder: false,
    }
  }

  const outOfPlace = rules.order === 'strict' ? expectedKeys.findIndex((key, i) => key !== actualKeys[i]) : -1
  if (outOfPlace >= 0) {
    const message = `The rows are right, but not in the order asked for. Row ${outOfPlace + 1} is the first out of place.`
    return { passed: false, message, missingRows: [], extraRows: [], wrongOrder: true }
  }
  const message = `Passed: ${expected.rows.length === 0 ? 'no rows' : rowCount(expected.rows.length)}, as expected.`
  return { passed: true, message, missingRows: [], extraRows: [], wrongOrder: false }
}

/**
 * For each expected column, the index of the learner's column of that name (case-insensitively); a name given twice
 * matches its occurrences in turn. Undefined when a column is missing, extra or named otherwise.
 */
function matchNames(expected: string[], actual: string[]): number[] | undefined {
  if (expected.length !== actual.length) return undefined
  const byName = new Map<string, number[]>()
  actual.forEach((name, index) => {
    const key = name.toLowerCase()
    const indexes = byName.get(key) ?? []
    indexes.push(index)
    byName.set(key, indexes)
  })
  const order: number[] = []
  for (const name of expected) {
    const index = byName.get(name.toLowerCase())?.shift()
    if (index === undefined) return undefined
    order.push(index)
  }
  return order
}

const samePositions = (expected: ResultSet, actual: ResultSet) =>
  expected.columns.length === actual.columns.length ? 'same' : undefined

// JSON tells NULL from 'NULL' and from '', and a cell's own commas or quotes from the cells' boundaries
const rowKey = (row: Cell[]) => JSON.stringify(row)

/** The first `show` rows whose key is left over on the given side (1 missing, -1 extra), in the result's order. */
function unmatched(rows: Cell[][], keys: string[], balance: Map<string, number>, side: 1 | -1, show: number) {
  const left = new Map(balance)
  const found: Cell[][] = []
  for (let i = 0; i < rows.length && found.length < show; i++) {
    const count = (left.get(keys[i]) ?? 0) * side
    if (count > 0) {
      found.push(rows[i])
      left.set(keys[i], (count - 1) * side)
    }
  }
  return found
}

function countsMessage(missing: number, extra: number): string {
  const missingWords = `${rowCount(missing)} ${missing === 1 ? 'is' : 'are'} missing`
  const extraWords = `${rowCount(extra)} ${extra === 1 ? 'is' : 'are'} extra`
  if (missing > 0 && extra > 0) return `${missingWords} and ${extraWords}.`
  return `${missing > 0 ? missingWords : extraWords}.`
}

const rowCount = (count: number) => `${count} ${count === 1 ? 'row' : 'rows'}`
const columnCount = (count: number) => `${count} ${count === 1 ? 'column' : 'columns'}`
const listed = (names: string[]) => (names.length > 0 ? names.join(', ') : 'no columns')

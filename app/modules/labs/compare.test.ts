import { describe, expect, it } from 'vitest'
import { type Cell, compareResults, type Difference, type ResultSet } from './compare.ts'

const ANY = { order: 'any', columns: 'names' } as const
const STRICT = { order: 'strict', columns: 'names' } as const

const result = (columns: string[], rows: Cell[][]): ResultSet => ({ columns, rows })
const totals = (...rows: Cell[][]) => result(['region', 'total'], rows)

const NORTH = ['North', '120.50']
const SOUTH = ['South', '80.00']
const EAST = ['East', '42.00']

describe('comparing results', () => {
  it('passes the same rows, and counts them', () => {
    const rows = Array.from({ length: 12 }, (_, i) => [`r${i}`, `${i}`])
    expect(compareResults(totals(...rows), totals(...rows), ANY)).toEqual({
      passed: true,
      message: 'Passed: 12 rows, as expected.',
      missingRows: [],
      extraRows: [],
      wrongOrder: false,
    } satisfies Difference)
    expect(compareResults(totals(NORTH), totals(NORTH), STRICT).message).toBe('Passed: 1 row, as expected.')
    expect(compareResults(totals(), totals(), STRICT).message).toBe('Passed: no rows, as expected.')
  })

  it('lists the rows missing and the rows extra', () => {
    const difference = compareResults(totals(NORTH, SOUTH, EAST), totals(NORTH, ['West', '1.00']), ANY)
    expect(difference).toEqual({
      passed: false,
      message: '2 rows are missing and 1 row is extra. Expected 3 rows, got 2.',
      missingRows: [SOUTH, EAST],
      extraRows: [['West', '1.00']],
      wrongOrder: false,
    })
    expect(compareResults(totals(NORTH, SOUTH), totals(NORTH), ANY).message).toBe(
      '1 row is missing. Expected 2 rows, got 1.',
    )
    expect(compareResults(totals(NORTH), totals(NORTH, SOUTH, EAST), ANY).message).toBe(
      '2 rows are extra. Expected 1 row, got 3.',
    )
  })

  it('counts duplicates: two equal rows expected and one given is one missing', () => {
    expect(compareResults(totals(NORTH, NORTH, SOUTH), totals(SOUTH, NORTH), ANY)).toMatchObject({
      passed: false,
      message: '1 row is missing. Expected 3 rows, got 2.',
      missingRows: [NORTH],
      extraRows: [],
    })
    expect(compareResults(totals(NORTH), totals(NORTH, NORTH, NORTH), STRICT)).toMatchObject({
      passed: false,
      message: '2 rows are extra. Expected 1 row, got 3.',
      extraRows: [NORTH, NORTH],
      wrongOrder: false,
    })
  })

  it('tells NULL from the text NULL and from an empty string', () => {
    const nulls = totals(['North', null])
    expect(compareResults(nulls, totals(['North', 'NULL']), ANY)).toMatchObject({
      passed: false,
      missingRows: [['North', null]],
      extraRows: [['North', 'NULL']],
    })
    expect(compareResults(nulls, totals(['North', '']), ANY).passed).toBe(false)
    expect(compareResults(totals(['North', '']), totals(['North', 'NULL']), ANY).passed).toBe(false)
    expect(compareResults(nulls, totals(['North', null]), STRICT).passed).toBe(true)
  })

  it('keeps each cell whole, whatever commas or quotes it holds', () => {
    const pair = (a: Cell, b: Cell) => result(['a', 'b'], [[a, b]])
    expect(compareResults(pair('x,', 'y'), pair('x', ',y'), ANY).passed).toBe(false)
    expect(compareResults(pair('"', '"'), pair('","', ''), ANY).passed).toBe(false)
    expect(compareResults(pair('1.50', 'x'), pair('1.5', 'x'), ANY).passed).toBe(false)
  })

  it('shows at most `show` rows of each, and counts them all', () => {
    const many = Array.from({ length: 30 }, (_, i) => [`r${i}`, `${i}`])
    const difference = compareResults(totals(...many), totals(), ANY)
    expect(difference.message).toBe('30 rows are missing. Expected 30 rows, got 0.')
    expect(difference.missingRows).toEqual(many.slice(0, 10))
    expect(compareResults(totals(), totals(...many), { ...ANY, show: 3 }).extraRows).toEqual(many.slice(0, 3))
    expect(compareResults(totals(), totals(...many), { ...ANY, show: 0 }).extraRows).toEqual([])
  })
})

describe('the order of the rows', () => {
  it('does not matter under any', () => {
    expect(compareResults(totals(NORTH, SOUTH, EAST), totals(EAST, NORTH, SOUTH), ANY).passed).toBe(true)
  })

  it('matters under strict: the right rows in another order are wrongOrder', () => {
    expect(compareResults(totals(NORTH, SOUTH, EAST), totals(NORTH, EAST, SOUTH), STRICT)).toEqual({
      passed: false,
      message: 'The rows are right, but not in the order asked for. Row 2 is the first out of place.',
      missingRows: [],
      extraRows: [],
      wrongOrder: true,
    })
    // duplicates in another order are still the same rows
    expect(compareResults(totals(NORTH, NORTH, SOUTH), totals(NORTH, SOUTH, NORTH), STRICT).wrongOrder).toBe(true)
    expect(compareResults(totals(NORTH, SOUTH, EAST), totals(NORTH, SOUTH, EAST), STRICT).passed).toBe(true)
  })

  it('is not judged under strict while rows are missing or extra', () => {
    expect(compareResults(totals(NORTH, SOUTH, EAST), totals(EAST, NORTH), STRICT)).toMatchObject({
      passed: false,
      message: '1 row is missing. Expected 3 rows, got 2.',
      missingRows: [SOUTH],
      wrongOrder: false,
    })
  })
})

describe('the columns', () => {
  it('match by name, in any case and any order, under names', () => {
    const learner = result(
      ['TOTAL', 'Region'],
      [
        ['80.00', 'South'],
        ['120.50', 'North'],
      ],
    )
    expect(compareResults(totals(NORTH, SOUTH), learner, ANY).passed).toBe(true)
    // under strict the rows are compared in the expected column order
    expect(compareResults(totals(SOUTH, NORTH), learner, STRICT).passed).toBe(true)
    expect(compareResults(totals(NORTH, SOUTH), learner, STRICT).wrongOrder).toBe(true)
    // and the rows listed are in the expected column order too
    expect(compareResults(totals(EAST), learner, ANY)).toMatchObject({
      missingRows: [EAST],
      extraRows: [SOUTH, NORTH],
    })
  })

  it('fail by name under names when one is missing, extra or renamed', () => {
    expect(compareResults(totals(NORTH), result(['region', 'sum'], [NORTH]), ANY)).toEqual({
      passed: false,
      message: 'The columns differ: expected region, total; got region, sum.',
      missingRows: [],
      extraRows: [],
      wrongOrder: false,
      columns: { expected: ['region', 'total'], actual: ['region', 'sum'] },
    })
    expect(compareResults(totals(NORTH), result(['region'], [['North']]), ANY).message).toBe(
      'The columns differ: expected region, total; got region.',
    )
    expect(compareResults(totals(NORTH), result(['region', 'total', 'n'], [[...NORTH, '1']]), ANY).message).toBe(
      'The columns differ: expected region, total; got region, total, n.',
    )
    expect(compareResults(totals(NORTH), result([], []), ANY).message).toBe(
      'The columns differ: expected region, total; got no columns.',
    )
  })

  it('match a name given twice occurrence by occurrence', () => {
    const twice = (rows: Cell[][]) => result(['n', 'N'], rows)
    expect(compareResults(twice([['1', '2']]), twice([['1', '2']]), STRICT).passed).toBe(true)
    expect(compareResults(twice([['1', '2']]), result(['n', 'm'], [['1', '2']]), STRICT).columns).toBeDefined()
  })

  it('count only under positions, whatever their names', () => {
    const positions = { order: 'strict', columns: 'positions' } as const
    expect(compareResults(totals(NORTH), result(['?column?', 'sum'], [NORTH]), positions).passed).toBe(true)
    // names do not reorder anything
    expect(compareResults(totals(NORTH), result(['total', 'region'], [['120.50', 'North']]), positions).passed).toBe(
      false,
    )
    expect(compareResults(totals(NORTH), result(['region'], [['North']]), positions)).toEqual({
      passed: false,
      message: 'The columns differ: expected 2 columns, got 1.',
      missingRows: [],
      extraRows: [],
      wrongOrder: false,
      columns: { expected: ['region', 'total'], actual: ['region'] },
    })
  })
})

describe('a result of 100,000 rows', () => {
  const size = 100_000
  const rows: Cell[][] = Array.from({ length: size }, (_, i) => [`${i}`, `name ${i % 997}`, i % 10 === 0 ? null : 'x'])
  const expected = result(['id', 'name', 'note'], rows)
  // the same rows, reversed, with the columns in another order
  const shuffled = result(
    ['note', 'id', 'name'],
    [...rows].reverse().map(([id, name, note]) => [note, id, name]),
  )

  it('compares in linear time, not by searching', () => {
    const started = performance.now()
    expect(compareResults(expected, shuffled, ANY).passed).toBe(true)
    expect(compareResults(expected, shuffled, STRICT)).toMatchObject({ wrongOrder: true })
    // an O(n²) comparison of 10¹⁰ steps would take minutes
    expect(performance.now() - started).toBeLessThan(5_000)
  })

  it('finds the one row changed among them', () => {
    const changed = rows.map((row, i) => (i === 54_321 ? ['54321', 'name 0', 'y'] : row))
    const difference = compareResults(expected, result(['id', 'name', 'note'], changed), STRICT)
    expect(difference).toMatchObject({
      passed: false,
      message: '1 row is missing and 1 row is extra. Expected 100000 rows, got 100000.',
      missingRows: [rows[54_321]],
      extraRows: [['54321', 'name 0', 'y']],
    })
  })
})

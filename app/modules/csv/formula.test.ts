import { describe, expect, it } from 'vitest'
import { neutraliseFormula, unprotectFormula } from './formula.ts'

describe('neutraliseFormula', () => {
  it.each(['=SUM(A1:A9)', '+1+1', '-2+3', '@cmd', '\t=1', '\r=1'])('puts an apostrophe before %j', (cell) => {
    expect(neutraliseFormula(cell)).toBe(`'${cell}`)
  })

  it('leaves ordinary text alone, a formula sign inside it too', () => {
    for (const cell of ['Ana', 'ana@example.com', 'a=b', 'SQL - part 2', '', ' =1', "'=1"])
      expect(neutraliseFormula(cell)).toBe(cell)
  })

  it('treats a number written as text as text: a leading minus is neutralised like any other', () => {
    // the writers pass numbers as numbers, which are never touched (see the writer's test)
    expect(neutraliseFormula('-12')).toBe("'-12")
  })
})

describe('unprotectFormula', () => {
  it('reads back what neutraliseFormula protected, and nothing else', () => {
    for (const cell of ['=SUM(A1)', '+1', '-2', '@cmd', '\t=1', '\r=1', 'Ana', "'tis", ''])
      expect(unprotectFormula(neutraliseFormula(cell))).toBe(cell)
    // an apostrophe someone typed before ordinary text stays
    expect(unprotectFormula("'tis")).toBe("'tis")
    expect(unprotectFormula("''=1")).toBe("''=1")
  })
})

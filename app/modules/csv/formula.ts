// Every CSV the portal writes can be opened in a spreadsheet, which runs a cell starting with = + - @ (or a
// tab or carriage return before one) as a formula. What a learner typed into their name must never run there.

const FORMULA_START = /^[=+\-@\t\r]/

/**
 * A text cell a spreadsheet would read as a formula gets a leading apostrophe, which the spreadsheet shows
 * as text. Only text: a number the portal writes as a number (a duration, a count) is left as it is.
 */
export function neutraliseFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell
}

/** A cell our own export protected (an apostrophe before a formula's first character) reads as it was typed. */
export function unprotectFormula(cell: string): string {
  return cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell
}

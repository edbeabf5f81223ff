import { describe, expect, it } from 'vitest'
import { sniffDelimiter, type CsvDelimiter } from './sniff.ts'

const CASES: [why: string, headerLine: string, separator: CsvDelimiter][] = [
  ['commas', 'firstName,lastName,email,userName', ','],
  ['semicolons', 'firstName;lastName;email;userName', ';'],
  ['tabs', 'firstName\tlastName\temail\tuserName', '\t'],
  ['the CR of a CRLF line left on', 'firstName;lastName;email;userName\r', ';'],
  ['the most cells win', 'user;course,title;program', ';'],
  ['the most cells win, the other way', 'user,course;title,program', ','],
  ['commas inside a quoted name do not count', '"name, first, middle";email', ';'],
  ['semicolons inside quoted names do not count', '"a;b;c";"d;e",f', ','],
  ['neither inside quoted names, between tabs', '"Kurs; Titel"\t"E-Mail, privat"\tuser', '\t'],
  ['past a byte-order mark', '\uFEFFuser;course', ';'],
  ['past a byte-order mark, before a quoted name', '\uFEFF"a,b";c', ';'],
  ['one cell: a comma', 'ana@example.com', ','],
  ['an empty line: a comma', '', ','],
  ['a tie: a comma', 'a,b;c', ','],
  ['the start of a quoted header that goes on below: a comma', '"first;', ','],
]

describe('sniffDelimiter', () => {
  it.each(CASES)("reads the header line's separator: %s", (_, headerLine, separator) => {
    expect(sniffDelimiter(headerLine)).toBe(separator)
  })
})

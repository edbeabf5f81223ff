import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { CsvReader, stoppedMessage, unreadableMessage, type CsvReaderOptions } from './reader.server.ts'

/** The file in chunks of `size` bytes, so lines and quotes are cut across chunks as a real upload's are. */
const chunked = (text: string | Buffer, size = 5) => {
  const bytes = Buffer.from(text)
  const chunks: Buffer[] = []
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size))
  return Readable.from(chunks)
}

async function read(text: string | Buffer, options?: CsvReaderOptions, size?: number) {
  const csv = new CsvReader(chunked(text, size), options)
  const records = []
  for await (const record of csv) records.push(record)
  return { records, broken: csv.broken, bytes: csv.bytes }
}

describe('CsvReader', () => {
  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ])('gives each record the line it starts on, across quoted line breaks and blank lines (%s)', async (_, eol) => {
    const text = ['name,note', '"Ana","two', 'lines"', '', 'Bo,one', '"Cy","three', 'line', 'note"', '', '', 'Di,last']
    const { records, broken } = await read(text.join(eol))
    expect(records).toEqual([
      { line: 1, cells: ['name', 'note'] },
      { line: 2, cells: ['Ana', `two${eol}lines`] },
      { line: 5, cells: ['Bo', 'one'] },
      { line: 6, cells: ['Cy', `three${eol}line${eol}note`] },
      { line: 11, cells: ['Di', 'last'] },
    ])
    expect(broken).toBeUndefined()
  })

  it('reads past a BOM, and finds semicolons and tabs on the header line', async () => {
    expect((await read('\uFEFFuser;course\r\nana;"SQL; part 1"\r\n')).records).toEqual([
      { line: 1, cells: ['user', 'course'] },
      { line: 2, cells: ['ana', 'SQL; part 1'] },
    ])
    expect((await read('user\tcourse\nana\tSQL, part 1\n')).records[1].cells).toEqual(['ana', 'SQL, part 1'])
  })

  it('takes the separator it is given over the one the header line suggests', async () => {
    const { records } = await read('a,b;c\n1,2;3\n', { delimiter: ';' })
    expect(records.map((r) => r.cells)).toEqual([
      ['a,b', 'c'],
      ['1,2', '3'],
    ])
  })

  it('counts the bytes it has handed to the parser', async () => {
    const text = '\uFEFFuser,course\nana,SQL\n'
    expect((await read(text)).bytes).toBe(Buffer.byteLength(text))
  })

  it('gives every record before a quote that is never closed, then names the line it starts on', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => `row${i},x`)
    const { records, broken } = await read(['a,b', ...rows, '', '"cut,off', 'late,row'].join('\n'), {}, 7)
    expect(records).toHaveLength(41)
    expect(records.at(-1)).toEqual({ line: 41, cells: ['row39', 'x'] })
    expect(broken).toEqual({
      line: 43,
      reason: 'a quoted value starts on line 43 and is never closed (the file may be cut off)',
    })
  })

  it('names the line of a stray quote, and of text after a closing quote, within a record of several lines', async () => {
    expect((await read('a,b\n1,2\n\n3,x"y\n4,5\n')).broken).toEqual({
      line: 4,
      reason: 'line 4 has a quote inside a value that is not quoted',
    })
    expect((await read('a,b\n"one\ntwo"x,1\n')).broken).toEqual({
      line: 2,
      reason: 'line 3 has text right after a closing quote',
    })
  })

  it('counts a CRLF inside quotes as one line when it names a broken line', async () => {
    const crlf = (...lines: string[]) => lines.join('\r\n')
    expect((await read(crlf('a,b', '"one', 'two",1', '3,x"y', '4,5'))).broken).toEqual({
      line: 4,
      reason: 'line 4 has a quote inside a value that is not quoted',
    })
    expect((await read(crlf('a,b', '"one', 'two",1', '', '"cut,off'))).broken?.line).toBe(5)
  })

  it('refuses a binary file, text saved as UTF-16, and a first line that never ends', async () => {
    await expect(read(Buffer.from('PK\x03\x04\x00\x00binary', 'latin1'))).rejects.toMatchObject({
      status: 400,
      message: 'The file is not CSV text: it holds NUL bytes (a binary file, or text saved as UTF-16).',
    })
    await expect(read(Buffer.from('\uFEFFuser,course\n', 'utf16le'))).rejects.toThrow('UTF-16')
    await expect(read('a,'.repeat(600_000), {}, 64 * 1024)).rejects.toThrow(
      'The file is not CSV text: its first line never ends.',
    )
  })

  it('gives nothing for an empty file, and closes the file when it is left part-way', async () => {
    expect(await read('')).toEqual({ records: [], broken: undefined, bytes: 0 })
    const source = chunked('a,b\n1,2\n3,4\n', 4)
    const csv = new CsvReader(source)
    for await (const record of csv) if (record.line === 2) break
    expect(source.destroyed).toBe(true)
  })
})

describe('the messages of a file that cannot be read', () => {
  const broken = { line: 7, reason: 'line 7 has a quote inside a value that is not quoted' }

  it('say where the file stopped being read and why', () => {
    expect(unreadableMessage(broken)).toBe(
      'The file cannot be read: line 7 has a quote inside a value that is not quoted.',
    )
  })

  it('say what became of the rows before the broken line', () => {
    const past = 'The file cannot be read past line 6: line 7 has a quote inside a value that is not quoted.'
    expect(stoppedMessage(broken, { rowsBefore: 5, kept: true })).toBe(
      `${past} The 5 rows before it were handled as reported; nothing from line 7 on was imported.`,
    )
    expect(stoppedMessage(broken, { rowsBefore: 1, kept: true })).toBe(
      `${past} The 1 row before it was handled as reported; nothing from line 7 on was imported.`,
    )
    expect(stoppedMessage(broken, { rowsBefore: 5, kept: false })).toBe(`${past} Nothing was imported.`)
    expect(stoppedMessage(broken, { rowsBefore: 0, kept: true })).toBe(`${past} Nothing was imported.`)
  })
})

import { PassThrough, Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
import { csvRecords, csvWriter, ErrorCsv } from './writer.server.ts'

/** Everything a stream writes, once it ends. */
async function textOf(stream: NodeJS.ReadableStream) {
  let text = ''
  for await (const chunk of stream) text += String(chunk)
  return text
}

describe('csvWriter', () => {
  it('writes CRLF records, quotes line breaks of any kind, and neutralises formulas in text cells only', async () => {
    const csv = csvWriter(['Name', '=Header', 'Seconds'])
    const text = textOf(csv)
    csv.write(['=cmd|calc', '@SUM(A1)', -12])
    csv.write(['-12', 'two\nlines', 3])
    csv.write(['lone\rcr', null, 0])
    csv.end()
    expect(await text).toBe(
      'Name,\'=Header,Seconds\r\n\'=cmd|calc,\'@SUM(A1),-12\r\n\'-12,"two\nlines",3\r\n"lone\rcr",,0\r\n',
    )
  })
})

/** More rows than the buffers between the writer and its sink hold (some 64 KiB of text and 16 records). */
const ROWS = 20_000

describe('csvRecords', () => {
  it('writes the header, then each item as the cells it maps to', async () => {
    const people = [
      { name: 'Ana', courses: ['SQL', 'ETL'], seconds: 90 },
      { name: '+Bo', courses: [], seconds: -1 },
    ]
    const [records, csv] = csvRecords(['name', 'courses', 'seconds'], (p: (typeof people)[number]) => [
      p.name,
      p.courses.join(';'),
      p.seconds,
    ])
    const text = textOf(csv)
    await pipeline(Readable.from(people), records, csv)
    expect(await text).toBe("name,courses,seconds\r\nAna,SQL;ETL,90\r\n'+Bo,,-1\r\n")
  })
})

describe('ErrorCsv', () => {
  it('writes the header once, then a line per problem with the row’s cells neutralised', async () => {
    const sink = new PassThrough()
    const text = textOf(sink)
    const csv = new ErrorCsv(sink)
    await csv.header(['email', 'course'])
    await csv.header(['ignored'])
    await csv.row(3, 'email', 'Email is invalid.', ['=HYPERLINK("x")', 'SQL'])
    await csv.row(null, '', 'The file cannot be read past line 3.')
    await csv.end()
    expect(parse(await text, { relax_column_count: true })).toEqual([
      ['row', 'field', 'message', 'email', 'course'],
      ['3', 'email', 'Email is invalid.', `'=HYPERLINK("x")`, 'SQL'],
      ['', '', 'The file cannot be read past line 3.'],
    ])
  })

  it('starts with the bare header when a problem comes before the file’s columns are known', async () => {
    const sink = new PassThrough()
    const text = textOf(sink)
    const csv = new ErrorCsv(sink)
    await csv.row(null, '', 'The file is empty.')
    await csv.end()
    expect(await text).toBe('row,field,message\r\n,,The file is empty.\r\n')
  })

  it('waits for the sink to drain before it takes more rows', async () => {
    // a sink that holds every write until it is let go, as a slow disk or a slow upload would
    const held: (() => void)[] = []
    let flowing = false
    const received: string[] = []
    const sink = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, done) {
        received.push(chunk.toString())
        if (flowing) done()
        else held.push(() => done())
      },
    })
    const csv = new ErrorCsv(sink)
    await csv.header(['email'])
    let taken = 0
    const writing = (async () => {
      for (let i = 0; i < ROWS; i++) {
        await csv.row(i + 2, 'email', 'Email is invalid.', [`person${i}@example`])
        taken++
      }
    })()
    await sleep(50)
    const stalledAt = taken
    // the rows fill the buffers between the writer and the sink, then the writer waits
    expect(stalledAt).toBeGreaterThan(0)
    expect(stalledAt).toBeLessThan(ROWS / 4)
    await sleep(50)
    expect(taken).toBe(stalledAt)

    flowing = true
    for (const release of held.splice(0)) release()
    await writing
    await csv.end()
    expect(taken).toBe(ROWS)
    expect(parse(received.join(''))).toHaveLength(ROWS + 1)
  })

  it('fails the next write when the sink fails, instead of waiting for ever', async () => {
    const sink = new Writable({
      highWaterMark: 1,
      write(_chunk, _encoding, done) {
        done(new Error('No space left on the disk.'))
      },
    })
    const csv = new ErrorCsv(sink)
    const writing = (async () => {
      for (let i = 0; i < ROWS; i++) await csv.row(i + 2, 'email', 'Email is invalid.', ['x'])
    })()
    await expect(writing).rejects.toThrow('No space left on the disk.')
    await expect(csv.end()).rejects.toThrow('No space left on the disk.')
  })
})

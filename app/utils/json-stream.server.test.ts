import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { RowStream } from '#db/client.ts'
import { resetEnvCache } from './env.server.ts'
import { listStreamsMax, streamedJsonList, TOO_MANY_LIST_STREAMS } from './json-stream.server.ts'
import { logger } from './log.server.ts'

/** Text that JSON escapes (quotes, a backslash), letters beyond ASCII, and a Date as JSON writes it. */
const row = (i: number) => ({
  _id: `row-${i}`,
  name: `Ünïcode "quoted" \\ ${i}`,
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
  n: i,
})

/** A row source that makes `count` rows on demand and says how many it has made. */
function countedRows(count: number) {
  const made = { rows: 0 }
  function* rows() {
    for (let i = 0; i < count; i++) {
      made.rows++
      yield row(i)
    }
  }
  const stream: RowStream = (sink, signal) => pipeline(Readable.from(rows()), sink, { signal })
  return { made, stream }
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('streamedJsonList', () => {
  it('answers the very text JSON.stringify gives for the whole list, with a JSON content type', async () => {
    for (const count of [0, 1, 3, 5000]) {
      const { stream } = countedRows(count)
      const response = streamedJsonList('message', stream)
      expect(response.status).toBe(200)
      expect(response.headers.get('Content-Type')).toBe('application/json; charset=utf-8')
      const expected = JSON.stringify({ message: Array.from({ length: count }, (_, i) => row(i)) })
      expect(await response.text()).toBe(expected)
    }
  })

  it('sends a long list in several chunks, and the event loop turns between any two of them', async () => {
    const { stream } = countedRows(20_000)
    let turns = 0
    let ticking = true
    const tick = () => {
      turns++
      if (ticking) setImmediate(tick)
    }
    setImmediate(tick)
    const reader = streamedJsonList('data', stream).body!.getReader()
    let chunks = 0
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) chunks++
    } finally {
      ticking = false
    }
    expect(chunks).toBeGreaterThan(10)
    // each chunk after the first waits for a turn of the loop, in which the ticker runs too
    expect(turns).toBeGreaterThanOrEqual(chunks - 1)
  })

  it('reads rows only as fast as the answer is taken', async () => {
    const total = 100_000
    const { made, stream } = countedRows(total)
    const reader = streamedJsonList('data', stream).body!.getReader()
    const first = await reader.read()
    expect(first.value!.byteLength).toBeGreaterThan(0)
    // unread, the whole list would be made in far fewer turns than these (about 90 chunks of 64 KiB)
    for (let i = 0; i < 500; i++) await turn()
    expect(made.rows).toBeLessThan(total / 10)
    await reader.cancel()
  })

  it('stops the rows when the reader cancels, and when the request is aborted', async () => {
    const cancelled = countedRows(100_000)
    let outcome: unknown
    const watched: RowStream = (sink, signal) =>
      cancelled.stream(sink, signal).then(
        () => {
          outcome = 'finished'
        },
        (error: unknown) => {
          outcome = error
        },
      )
    const reader = streamedJsonList('data', watched).body!.getReader()
    await reader.read()
    await reader.cancel()
    await expect.poll(() => outcome).toBeInstanceOf(Error)

    const aborted = countedRows(100_000)
    const controller = new AbortController()
    let stopped: unknown
    const source: RowStream = (sink, signal) =>
      aborted.stream(sink, signal).catch((error: unknown) => {
        stopped = error
        throw error
      })
    const body = streamedJsonList('data', source, controller.signal).body!.getReader()
    await body.read()
    controller.abort()
    await expect.poll(() => stopped).toMatchObject({ name: 'AbortError' })
    expect(aborted.made.rows).toBeLessThan(100_000)
  })

  it('breaks the answer when the rows fail part-way, rather than letting it look complete', async () => {
    const failing: RowStream = (sink, signal) =>
      pipeline(
        Readable.from(
          (function* () {
            for (let i = 0; i < 10_000; i++) yield { i, padding: 'x'.repeat(20) }
            throw new Error('the database went away')
          })(),
        ),
        sink,
        { signal },
      )
    const logged = vi.spyOn(logger(), 'error').mockImplementation(() => undefined)
    try {
      await expect(streamedJsonList('data', failing).text()).rejects.toThrow('the database went away')
      // one line through the credential scrubber, never the error object with its stack
      expect(logged).toHaveBeenCalledWith({ list: 'data', error: 'the database went away' }, 'streaming a list failed')
    } finally {
      logged.mockRestore()
    }
  })
})

describe('the cap on lists streamed at once', () => {
  afterEach(() => {
    delete process.env.LIST_STREAMS_MAX
    delete process.env.DB_POOL_MAX
    resetEnvCache()
  })

  const setEnv = (env: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(env))
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    resetEnvCache()
  }

  it('is half the pool unless set, and never the whole pool', () => {
    const cases: [string | undefined, string | undefined, number][] = [
      [undefined, undefined, 5],
      [undefined, '2', 1],
      [undefined, '1', 1],
      ['3', undefined, 3],
      ['8', '4', 3],
    ]
    for (const [max, pool, expected] of cases) {
      setEnv({ LIST_STREAMS_MAX: max, DB_POOL_MAX: pool })
      expect(listStreamsMax(), `LIST_STREAMS_MAX=${max} DB_POOL_MAX=${pool}`).toBe(expected)
    }
  })

  it('refuses with a 429 that says to retry in 5 seconds beyond it, without starting the rows, and takes a list again once one ends', async () => {
    setEnv({ LIST_STREAMS_MAX: '2' })
    const held = [countedRows(100_000), countedRows(100_000)].map(({ stream }) =>
      streamedJsonList('data', stream).body!.getReader(),
    )
    for (const reader of held) await reader.read()

    let started = false
    const refuse = () =>
      streamedJsonList('data', (sink, signal) => {
        started = true
        return countedRows(1).stream(sink, signal)
      })
    // apiRoute answers it as 429 JSON with Retry-After (tests/integration/web-server-lists.test.ts)
    expect(refuse).toThrow(
      expect.objectContaining({
        name: 'ServiceError',
        status: 429,
        message: TOO_MANY_LIST_STREAMS,
        retryAfterSeconds: 5,
      }),
    )
    expect(started).toBe(false)

    // a cancelled list gives its place back, and so does one read to its end
    const taken = () => vi.waitFor(() => streamedJsonList('data', countedRows(3).stream))
    await held[0].cancel()
    const next = await taken()
    expect(await next.text()).toBe(JSON.stringify({ data: [row(0), row(1), row(2)] }))
    await (await taken()).text()
    await held[1].cancel()
  })
})

import { Readable, Transform } from 'node:stream'
import { ServiceError } from '#app/modules/errors.ts'
import type { RowStream } from '#db/client.ts'
import { getEnv } from './env.server.ts'
import { logger } from './log.server.ts'
import { errorLine } from './redact.server.ts'

// The /api's unpaged lists (the old client reads them whole) are sent as they are read: rows come from
// a database cursor, are serialized one at a time and leave in chunks, so neither the rows nor their
// JSON are ever held whole, and other requests are served between chunks.

/** About this much JSON is sent at a time (bigger chunks compress better, smaller ones hold less). */
export const JSON_CHUNK_CHARS = 64 * 1024

/**
 * A stage that takes rows (objects) and gives `{"<key>":[row,row,…]}`, the very text
 * `JSON.stringify({ [key]: rows })` would, in chunks of about JSON_CHUNK_CHARS. After each chunk it
 * waits for the next turn of the event loop, so a long list never holds the loop for long.
 */
function jsonListWriter(key: string): Transform {
  let pending = `{${JSON.stringify(key)}:[`
  let first = true
  return new Transform({
    writableObjectMode: true,
    transform(row: unknown, _encoding, done) {
      pending += (first ? '' : ',') + JSON.stringify(row)
      first = false
      if (pending.length < JSON_CHUNK_CHARS) return done()
      this.push(pending)
      pending = ''
      setImmediate(done)
    },
    flush(done) {
      done(null, `${pending}]}`)
    },
  })
}

/**
 * How many lists this process streams at once. Each holds a pooled connection for as long as its
 * client takes to read, so they never get the whole pool: LIST_STREAMS_MAX, else half of DB_POOL_MAX,
 * and at most DB_POOL_MAX − 1 (at least 1).
 */
export function listStreamsMax(): number {
  const { LIST_STREAMS_MAX, DB_POOL_MAX } = getEnv()
  return Math.max(1, Math.min(LIST_STREAMS_MAX ?? Math.floor(DB_POOL_MAX / 2), DB_POOL_MAX - 1))
}

export const TOO_MANY_LIST_STREAMS = 'Too many list downloads are running; try again in a few seconds.'
/** The Retry-After, in seconds, of that refusal. */
const LIST_STREAM_RETRY_SECONDS = 5

let streaming = 0

/**
 * A 200 JSON answer `{ [key]: [rows…] }` whose rows `rows` writes as they are read. Whatever may
 * refuse the call (who asks, the input) must have thrown before this is called: once it returns a 200,
 * the answer has started. The rows are read only as fast as the answer is taken; a client that goes
 * away (`signal`) or a reader that cancels stops the query, and a failure part-way breaks the answer
 * rather than letting it look complete. With listStreamsMax() lists already streaming, it refuses
 * with a 429 that says when to try again (apiRoute answers it `{ message }` with Retry-After), and
 * `rows` never starts.
 */
export function streamedJsonList(key: string, rows: RowStream, signal?: AbortSignal): Response {
  if (streaming >= listStreamsMax())
    throw new ServiceError(429, TOO_MANY_LIST_STREAMS, undefined, { retryAfterSeconds: LIST_STREAM_RETRY_SECONDS })
  streaming++
  const writer = jsonListWriter(key)
  // the slot is free again once the cursor is closed and its connection back in the pool
  rows(writer, signal)
    .finally(() => streaming--)
    .catch((error: unknown) => {
      if (!signal?.aborted && !isStopped(error))
        logger().error({ list: key, error: errorLine(error) }, 'streaming a list failed')
      writer.destroy(error instanceof Error ? error : new Error(String(error)))
    })
  return new Response(Readable.toWeb(writer) as ReadableStream<Uint8Array>, {
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
  })
}

/** The reader went away (cancelled the body, or the request was aborted): nothing failed. */
const isStopped = (error: unknown) =>
  error instanceof Error &&
  (error.name === 'AbortError' || ('code' in error && error.code === 'ERR_STREAM_PREMATURE_CLOSE'))

import { randomBytes } from 'node:crypto'
import http, { type IncomingMessage } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { createGunzip } from 'node:zlib'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROLE } from '#app/modules/auth/roles.ts'
import { listUsers } from '#app/modules/users/service.server.ts'
import * as accessLogRoute from '#app/routes/api+/category.accessLog.ts'
import * as learnersRoute from '#app/routes/api+/user.usersList.user.ts'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { JSON_CHUNK_CHARS, TOO_MANY_LIST_STREAMS } from '#app/utils/json-stream.server.ts'
import { sequelize } from '#db/client.ts'
import { makeAdmin } from '#tests/factories.ts'
import { bareBuild, recordingLogger, serve } from '#tests/stand-in-build.ts'
import { sendRemixResponse } from '../../server/remix-handler.js'

// The web server (server/web-server.js: Express, compression, the request log, our Remix handler) on a
// real port, in this process, with the real /api list routes on this file's database. The build is a
// stand-in (tests/stand-in-build.ts) with two small routes of its own, so the routes share this process's
// database pool and the test can watch it.
//
// A client slower than the database must pause the list's cursor, not have the answer pile up in the
// server's memory; and no more than LIST_STREAMS_MAX lists stream at once.

process.env.LIST_STREAMS_MAX = '2'
resetEnvCache()

const LEARNERS = 100_000

type Admin = Awaited<ReturnType<typeof makeAdmin>>
let admin: Admin
let server: Awaited<ReturnType<typeof serve>>
let port: number
let expected: string
const sockets = new Map<number, Socket>()
const { logger, lines: logLines } = recordingLogger()

const stubModule = (loader: () => Response) => ({ loader })

/** An answer that does not compress, made as it is taken: how much of it has been made. */
const RANDOM_BYTES = 32 * 1024 * 1024
const made = { bytes: 0 }
const randomAnswer = () =>
  new Response(
    new ReadableStream(
      {
        pull(controller) {
          if (made.bytes >= RANDOM_BYTES) return controller.close()
          const chunk = randomBytes(64 * 1024)
          made.bytes += chunk.length
          controller.enqueue(chunk)
        },
      },
      { highWaterMark: 0 },
    ),
    { headers: { 'Content-Type': 'text/plain' } },
  )

beforeAll(async () => {
  admin = await makeAdmin()
  const sql = await sequelize()
  await sql.query(
    `INSERT INTO users (first_name, last_name, user_name, email, role_id, created_at)
     SELECT 'Gen', 'Learner ' || g, 'gen' || g, 'gen' || g || '@example.com', $1,
            timestamptz '2026-01-01' + g * interval '1 second'
       FROM generate_series(1, ${LEARNERS}) g`,
    { bind: [ROLE.learner] },
  )
  expected = JSON.stringify({ message: (await listUsers(admin, 'learner', {})).rows })

  const build = await bareBuild(
    { 'routes/api+/user.usersList.user': learnersRoute, 'routes/api+/category.accessLog': accessLogRoute },
    {
      'routes/random-bytes': stubModule(randomAnswer),
      // what the handler must pass on as it is: a status text and two cookies
      'routes/two-cookies': stubModule(
        () =>
          new Response('{}', {
            status: 202,
            statusText: 'Taken',
            headers: [
              ['Set-Cookie', 'first=1; Path=/'],
              ['Set-Cookie', 'second=2; Path=/'],
            ],
          }),
      ),
    },
  )
  server = await serve(build, { logger })
  server.server.on('connection', (socket: Socket) => sockets.set(socket.remotePort!, socket))
  port = server.port
}, 120_000)

afterAll(async () => {
  await server.close()
  delete process.env.LIST_STREAMS_MAX
  resetEnvCache()
})

/** How many pooled connections are lent out right now (the routes run in this process, on this pool). */
const connectionsInUse = async () =>
  ((await sequelize()).connectionManager as unknown as { pool: { using: number } }).pool.using

type Opened = {
  response: IncomingMessage
  /** the server's end of the connection */
  serverSide: Socket
  /** reads the rest of the answer (unzipped), from where it stopped */
  read(): Promise<Buffer>
  text(): Promise<string>
  close(): void
}

/**
 * A request whose answer is not read until `read()`: Node's client stops taking bytes from the socket
 * once its own small buffer is full, so the kernel's buffers fill and then the server's.
 */
function open(path: string, { headers = {}, body }: { headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<Opened>((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: body === undefined ? 'GET' : 'POST',
        agent: false,
        headers: { Authorization: `Bearer ${admin.token}`, ...headers },
      },
      (response) => {
        const serverSide = sockets.get(request.socket!.localPort!)!
        const read = async () => {
          const source = response.headers['content-encoding'] === 'gzip' ? response.pipe(createGunzip()) : response
          const chunks: Buffer[] = []
          for await (const chunk of source) chunks.push(chunk as Buffer)
          return Buffer.concat(chunks)
        }
        resolve({
          response,
          serverSide,
          read,
          text: async () => (await read()).toString('utf8'),
          close: () => request.destroy(),
        })
      },
    )
    request.on('error', reject)
    request.end(body)
  })
}

describe('a client that reads slowly', () => {
  it("pauses the list's cursor until it reads again, then gets the whole list", { timeout: 120_000 }, async () => {
    const before = await connectionsInUse()
    const slow = await open('/api/user/usersList/user')
    expect(slow.response.statusCode).toBe(200)
    // the kernel's buffers (a few megabytes of the 20) are full: the server now holds what the client has not taken
    await expect.poll(() => slow.serverSide.writableLength, { timeout: 60_000 }).toBeGreaterThan(0)

    // meanwhile another client takes the same whole list
    const fast = await open('/api/user/usersList/user')
    expect(await fast.text()).toBe(expected)

    // the slow one stopped reading rows rather than finishing into memory: what the server made of it is
    // what the kernel took and at most about a chunk waiting, and its cursor still holds its connection
    expect(slow.serverSide.writableLength).toBeLessThan(4 * JSON_CHUNK_CHARS)
    expect(slow.serverSide.bytesWritten).toBeLessThan(expected.length / 2)
    await expect.poll(connectionsInUse).toBe(before + 1)

    expect(await slow.text()).toBe(expected)
    await expect.poll(connectionsInUse).toBe(before)
  })

  it('pauses a compressed answer as well', { timeout: 60_000 }, async () => {
    made.bytes = 0
    const slow = await open('/random-bytes', { headers: { 'Accept-Encoding': 'gzip' } })
    expect(slow.response.headers['content-encoding']).toBe('gzip')
    await expect.poll(() => slow.serverSide.writableLength, { timeout: 30_000 }).toBeGreaterThan(0)
    const fast = await open('/api/user/usersList/user', { headers: { 'Accept-Encoding': 'gzip' } })
    expect(fast.response.headers['content-encoding']).toBe('gzip')
    expect(await fast.text()).toBe(expected)
    // about what the kernel holds was made, not the whole answer into memory
    expect(made.bytes).toBeLessThan(RANDOM_BYTES / 2)
    expect((await slow.read()).length).toBe(RANDOM_BYTES)
  })

  it('that goes away part-way stops the cursor, and the request log says 499', async () => {
    const before = await connectionsInUse()
    const gone = await open('/api/user/usersList/user', { headers: { 'X-Request-Id': 'list-gone-away' } })
    await expect.poll(connectionsInUse).toBe(before + 1)
    gone.close()
    await expect.poll(connectionsInUse).toBe(before)
    await expect
      .poll(() => logLines.find((line) => line.requestId === 'list-gone-away'))
      .toMatchObject({ route: 'routes/api+/user.usersList.user', status: 499 })
  })
})

describe('lists streamed at once', () => {
  it(
    'answer 429 JSON with Retry-After beyond LIST_STREAMS_MAX, and take one again once a list ends',
    { timeout: 60_000 },
    async () => {
      const before = await connectionsInUse()
      const held = [await open('/api/user/usersList/user'), await open('/api/user/usersList/user')]
      for (const { response } of held) expect(response.statusCode).toBe(200)

      const refused = await open('/api/user/usersList/user', { headers: { 'X-Request-Id': 'list-refused' } })
      expect(refused.response.statusCode).toBe(429)
      expect(refused.response.headers['retry-after']).toBe('5')
      expect(refused.response.headers['content-type']).toMatch(/^application\/json/)
      expect(JSON.parse(await refused.text())).toEqual({ message: TOO_MANY_LIST_STREAMS })
      expect(await connectionsInUse()).toBe(before + 2)
      await expect.poll(() => logLines.find((line) => line.requestId === 'list-refused')).toMatchObject({ status: 429 })

      // one ends (its client goes away): the next list is taken
      held[0].close()
      await expect.poll(connectionsInUse).toBe(before + 1)
      const next = await open('/api/user/usersList/user')
      expect(next.response.statusCode).toBe(200)
      expect(await next.text()).toBe(expected)
      expect(await held[1].text()).toBe(expected)
      await expect.poll(connectionsInUse).toBe(before)
    },
  )
})

describe('the Remix handler', () => {
  it('passes on the status, its text and every Set-Cookie', async () => {
    const answer = await open('/two-cookies')
    expect(answer.response.statusCode).toBe(202)
    expect(answer.response.statusMessage).toBe('Taken')
    expect(answer.response.headers['set-cookie']).toEqual(['first=1; Path=/', 'second=2; Path=/'])
    expect(await answer.text()).toBe('{}')
  })

  it('hands the request body on as it comes', async () => {
    const json = { 'Content-Type': 'application/json' }
    const wrong = await open('/api/category/accessLog', { headers: json, body: '{"startDate":"someday"}' })
    expect(wrong.response.statusCode).toBe(400)
    expect(JSON.parse(await wrong.text())).toMatchObject({ errors: { startDate: 'Start date must be a date.' } })
    const right = await open('/api/category/accessLog', { headers: json, body: '{}' })
    expect(right.response.statusCode).toBe(200)
    expect(JSON.parse(await right.text())).toEqual({ data: [] })
  })

  it('cancels the body of an answer whose client went away before it was ready', async () => {
    let cancelled = false
    const endless = new ReadableStream(
      { pull: (controller) => controller.enqueue(new Uint8Array(1024)), cancel: () => void (cancelled = true) },
      { highWaterMark: 0 },
    )
    let arrived = false
    let sent = false
    const app = express().get('/late', (_req, res) => {
      arrived = true
      // the app answers only once the client has gone
      res.once('close', () => void sendRemixResponse(res, new Response(endless)).then(() => (sent = true)))
    })
    const lateServer = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => lateServer.once('listening', resolve))
    try {
      const request = http.get({ port: (lateServer.address() as AddressInfo).port, host: '127.0.0.1', path: '/late' })
      request.on('error', () => undefined)
      await expect.poll(() => arrived).toBe(true)
      request.destroy()
      // it gives up at once rather than writing to nobody (or waiting for a drain that never comes)
      await expect.poll(() => sent).toBe(true)
      expect(cancelled).toBe(true)
    } finally {
      lateServer.close()
    }
  })
})

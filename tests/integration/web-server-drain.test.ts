import http from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { bareBuild, recordingLogger, serve } from '#tests/stand-in-build.ts'
import { createLifecycle, drain } from '../../server/web-server.js'

// The web server's stop (server/web-server.js's `drain`) in this process, on a stand-in route table whose
// one route answers only when the test lets it: what /readyz says once the stop has begun, the request in
// flight answered and its connection closed after it, and the bound on how long a stop waits.

const { logger, lines: logLines } = recordingLogger()

/** A request held by the route until `release()`; `arrived` resolves once the route has it. */
function heldRoute() {
  let arrive!: () => void
  let release!: () => void
  const arrived = new Promise<void>((resolve) => (arrive = resolve))
  const released = new Promise<void>((resolve) => (release = resolve))
  const loader = async () => {
    arrive()
    await released
    return new Response(JSON.stringify({ done: true }), { headers: { 'Content-Type': 'application/json' } })
  }
  return { loader, arrived, release }
}

const servers: http.Server[] = []
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    server.close()
  }
})

async function start(loader: () => Promise<Response>) {
  const lifecycle = createLifecycle()
  const { server, base } = await serve(await bareBuild({}, { 'routes/held': { loader } }), { logger, lifecycle })
  servers.push(server)
  return { lifecycle, server, base }
}

type Answer = { status: number; connection: string | undefined; body: string }

function get(url: string, agent: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        let body = ''
        response.on('data', (chunk: Buffer) => (body += chunk.toString()))
        response.on('end', () =>
          resolve({ status: response.statusCode!, connection: response.headers.connection, body }),
        )
        response.on('error', reject)
      })
      .on('error', reject)
  })
}

describe('the drain', () => {
  it('turns /readyz to 503 at once, answers what is in flight or arrives on an open connection, then closes', async () => {
    const held = heldRoute()
    const { lifecycle, server, base } = await start(held.loader)
    // a load balancer's probe connection, kept alive, and a request held in flight on another
    const probe = new http.Agent({ keepAlive: true, maxSockets: 1 })
    expect(await get(`${base}/readyz`, probe)).toMatchObject({ status: 200, connection: 'keep-alive' })
    const agent = new http.Agent({ keepAlive: true })
    const answer = get(`${base}/held`, agent)
    await held.arrived
    const drained = drain(server, { lifecycle, logger, seconds: 60 })

    // no new connection is taken …
    await expect(fetch(`${base}/livez`)).rejects.toMatchObject({ code: 'ECONNREFUSED' })
    // … and the probe's open connection is told at once that the server is stopping, then closed
    const ready = await get(`${base}/readyz`, probe)
    expect(ready).toEqual({
      status: 503,
      connection: 'close',
      body: JSON.stringify({ ready: false, message: 'The server is stopping.' }),
    })

    held.release()
    expect(await answer).toEqual({ status: 200, connection: 'close', body: '{"done":true}' })
    expect(await drained).toBe(0)
    probe.destroy()
    agent.destroy()
  })

  it('with DRAIN_DELAY_SECONDS, still takes new connections while /readyz says 503, then closes', async () => {
    const held = heldRoute()
    const { lifecycle, server, base } = await start(held.loader)
    const agent = new http.Agent({ keepAlive: true })
    let closed = false
    const drained = drain(server, { lifecycle, logger, seconds: 60, delay: 0.4 }).then((cut) => {
      closed = true
      return cut
    })

    // during the delay a new connection is taken: /readyz says the server is stopping, a request is answered
    // and its connection closed after it
    expect(await get(`${base}/readyz`, agent)).toMatchObject({ status: 503, connection: 'close' })
    const answer = get(`${base}/held`, agent)
    await held.arrived
    held.release()
    expect(await answer).toEqual({ status: 200, connection: 'close', body: '{"done":true}' })
    expect(closed).toBe(false)

    // once the delay is over the listener is closed
    expect(await drained).toBe(0)
    await expect(fetch(`${base}/livez`)).rejects.toThrow(/ECONNREFUSED/)
    agent.destroy()
  })

  it('cuts what still runs after DRAIN_SECONDS, and says how many it cut', async () => {
    const held = heldRoute()
    const { lifecycle, server, base } = await start(held.loader)
    const agent = new http.Agent({ keepAlive: true })
    const answer = get(`${base}/held`, agent)
    await held.arrived
    expect(await drain(server, { lifecycle, logger, seconds: 0.2 })).toBe(1)
    await expect(answer).rejects.toThrow(/socket hang up|ECONNRESET/)
    expect(logLines.find((l) => l.msg === 'the drain ran out of time: requests still running were cut')).toMatchObject({
      cut: 1,
      drainSeconds: 0.2,
    })
    held.release()
    agent.destroy()
  })
})

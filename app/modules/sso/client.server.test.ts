import { createServer } from 'node:net'
import { installGlobals } from '@remix-run/node'
import { describe, expect, it } from 'vitest'
import { discover, isUnreachable } from './client.server.ts'

// What counts as a provider not answering, with the fetch the web server runs with (server/web-server.js installs
// Remix's, whose network errors are no TypeError): such a provider gets the page saying it is not answering, never
// the error page.
installGlobals({ nativeFetch: false })

/** A loopback port nobody listens on. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

describe('a provider not answering', () => {
  it('is one that refuses the connection', async () => {
    const error = await discover({
      issuer: `http://127.0.0.1:${await closedPort()}`,
      clientId: 'portal',
      clientSecret: 'secret',
    }).catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(Error)
    expect(isUnreachable(error)).toBe(true)
  })
})

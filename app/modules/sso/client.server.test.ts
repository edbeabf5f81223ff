import { createServer } from 'node:net'
import { installGlobals } from '@remix-run/node'
import * as oidc from 'openid-client'
import { describe, expect, it } from 'vitest'
import { discover, isUnreachable } from './client.server.ts'

// What counts as a provider not answering, whichever fetch made the request: Node's own throws a TypeError
// ("fetch failed") or a TimeoutError, the polyfill the web server installs a FetchError with the socket's code or an
// AbortError, each wrapped by openid-client in a ClientError with no code of its own. A provider that answers, even
// "no", is not unreachable: only silence may open the circuit breaker.

const wrapped = (cause: unknown, code?: string) => {
  const error = new oidc.ClientError('something went wrong', { cause })
  if (code) error.code = code
  return error
}
const named = (name: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`a ${name}`), { name }, extra)

// the fetch the web server runs with (server/web-server.js installs Remix's), whose network errors are no TypeError
installGlobals({ nativeFetch: false })

/** A loopback port nobody listens on. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

describe('isUnreachable', () => {
  it('is true for a provider that refuses the connection, under the web server’s fetch', async () => {
    const error = await discover({
      issuer: `http://127.0.0.1:${await closedPort()}`,
      clientId: 'portal',
      clientSecret: 'secret',
    }).catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(Error)
    expect(isUnreachable(error)).toBe(true)
  })

  it('is true for a refused connection, a timeout or an abort, from either fetch', () => {
    expect(isUnreachable(new TypeError('fetch failed', { cause: named('Error', { code: 'ECONNREFUSED' }) }))).toBe(true)
    expect(isUnreachable(wrapped(named('FetchError', { code: 'ECONNREFUSED' })))).toBe(true)
    expect(isUnreachable(wrapped(named('AbortError')))).toBe(true)
    expect(isUnreachable(wrapped(named('TimeoutError'), 'OAUTH_TIMEOUT'))).toBe(true)
    expect(isUnreachable(wrapped(named('Error', { code: 'ECONNRESET' })))).toBe(true)
    expect(isUnreachable(wrapped(new Response('busy', { status: 503 }), 'OAUTH_RESPONSE_IS_NOT_CONFORM'))).toBe(true)
  })

  it('is false for a provider that answered: a refused token, an OAuth error, a failed check', () => {
    expect(isUnreachable(wrapped(named('OperationProcessingError'), 'OAUTH_JWT_CLAIM_COMPARISON_FAILED'))).toBe(false)
    expect(isUnreachable(wrapped(new Response('no', { status: 400 }), 'OAUTH_RESPONSE_IS_NOT_CONFORM'))).toBe(false)
    expect(isUnreachable(new Error('something else'))).toBe(false)
    expect(isUnreachable('not an error')).toBe(false)
  })
})

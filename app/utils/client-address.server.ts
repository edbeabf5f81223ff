import { getEnv } from './env.server.ts'

/**
 * The client's network address, for throttling: with TRUST_PROXY, the last X-Forwarded-For entry (the
 * address our proxy saw and appended; earlier entries are whatever the client claimed), else the socket address that the web server (server/web-server.js) puts in its own header (a client
 * cannot forge it: the server overwrites it). Unknown (undefined) when neither is there.
 */
export function clientAddress(request: Request): string | undefined {
  if (getEnv().TRUST_PROXY) {
    const forwarded = request.headers.get('X-Forwarded-For')?.split(',').at(-1)?.trim()
    if (forwarded) return forwarded
  }
  return request.headers.get('X-Portal-Client-Address')?.trim() || undefined
}

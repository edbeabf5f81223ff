import { getEnv } from './env.server.ts'

/**
 * The client's network address, for throttling: the first X-Forwarded-For hop when TRUST_PROXY says a
 * proxy sets it, else the socket address that cli/app-server.js puts in its own header (a client
 * cannot forge it: the server overwrites it). Unknown (undefined) when neither is there.
 */
export function clientAddress(request: Request): string | undefined {
  if (getEnv().TRUST_PROXY) {
    const forwarded = request.headers.get('X-Forwarded-For')?.split(',')[0]?.trim()
    if (forwarded) return forwarded
  }
  return request.headers.get('X-Portal-Client-Address')?.trim() || undefined
}

import { jwtVerify, SignJWT, errors as joseErrors } from 'jose'
import { getSecrets } from '#app/utils/env.server.ts'

export const TOKEN_LIFETIME_SECONDS = 24 * 60 * 60

export type TokenClaims = { sub: string; r_id: number; ver: number; exp: number }

const key = () => new TextEncoder().encode(getSecrets().jwtSecret)

/** One JWT serves the cookie session and the /api Bearer header (DESIGN.md §5). */
export async function issueToken(user: { id: string; roleId: number; tokenVersion: number }) {
  return new SignJWT({ r_id: user.roleId, ver: user.tokenVersion })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user.id)
    .setIssuedAt()
    .setExpirationTime(`${TOKEN_LIFETIME_SECONDS}s`)
    .sign(key())
}

/**
 * Tokens whose signature this process has checked, with their claims: a player sends the same token
 * with every heartbeat, so its signature is checked once and its expiry on every call. Whether it is
 * still honoured (the user's token version) is for the caller to ask the database, every time.
 */
const verified = { secret: '', claims: new Map<string, TokenClaims>() }
const VERIFIED_MAX = 10_000

/** The claims of a valid token, or undefined for a missing, forged, expired or malformed one. */
export async function readToken(token: string | null | undefined): Promise<TokenClaims | undefined> {
  if (!token) return undefined
  const secret = getSecrets().jwtSecret
  if (verified.secret !== secret) verified.claims.clear()
  verified.secret = secret
  const known = verified.claims.get(token)
  if (known) {
    if (known.exp * 1000 > Date.now()) return known
    verified.claims.delete(token)
    return undefined
  }
  try {
    const { payload } = await jwtVerify(token, key(), { algorithms: ['HS256'] })
    if (typeof payload.sub !== 'string' || typeof payload.r_id !== 'number' || typeof payload.ver !== 'number') {
      return undefined
    }
    const claims = { sub: payload.sub, r_id: payload.r_id, ver: payload.ver, exp: payload.exp ?? 0 }
    // jose refuses a token without an expiry only if asked: such a token is checked on every call
    if (payload.exp) {
      if (verified.claims.size >= VERIFIED_MAX) verified.claims.clear()
      verified.claims.set(token, claims)
    }
    return claims
  } catch (error) {
    if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return undefined
    throw error
  }
}

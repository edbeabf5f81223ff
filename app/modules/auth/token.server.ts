import { createHash, randomUUID } from 'node:crypto'
import { jwtVerify, SignJWT, errors as joseErrors } from 'jose'
import { getSecrets } from '#app/utils/env.server.ts'

export const TOKEN_LIFETIME_SECONDS = 24 * 60 * 60

/** `sid`: the session the token opens (its `jti`), which a logout ends (ADR 027). */
type TokenClaims = { sub: string; r_id: number; ver: number; exp: number; sid: string }

const key = () => new TextEncoder().encode(getSecrets().jwtSecret)

/** One JWT serves the cookie session and the /api Bearer header (ADR 003); each sign-in is a session of its own. */
export async function issueToken(user: { id: string; roleId: number; tokenVersion: number }) {
  return new SignJWT({ r_id: user.roleId, ver: user.tokenVersion })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user.id)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${TOKEN_LIFETIME_SECONDS}s`)
    .sign(key())
}

/**
 * Tokens whose signature this process has checked, with their claims: a player sends the same token
 * with every heartbeat, so its signature is checked once and its expiry on every call. Whether it is
 * still honoured (the user's token version, a logout) is for the caller to ask the database, every time.
 */
const verified = { secret: '', claims: new Map<string, TokenClaims>() }
const VERIFIED_MAX = 10_000

/** The claims of a valid token, or undefined for a missing, forged, expired, never-expiring or malformed one. */
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
    // a token without an expiry would open the app for ever: jose refuses it only when asked
    const { payload } = await jwtVerify(token, key(), { algorithms: ['HS256'], requiredClaims: ['exp'] })
    const { sub, r_id, ver, exp, jti } = payload
    if (typeof sub !== 'string' || typeof r_id !== 'number' || typeof ver !== 'number' || typeof exp !== 'number') {
      return undefined
    }
    // tokens issued before sessions had ids are told apart by their own hash, so a logout ends them too
    const sid = typeof jti === 'string' ? jti : createHash('sha256').update(token).digest('base64url')
    const claims = { sub, r_id, ver, exp, sid }
    if (verified.claims.size >= VERIFIED_MAX) verified.claims.clear()
    verified.claims.set(token, claims)
    return claims
  } catch (error) {
    if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return undefined
    throw error
  }
}

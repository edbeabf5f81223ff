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

/** The claims of a valid token, or undefined for a missing, forged, expired or malformed one. */
export async function readToken(token: string | null | undefined): Promise<TokenClaims | undefined> {
  if (!token) return undefined
  try {
    const { payload } = await jwtVerify(token, key(), { algorithms: ['HS256'] })
    if (typeof payload.sub !== 'string' || typeof payload.r_id !== 'number' || typeof payload.ver !== 'number') {
      return undefined
    }
    return { sub: payload.sub, r_id: payload.r_id, ver: payload.ver, exp: payload.exp ?? 0 }
  } catch (error) {
    if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return undefined
    throw error
  }
}

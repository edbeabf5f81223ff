import { Op } from 'sequelize'
import { db, query, sql } from '#db/client.ts'
import type { User } from '#db/models/index.ts'
import { forbidden, ServiceError, unauthorized } from '../errors.ts'
import { passwordsTurnedOff, requiredProviderFor } from '../sso/required.server.ts'
import { verifyPassword } from './password.server.ts'
import type { Actor, RoleId } from './roles.ts'
import { ACCOUNT_DISABLED, WRONG_CREDENTIALS, type LoginInput } from './schema.ts'
import { beginAttempt, finishAttempt, mayCheckPassword, TOO_MANY_ATTEMPTS } from './sign-ins.server.ts'
import { issueToken, readToken } from './token.server.ts'

/** What pages and /api know of the signed-in user. */
export type SessionUser = Actor & {
  id: string
  firstName: string
  lastName: string
  userName: string
  email: string
}

export function toSessionUser(user: User): SessionUser {
  return {
    id: user.id,
    roleId: user.roleId as RoleId,
    firstName: user.firstName,
    lastName: user.lastName,
    userName: user.userName,
    email: user.email,
  }
}

/**
 * Check an email-or-username and password; the same answer (401) whether the account is missing or
 * the password is wrong, and about the same time spent. Throttled by the wrong passwords before it
 * (sign-ins.server.ts, ADR 027): 429 for an address that has been failing, never for the owner at an
 * address that has not. Every attempt is recorded with its account, address and outcome. The right password of
 * a disabled account is refused with 403 (docs/product.md#disabled-accounts).
 */
export async function login(
  input: LoginInput,
  from: { address?: string } = {},
): Promise<{ user: SessionUser; token: string }> {
  const { User } = await db()
  const identifier = input.email.trim()
  const user = await User.findOne({
    where: { [Op.or]: [{ email: identifier }, { userName: identifier }] },
  })
  // a company that requires its provider has turned passwords off for its domains: said before any password is
  // checked, so a right password is no more use than a wrong one
  const required = await requiredProviderFor(user?.email ?? identifier)
  if (required) throw forbidden(passwordsTurnedOff(required, user?.email ?? identifier))
  const account = user ? `user:${user.id}` : `name:${identifier.toLowerCase()}`
  const attempt = await beginAttempt(account, user?.id ?? null, from.address)
  if (!(await mayCheckPassword(attempt))) {
    await finishAttempt(attempt, 'throttled')
    throw new ServiceError(429, TOO_MANY_ATTEMPTS)
  }
  const ok = (await verifyPassword(user?.passwordHash ?? null, input.password)) && user !== null
  // a disabled account says so only to the right password: a wrong one gets the same 401 as anyone
  const disabled = ok && user.disabledAt !== null
  await finishAttempt(attempt, disabled ? 'disabled' : ok ? 'success' : 'wrong_password')
  if (!user || !ok) throw unauthorized(WRONG_CREDENTIALS)
  if (disabled) throw forbidden(ACCOUNT_DISABLED)
  return { user: toSessionUser(user), token: await issueToken(user) }
}

/**
 * The user a token speaks for, if it is valid, unexpired, not logged out, not revoked by a newer token version,
 * and the account is not disabled.
 */
export async function userFromToken(token: string | null | undefined): Promise<SessionUser | undefined> {
  const claims = await readToken(token)
  if (!claims) return undefined
  // every /api call asks this: the few columns it needs, straight through pg
  const [user] = await query<SessionUser>(TOKEN_USER, { id: claims.sub, version: claims.ver, session: claims.sid })
  return user
}

const TOKEN_USER = sql(`
  SELECT id, role_id AS "roleId", first_name AS "firstName", last_name AS "lastName", user_name AS "userName", email
    FROM users
   WHERE id = CAST(:id AS uuid) AND token_version = CAST(:version AS int) AND disabled_at IS NULL
     AND NOT EXISTS (SELECT 1 FROM ended_sessions WHERE session_id = :session)`)

/**
 * Logout: the token's session ends on the server, so a copy of the cookie (or the token) opens nothing
 * any more. Kept until the token would have expired anyway. A token that is not valid has nothing to end.
 */
export async function endSession(token: string | null | undefined) {
  const claims = await readToken(token)
  if (!claims) return
  await query(END_SESSION, { session: claims.sid, exp: claims.exp })
  if (Math.random() < 0.05) await query(FORGET_ENDED_SESSIONS, {})
}

const END_SESSION = sql(`
  INSERT INTO ended_sessions (session_id, expires_at) VALUES (:session, to_timestamp(CAST(:exp AS bigint)))
  ON CONFLICT (session_id) DO NOTHING`)
const FORGET_ENDED_SESSIONS = sql('DELETE FROM ended_sessions WHERE expires_at < now()')

/** "Log out everywhere": a new token version, so every session and API token of the user stops working at once. */
export async function signOutEverywhere(actor: Actor) {
  if (!actor.id) throw forbidden('Only a signed-in user can log out everywhere.')
  await query(NEXT_TOKEN_VERSION, { id: actor.id })
}

const NEXT_TOKEN_VERSION = sql('UPDATE users SET token_version = token_version + 1 WHERE id = CAST(:id AS uuid)')

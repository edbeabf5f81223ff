import { Op, QueryTypes } from 'sequelize'
import { db, query, sequelize, sql } from '#db/client.ts'
import type { User } from '#db/models/index.ts'
import { ServiceError, unauthorized } from '../errors.ts'
import { verifyPassword } from './password.server.ts'
import type { Actor, RoleId } from './roles.ts'
import { WRONG_CREDENTIALS, type LoginInput } from './schema.ts'
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

/** Sign-in throttling (DESIGN.md §8): failures counted per account and per client address. */
export const LOGIN_WINDOW_MINUTES = 15
export const ACCOUNT_FAILURE_LIMIT = 10
export const ADDRESS_FAILURE_LIMIT = 100
export const TOO_MANY_ATTEMPTS = 'Too many failed sign-in attempts. Please wait 15 minutes and try again.'

/**
 * Check an email-or-username and password; the same answer (401) whether the account is missing or
 * the password is wrong, and about the same time spent. Ten failures for one account, or a hundred
 * from one address, within 15 minutes answer 429 until the window moves on; a success is not
 * counted and clears the account's failures.
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
  const account = user ? `user:${user.id}` : `name:${identifier.toLowerCase()}`
  // the attempt is counted before the password is checked, so attempts sent all at once are counted too
  const attempt = await recordAttempt(account, from.address)
  if (await isThrottled(account, from.address)) throw new ServiceError(429, TOO_MANY_ATTEMPTS)
  const ok = await verifyPassword(user?.passwordHash ?? null, input.password)
  const sql = await sequelize()
  if (!user || !ok) throw unauthorized(WRONG_CREDENTIALS)
  // a success is not a failure, and clears the account's earlier ones
  await sql.query('DELETE FROM login_failures WHERE account = :account OR id = :attempt', {
    replacements: { account, attempt },
  })
  return { user: toSessionUser(user), token: await issueToken(user) }
}

async function isThrottled(account: string, address: string | undefined) {
  const [counts] = await (
    await sequelize()
  ).query<{ account_failures: string; address_failures: string }>(
    `SELECT
       (SELECT count(*) FROM login_failures
         WHERE account = :account AND failed_at > now() - make_interval(mins => :minutes)) AS account_failures,
       (SELECT count(*) FROM login_failures
         WHERE address = :address AND failed_at > now() - make_interval(mins => :minutes)) AS address_failures`,
    {
      replacements: { account, address: address ?? null, minutes: LOGIN_WINDOW_MINUTES },
      type: QueryTypes.SELECT,
    },
  )
  return (
    // this attempt is among the rows: the limit-th failure is still answered, the next ones are not
    Number(counts.account_failures) > ACCOUNT_FAILURE_LIMIT || Number(counts.address_failures) > ADDRESS_FAILURE_LIMIT
  )
}

async function recordAttempt(account: string, address: string | undefined): Promise<number> {
  const sql = await sequelize()
  const [row] = await sql.query<{ id: string }>(
    'INSERT INTO login_failures (account, address) VALUES (:account, :address) RETURNING id',
    { replacements: { account, address: address ?? null }, type: QueryTypes.SELECT },
  )
  // now and then, forget failures nobody counts any more
  if (Math.random() < 0.01) await sql.query("DELETE FROM login_failures WHERE failed_at < now() - interval '1 day'")
  return Number(row.id)
}

/** The user a token speaks for, if it is valid, unexpired and not revoked by a password change. */
export async function userFromToken(token: string | null | undefined): Promise<SessionUser | undefined> {
  const claims = await readToken(token)
  if (!claims) return undefined
  // every /api call asks this: the few columns it needs, straight through pg
  const [user] = await query<SessionUser>(TOKEN_USER, { id: claims.sub, version: claims.ver })
  return user
}

const TOKEN_USER = sql(`
  SELECT id, role_id AS "roleId", first_name AS "firstName", last_name AS "lastName", user_name AS "userName", email
    FROM users
   WHERE id = CAST(:id AS uuid) AND token_version = CAST(:version AS int)`)

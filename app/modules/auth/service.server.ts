import { Op } from 'sequelize'
import { db } from '#db/client.ts'
import type { User } from '#db/models/index.ts'
import { unauthorized } from '../errors.ts'
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

/**
 * Check an email-or-username and password; the same answer (401) whether the account is missing or
 * the password is wrong, and about the same time spent.
 */
export async function login(input: LoginInput): Promise<{ user: SessionUser; token: string }> {
  const { User } = await db()
  const identifier = input.email.trim()
  const user = await User.findOne({
    where: { [Op.or]: [{ email: identifier }, { userName: identifier }] },
  })
  const ok = await verifyPassword(user?.passwordHash ?? null, input.password)
  if (!user || !ok) throw unauthorized(WRONG_CREDENTIALS)
  return { user: toSessionUser(user), token: await issueToken(user) }
}

/** The user a token speaks for, if it is valid, unexpired and not revoked by a password change. */
export async function userFromToken(token: string | null | undefined): Promise<SessionUser | undefined> {
  const claims = await readToken(token)
  if (!claims) return undefined
  const { User } = await db()
  const user = await User.findByPk(claims.sub)
  if (!user || user.tokenVersion !== claims.ver) return undefined
  return toSessionUser(user)
}

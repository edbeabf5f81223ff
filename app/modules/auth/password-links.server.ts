import { createHash, randomBytes } from 'node:crypto'
import { Op, QueryTypes, type Transaction } from 'sequelize'
import { getEnv } from '#app/utils/env.server.ts'
import { db, sequelize, transaction } from '#db/client.ts'
import type { User } from '#db/models/index.ts'
import { forbidden, ServiceError } from '../errors.ts'
import { sendMail } from '../mail/service.server.ts'
import { passwordLinkMessage } from '../mail/templates.ts'
import { passwordsTurnedOff, requiredProviderFor } from '../sso/required.server.ts'
import { NewPasswordSchema, parsePasswordInput } from '../users/schema.ts'
import { hashPassword } from './password.server.ts'
import { FORGOT_PASSWORD_ANSWER, TOKEN_EXPIRED } from './schema.ts'
import { recordPasswordChange } from './sign-ins.server.ts'

// Reset and invitation links (docs/product.md#sign-in-and-sessions): 256 random bits, only their SHA-256 kept, single
// use, 1 hour for a reset and 7 days for an invitation; a newer link cancels the older ones, and
// using one signs every session out. Links are built from PUBLIC_URL, never from the Host header.

const RESET_LIFETIME_MS = 60 * 60 * 1000
const INVITE_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000
export { FORGOT_PASSWORD_ANSWER, TOKEN_EXPIRED } from './schema.ts'

/**
 * An unknown, used or expired link, in the old client's words: the reset page sends the visitor to ask
 * for a new one, the /api answers it as any 400.
 */
export class UnusableLink extends ServiceError {
  constructor() {
    super(400, TOKEN_EXPIRED)
  }
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex')

const resetLink = (token: string) => `${getEnv().PUBLIC_URL}/reset-Password/${token}`

/** A new link for this user; older unused links of the same user stop working. */
export async function createPasswordLink(
  userId: string,
  purpose: 'reset' | 'invite',
  transaction?: Transaction,
): Promise<string> {
  const { PasswordResetToken } = await db()
  const token = randomBytes(32).toString('base64url')
  await PasswordResetToken.update({ usedAt: new Date() }, { where: { userId, usedAt: null }, transaction })
  await PasswordResetToken.create(
    {
      userId,
      tokenHash: hash(token),
      purpose,
      expiresAt: new Date(Date.now() + (purpose === 'reset' ? RESET_LIFETIME_MS : INVITE_LIFETIME_MS)),
    },
    { transaction },
  )
  return token
}

/** Mail the link (reset or invitation). */
export async function mailPasswordLink(
  user: { email: string; firstName: string },
  token: string,
  purpose: 'reset' | 'invite',
) {
  const message = passwordLinkMessage({
    kind: purpose,
    firstName: user.firstName,
    link: resetLink(token),
    expiresIn: purpose === 'reset' ? 'one hour' : '7 days',
  })
  await sendMail({ to: user.email, ...message })
}

/**
 * Stores a new password hash, inside the caller's transaction: the token version moves on, which
 * signs out every session and token (ADR 003), and every reset or invitation link sent before
 * stops working; earlier wrong passwords for the account no longer count against sign-in. A reset and a
 * password change both end here.
 */
export async function replacePassword(user: User, passwordHash: string, transaction: Transaction) {
  const { PasswordResetToken } = await db()
  await user.update({ passwordHash, tokenVersion: user.tokenVersion + 1 }, { transaction })
  await PasswordResetToken.update({ usedAt: new Date() }, { where: { userId: user.id, usedAt: null }, transaction })
  await recordPasswordChange(user.id, transaction)
}

/**
 * POST /api/user/forgotPassword and /forgot-Password: the same answer whether or not an account
 * matches, in about the same time (the mail is sent after answering). A disabled account gets no mail.
 */
export async function requestPasswordReset(userNameOrEmail: string): Promise<{ message: string }> {
  const { User } = await db()
  const identifier = userNameOrEmail.trim()
  // the passwords of a required provider's domains are turned off: said of the domain, whoever asks
  const required = await requiredProviderFor(identifier)
  if (required) throw forbidden(passwordsTurnedOff(required, identifier))
  const user = identifier
    ? await User.findOne({ where: { [Op.or]: [{ email: identifier }, { userName: identifier }] } })
    : null
  // everything past the lookup happens after answering, so a known account takes as long as an unknown one
  if (user && !user.disabledAt)
    setImmediate(
      () =>
        void sendResetLink(user).catch((error: unknown) =>
          console.error('The password reset mail could not be sent:', error),
        ),
    )
  return { message: FORGOT_PASSWORD_ANSWER }
}

/** One mail a minute per account at most, so the form cannot be used to flood someone's inbox. */
async function sendResetLink(user: { id: string; email: string; firstName: string }) {
  const { PasswordResetToken } = await db()
  // asked for by username: no mail where a required provider keeps the password (the answer is the same)
  if (await requiredProviderFor(user.email)) return
  const recent = await PasswordResetToken.count({
    where: { userId: user.id, purpose: 'reset', createdAt: { [Op.gt]: new Date(Date.now() - 60_000) } },
  })
  if (recent > 0) return
  await mailPasswordLink(user, await createPasswordLink(user.id, 'reset'), 'reset')
}

/** Is this link still usable? (The reset page asks before showing its form.) */
export async function passwordLinkIsValid(token: string): Promise<boolean> {
  if (!token || token.length > 200) return false
  const { PasswordResetToken } = await db()
  const row = await PasswordResetToken.findOne({
    where: { tokenHash: hash(token), usedAt: null, expiresAt: { [Op.gt]: new Date() } },
    attributes: ['id'],
  })
  return row !== null
}

/**
 * POST /api/user/resetPassword/{token}: set the new password with a valid link. The link is used
 * up in the same statement that checks it, so two requests cannot both use it; every session and
 * token of the account stops working. An unknown, used or expired link is refused as UnusableLink.
 */
export async function resetPassword(token: string, input: unknown): Promise<{ userName: string }> {
  const data = parsePasswordInput(NewPasswordSchema, input)
  // an unknown or spent link costs one indexed read, not a password hash (argon2id, 64 MiB)
  if (!(await passwordLinkIsValid(token))) throw new UnusableLink()
  const passwordHash = await hashPassword(data.password)
  return transaction(async (transaction) => {
    const [used] = await (
      await sequelize()
    ).query<{ user_id: string }>(
      `UPDATE password_reset_tokens SET used_at = now()
        WHERE token_hash = :hash AND used_at IS NULL AND expires_at > now()
        RETURNING user_id`,
      { replacements: { hash: hash(token) }, type: QueryTypes.SELECT, transaction },
    )
    if (!used) throw new UnusableLink()
    const { User } = await db()
    const user = await User.findByPk(used.user_id, { transaction, lock: transaction.LOCK.UPDATE })
    // a disabled account's links were used up when it was disabled; one sent meanwhile is no better
    if (!user || user.disabledAt) throw new UnusableLink()
    const required = await requiredProviderFor(user.email)
    if (required) throw forbidden(passwordsTurnedOff(required, user.email))
    await replacePassword(user, passwordHash, transaction)
    return { userName: user.userName }
  })
}

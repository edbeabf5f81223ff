import type pg from 'pg'
import { db, query, sql, withTransaction } from '#db/client.ts'
import type { User } from '#db/models/index.ts'
import { ROLE } from '../auth/roles.ts'
import { ACCOUNT_DISABLED } from '../auth/schema.ts'
import { toSessionUser, type SessionUser } from '../auth/service.server.ts'
import { issueToken, readToken, TOKEN_LIFETIME_SECONDS } from '../auth/token.server.ts'
import { syncGrants } from './grants.server.ts'
import type { Provider } from './providers.server.ts'
import type { Refusal } from './schema.ts'

// Who a person signing in through a provider is in the portal (docs/operations.md#company-sign-in):
//   1. the account their subject at the provider was linked to at an earlier sign-in;
//   2. else the account with their email, when the provider serves the email's domain and says it verified it;
//   3. else a new learner account, when the provider creates accounts (and the person is in one of its
//      account groups, when it names some).
// A disabled account is refused whichever way it was found. Every attempt is recorded in sign_in_events.

/** A sign-in the portal refuses: a reason kept in the record, and the words the person reads. */
export class SignInRefused extends Error {
  override name = 'SignInRefused'
  constructor(
    readonly reason: Refusal,
    message: string,
  ) {
    super(message)
  }
}

/** The claims the portal reads, from the ID token and the provider's userinfo. */
export type PersonClaims = {
  sub: string
  email?: unknown
  email_verified?: unknown
  given_name?: unknown
  family_name?: unknown
  name?: unknown
  preferred_username?: unknown
  sid?: unknown
  [claim: string]: unknown
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '')
const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase()

/** The groups the provider names, from its groups claim: a list of names, or one name. */
function groupsOf(claims: PersonClaims, claim: string): string[] {
  const value = claims[claim]
  const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : []
  return [...new Set(list.filter((g): g is string => typeof g === 'string' && g.length > 0 && g.length <= 256))].slice(
    0,
    1000,
  )
}

// Some providers send "true" as text; Microsoft Entra ID says it with its optional claim `xms_edov` (the email's
// domain is verified by its owner), as it sends no email_verified
const verified = (claims: PersonClaims) =>
  [claims.email_verified, claims.xms_edov].some((value) => value === true || value === 'true' || value === 1)

type AccountRow = { id: string; disabled: boolean }

const BY_SUBJECT = sql(`
  SELECT u.id, (u.disabled_at IS NOT NULL) AS disabled FROM user_identities i JOIN users u ON u.id = i.user_id
   WHERE i.provider_id = :provider AND i.subject = :subject`)
const BY_EMAIL = sql(`SELECT id, (disabled_at IS NOT NULL) AS disabled FROM users WHERE email = :email::citext`)

/**
 * The portal account for a verified sign-in, found, linked or created, with the assignments its groups give;
 * refused (SignInRefused) otherwise, with nothing written.
 */
export async function accountFor(provider: Provider, claims: PersonClaims): Promise<User> {
  const groups = groupsOf(claims, provider.groupsClaim)
  const email = text(claims.email).toLowerCase()
  const bySubject = (await query<AccountRow>(BY_SUBJECT, { provider: provider.id, subject: claims.sub }))[0]
  let found = bySubject
  if (!found) {
    if (!email || !email.includes('@'))
      throw new SignInRefused(
        'no_email',
        `${provider.name} did not tell the portal your email address, so you were not signed in. Ask an admin of the portal.`,
      )
    if (!provider.domains.includes(domainOf(email)))
      throw new SignInRefused(
        'domain',
        `${provider.name} does not sign in accounts at ${domainOf(email)}. Sign in with your password, or with the provider of that domain.`,
      )
    if (!verified(claims))
      throw new SignInRefused(
        'email_unverified',
        `${provider.name} has not verified your email address (${email}), so it cannot be linked to a portal account. Verify it at ${provider.name}, then try again.`,
      )
    found = (await query<AccountRow>(BY_EMAIL, { email }))[0]
    if (!found) {
      if (!provider.createAccounts)
        throw new SignInRefused(
          'no_account',
          `There is no portal account for ${email}. Ask an admin of the portal to create one.`,
        )
      if (provider.accountGroups.length && !groups.some((g) => provider.accountGroups.includes(g)))
        throw new SignInRefused(
          'not_in_group',
          `Your ${provider.name} account is not in a group that gets a portal account. Ask an admin of the portal.`,
        )
    }
  }
  if (found?.disabled) throw new SignInRefused('disabled', ACCOUNT_DISABLED)
  const userId = await withTransaction(async (client) => {
    const id = found?.id ?? (await createAccount(client, claims, email))
    // one subject per account and provider: a person whose account at the provider was made anew (a new subject,
    // the same verified email) is linked anew, and the old subject no longer signs in
    await client.query('DELETE FROM user_identities WHERE provider_id = $1 AND user_id = $2 AND subject <> $3', [
      provider.id,
      id,
      claims.sub,
    ])
    await client.query(
      `INSERT INTO user_identities (provider_id, subject, user_id, email, groups) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (provider_id, subject) DO UPDATE
          SET email = EXCLUDED.email, groups = EXCLUDED.groups, last_sign_in_at = now()`,
      [provider.id, claims.sub, id, email || null, groups],
    )
    await syncGrants(client, provider.id, id)
    return id
  })
  const { User } = await db()
  const user = await User.findByPk(userId)
  if (!user) throw new SignInRefused('no_account', 'The account you signed in to was removed meanwhile.')
  return user
}

const NAME_MAX = 60

/** A new learner from the provider's claims: names as given (or the email's), a username made from the email. */
async function createAccount(client: pg.ClientBase, claims: PersonClaims, email: string): Promise<string> {
  const local = email.slice(0, email.lastIndexOf('@'))
  const full = text(claims.name).split(/\s+/).filter(Boolean)
  const firstName = (text(claims.given_name) || full[0] || local).slice(0, NAME_MAX)
  const lastName = (text(claims.family_name) || full.slice(1).join(' ')).slice(0, NAME_MAX)
  const base = (text(claims.preferred_username).replace(/@.*$/, '') || local)
    .replace(/[^A-Za-z0-9._-]+/g, '')
    .slice(0, 34)
    .padEnd(4, '0')
  for (let attempt = 0; attempt < 50; attempt++) {
    const userName = attempt === 0 ? base : `${base}${attempt + 1}`
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO users (first_name, last_name, user_name, email, password_hash, role_id)
       VALUES ($1, $2, $3, $4, NULL, $5)
       ON CONFLICT DO NOTHING RETURNING id`,
      [firstName, lastName, userName, email, ROLE.learner],
    )
    if (rows[0]) return rows[0].id
    // the same person's other sign-in made the account a moment ago: that one it is; else the username is taken
    const { rows: made } = await client.query<AccountRow>(BY_EMAIL.text, [email])
    if (made[0]) return made[0].id
  }
  throw new Error(`No free username near ${base}.`)
}

const RECORD = sql(`
  INSERT INTO sign_in_events (account, user_id, address, outcome, provider_id, subject, reason)
  VALUES (:account, CAST(:userId AS uuid), CAST(:address AS text), :outcome, CAST(:provider AS uuid),
          CAST(:subject AS text), CAST(:reason AS text))`)

/** Record a sign-in through a provider: its account (when one was found), the subject, and why it was refused. */
export async function recordProviderSignIn(event: {
  provider: Pick<Provider, 'id' | 'slug'>
  subject?: string
  userId?: string
  address?: string
  refused?: Refusal
}) {
  await query(RECORD, {
    account: event.userId ? `user:${event.userId}` : `sso:${event.provider.slug}:${event.subject ?? ''}`,
    userId: event.userId ?? null,
    address: event.address ?? null,
    outcome: event.refused ? 'refused' : 'success',
    provider: event.provider.id,
    subject: event.subject ?? null,
    reason: event.refused ?? null,
  })
}

const KEEP_SESSION = sql(`
  INSERT INTO sso_sessions (session_id, provider_id, subject, provider_session, id_token, expires_at)
  VALUES (:session, :provider, :subject, CAST(:providerSession AS text), CAST(:idToken AS text),
          to_timestamp(CAST(:exp AS bigint)))`)

/**
 * The portal's usual session for the account (the same token a password sign-in gives), remembered with the
 * provider's subject and session, for a back-channel logout and for the sign-out to hand the ID token back.
 */
export async function openSession(
  provider: Pick<Provider, 'id'>,
  user: User,
  claims: PersonClaims,
  idToken: string | undefined,
): Promise<{ user: SessionUser; token: string }> {
  const token = await issueToken(user)
  const session = await readToken(token)
  if (!session) throw new Error('A token just issued does not read.')
  await query(KEEP_SESSION, {
    session: session.sid,
    provider: provider.id,
    subject: claims.sub,
    providerSession: text(claims.sid) || null,
    idToken: idToken ?? null,
    exp: session.exp ?? Math.floor(Date.now() / 1000) + TOKEN_LIFETIME_SECONDS,
  })
  return { user: toSessionUser(user), token }
}

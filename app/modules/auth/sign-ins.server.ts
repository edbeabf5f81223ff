import { setTimeout as pause } from 'node:timers/promises'
import { Op, type Transaction } from 'sequelize'
import { db, query, sequelize, sql } from '#db/client.ts'
import { rateLimiter } from '#db/rate-limits.ts'
import { requirePermission } from './permissions.ts'
import { type Actor } from './roles.ts'
import { SignInEventsQuerySchema, type SignInOutcome } from './schema.ts'

// Sign-in throttling and the record of sign-ins (ADR 027). The throttle counts wrong passwords with
// rate-limiter-flexible in PostgreSQL (db/rate-limits.ts), so that every process and every instance sees
// the same numbers; every attempt is also a row of sign_in_events, the record admins read. Only wrong
// passwords count, and mostly by address: a stranger's failures hold back the stranger, not the owner.

const SIGN_IN_WINDOW_MINUTES = 15
/** Wrong passwords for one account from one address; a success there forgets them. */
export const PAIR_FAILURE_LIMIT = 10
/** Wrong passwords from one address, for any accounts. */
export const ADDRESS_FAILURE_LIMIT = 100
/** Wrong passwords for one account from all addresses together that make it an account under attack … */
export const ACCOUNT_UNDER_ATTACK_FAILURES = 30
/** … when an address that has failed for it gets this many guesses instead of PAIR_FAILURE_LIMIT. */
export const PAIR_FAILURE_LIMIT_UNDER_ATTACK = 3
export const TOO_MANY_ATTEMPTS = 'Too many failed sign-in attempts. Please wait 15 minutes and try again.'

/** A place among the attempts being checked is given up after this long (its process died). */
const CHECKING_GIVEN_UP_SECONDS = 30
/** The longest an attempt waits for earlier ones to be checked before it is refused. */
const WAIT_AT_MOST_MS = 10_000
const SIGN_IN_EVENTS_KEPT_DAYS = 90
/** The record is swept of rows older than SIGN_IN_EVENTS_KEPT_DAYS (every hour, a job), this many rows at a time. */
const SWEEP_AT_MOST = 10_000

/** What the failures are counted by: the account from the address, the address, the account. */
type Kind = 'pair' | 'address' | 'account'
const KINDS: Kind[] = ['pair', 'address', 'account']
type Counts = Record<Kind, number>

const FAILURE_LIMITS: Counts = {
  pair: PAIR_FAILURE_LIMIT,
  address: ADDRESS_FAILURE_LIMIT,
  account: ACCOUNT_UNDER_ATTACK_FAILURES,
}

/**
 * The counters: wrong passwords by pair, address and account in the window, and the attempts being checked
 * now. A count that reaches its limit is held there for a whole window from the failure that reached it,
 * so the end of a window never lets a burst of guesses through.
 */
export async function signInLimits() {
  const failures = async (kind: Kind) =>
    rateLimiter({
      keyPrefix: `sign-in-failures-${kind}`,
      points: FAILURE_LIMITS[kind],
      duration: SIGN_IN_WINDOW_MINUTES * 60,
    })
  return {
    failures: { pair: await failures('pair'), address: await failures('address'), account: await failures('account') },
    checking: await rateLimiter({
      keyPrefix: 'sign-in-checking',
      points: Number.MAX_SAFE_INTEGER,
      duration: CHECKING_GIVEN_UP_SECONDS,
    }),
  }
}

type Attempt = { id: string; account: string; address: string; keys: Record<Kind, string>; checking: boolean }

/** The attempt's row in the record, 'checking' until its outcome is known. */
export async function beginAttempt(account: string, userId: string | null, address: string | undefined) {
  const [row] = await query<{ id: string }>(BEGIN_ATTEMPT, { account, userId, address: address ?? null })
  const from = address ?? ''
  const keys = { pair: `${account}\n${from}`, address: from, account }
  return { id: row.id, account, address: from, keys, checking: false } satisfies Attempt
}

const BEGIN_ATTEMPT = sql(`
  INSERT INTO sign_in_events (account, user_id, address) VALUES (:account, CAST(:userId AS uuid), CAST(:address AS text))
  RETURNING id`)

function refused({ pair, address, account }: Counts) {
  return (
    address >= ADDRESS_FAILURE_LIMIT ||
    pair >= PAIR_FAILURE_LIMIT ||
    (account >= ACCOUNT_UNDER_ATTACK_FAILURES && pair >= PAIR_FAILURE_LIMIT_UNDER_ATTACK)
  )
}

const byKind = async (count: (kind: Kind) => Promise<number>): Promise<Counts> => {
  const [pair, address, account] = await Promise.all(KINDS.map(count))
  return { pair, address, account }
}

/**
 * Whether this attempt may have its password checked. It takes a place among the attempts of its pair,
 * address and account being checked now, then reads the failures (after: an attempt that gave its place
 * back has already counted its failure). Refused if the failures alone refuse it; checked if they would
 * not refuse it even were every attempt ahead of it to fail; otherwise it gives its place back, waits and
 * asks again, so a burst checks no more passwords than the limits allow and a burst of right passwords is
 * not refused for being many. An attempt that may be checked keeps its place until `finishAttempt`.
 */
export async function mayCheckPassword(attempt: Attempt): Promise<boolean> {
  const { failures, checking } = await signInLimits()
  const deadline = Date.now() + WAIT_AT_MOST_MS
  for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
    const ahead = await byKind(async (kind) => (await checking.penalty(checkingKey(attempt, kind))).consumedPoints - 1)
    attempt.checking = true
    const failed = await byKind(async (kind) => (await failures[kind].get(attempt.keys[kind]))?.consumedPoints ?? 0)
    if (!refused(failed)) {
      const atWorst = {
        pair: failed.pair + ahead.pair,
        address: failed.address + ahead.address,
        account: failed.account + ahead.account,
      }
      if (!refused(atWorst)) return true
    }
    await giveUpPlace(attempt)
    if (refused(failed) || Date.now() > deadline) return false
    await pause(wait)
  }
}

// one counter of attempts being checked for the three kinds of key, kept apart
const checkingKey = (attempt: Attempt, kind: Kind) => `${kind}\n${attempt.keys[kind]}`

async function giveUpPlace(attempt: Attempt) {
  if (!attempt.checking) return
  attempt.checking = false
  const { checking } = await signInLimits()
  await Promise.all(KINDS.map((kind) => checking.reward(checkingKey(attempt, kind))))
}

/**
 * The outcome, counted and recorded. A wrong password counts for the pair, the address and the account
 * before the attempt gives its place back; a success forgets its pair's failures.
 */
export async function finishAttempt(attempt: Attempt, outcome: Exclude<SignInOutcome, 'checking'>) {
  try {
    const { failures } = await signInLimits()
    if (outcome === 'wrong_password')
      await Promise.all(
        KINDS.map(async (kind) => {
          const counted = await failures[kind].penalty(attempt.keys[kind])
          if (counted.consumedPoints === FAILURE_LIMITS[kind])
            await failures[kind].block(attempt.keys[kind], SIGN_IN_WINDOW_MINUTES * 60)
        }),
      )
    else if (outcome === 'success') await failures.pair.delete(attempt.keys.pair)
  } finally {
    await giveUpPlace(attempt)
  }
  await query(FINISH_ATTEMPT, { id: attempt.id, outcome })
}

const FINISH_ATTEMPT = sql(`UPDATE sign_in_events SET outcome = :outcome WHERE id = CAST(:id AS bigint)`)

/** A password change (or reset) forgets the account's failures: they were guesses at a password that is gone. */
export async function recordPasswordChange(userId: string, transaction: Transaction) {
  const account = `user:${userId}`
  await (
    await sequelize()
  ).query("INSERT INTO sign_in_events (account, user_id, outcome) VALUES (:account, :userId, 'password_changed')", {
    replacements: { account, userId },
    transaction,
  })
  await (await signInLimits()).failures.account.delete(account)
}

/**
 * The record's rows older than SIGN_IN_EVENTS_KEPT_DAYS go, at most SWEEP_AT_MOST at a time (the queue
 * `sign-in-sweep` runs this every hour, so a backlog goes in steps). Answers how many went.
 */
export async function forgetOldSignInEvents(): Promise<number> {
  const rows = await query<{ id: string }>(FORGET_OLD_EVENTS, { days: SIGN_IN_EVENTS_KEPT_DAYS, most: SWEEP_AT_MOST })
  return rows.length
}

const FORGET_OLD_EVENTS = sql(`
  DELETE FROM sign_in_events
   WHERE id IN (SELECT id FROM sign_in_events WHERE at < now() - make_interval(days => :days) LIMIT :most)
  RETURNING id`)

type SignInEvent = {
  id: string
  at: string
  /** the account's email, or what was typed for an account that does not exist */
  account: string
  userId: string | null
  userName: string | null
  address: string | null
  outcome: SignInOutcome
  /** the company provider signed in through (its short name), or null for a password */
  provider: string | null
  /** who the provider said the person is */
  subject: string | null
  /** why the portal refused a sign-in through a provider */
  reason: string | null
}

/** The record of sign-ins, newest first, for admins (and the CLI): by account, address or outcome. */
export async function listSignInEvents(actor: Actor, input: unknown = {}): Promise<SignInEvent[]> {
  // addresses and who failed to sign in are for the people who manage accounts, not coaches
  requirePermission(actor, 'read:sign-ins')
  const { user, address, outcome, provider, limit } = SignInEventsQuerySchema.parse(input)
  const where: string[] = []
  const replacements: Record<string, unknown> = { limit }
  if (user !== undefined) {
    const { User } = await db()
    const found = await User.findOne({ where: { [Op.or]: [{ email: user }, { userName: user }] } })
    where.push('e.account = :account')
    replacements.account = found ? `user:${found.id}` : `name:${user.toLowerCase()}`
  }
  if (address !== undefined) {
    where.push('e.address = :address')
    replacements.address = address
  }
  if (outcome !== undefined) {
    where.push('e.outcome = :outcome')
    replacements.outcome = outcome
  }
  if (provider !== undefined) {
    where.push('p.slug = :provider')
    replacements.provider = provider
  }
  const rows = await query<{
    id: string
    at: Date
    account: string
    user_id: string | null
    email: string | null
    user_name: string | null
    address: string | null
    outcome: SignInOutcome
    provider: string | null
    subject: string | null
    reason: string | null
  }>(
    sql(`SELECT e.id, e.at, e.account, e.user_id, u.email, u.user_name, e.address, e.outcome,
            p.slug AS provider, e.subject, e.reason
       FROM sign_in_events e LEFT JOIN users u ON u.id = e.user_id
       LEFT JOIN identity_providers p ON p.id = e.provider_id
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY e.id DESC
      LIMIT :limit`),
    replacements,
  )
  return rows.map((r) => ({
    id: String(r.id),
    at: new Date(r.at).toISOString(),
    account: r.email ?? r.account.replace(/^name:/, '').replace(/^sso:[^:]*:/, ''),
    userId: r.user_id,
    userName: r.user_name,
    address: r.address,
    outcome: r.outcome,
    provider: r.provider,
    subject: r.subject,
    reason: r.reason,
  }))
}

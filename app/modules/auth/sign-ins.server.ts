import { setTimeout as pause } from 'node:timers/promises'
import { Op, QueryTypes, type Transaction } from 'sequelize'
import { db, query, sequelize, sql } from '#db/client.ts'
import { requirePermission } from './permissions.ts'
import { type Actor } from './roles.ts'
import { SignInEventsQuerySchema, type SignInOutcome } from './schema.ts'

// Sign-in throttling and the record of sign-ins (ADR 027). Every attempt is a row of sign_in_events,
// counted in the database so that every process and every instance sees the same numbers. Only wrong
// passwords count, and mostly by address: a stranger's failures hold back the stranger, not the owner.

export const SIGN_IN_WINDOW_MINUTES = 15
/** Wrong passwords for one account from one address; a success there forgets them. */
export const PAIR_FAILURE_LIMIT = 10
/** Wrong passwords from one address, for any accounts. */
export const ADDRESS_FAILURE_LIMIT = 100
/** Wrong passwords for one account from all addresses together that make it an account under attack … */
export const ACCOUNT_UNDER_ATTACK_FAILURES = 30
/** … when an address that has failed for it gets this many guesses instead of PAIR_FAILURE_LIMIT. */
export const PAIR_FAILURE_LIMIT_UNDER_ATTACK = 3
export const TOO_MANY_ATTEMPTS = 'Too many failed sign-in attempts. Please wait 15 minutes and try again.'

/** An attempt still 'checking' after this long belongs to a process that died: it counts as a failure. */
const CHECKING_GIVEN_UP_SECONDS = 30
/** The longest an attempt waits for earlier ones to be checked before it is refused. */
const WAIT_AT_MOST_MS = 10_000
export const SIGN_IN_EVENTS_KEPT_DAYS = 90

// two advisory lock spaces, one per kind of key, always taken in this order (no deadlock)
const ACCOUNT_LOCKS = 7_305_027
const ADDRESS_LOCKS = 7_305_028

export type Attempt = { id: string; account: string; address: string }

/**
 * The attempt's place in line: its row, 'checking'. The locks make the inserts of one account, and of one
 * address, take their ids in the order they commit, so an attempt sees every earlier one it is counted with.
 */
export async function beginAttempt(account: string, userId: string | null, address: string | undefined) {
  const [row] = await query<{ id: string }>(BEGIN_ATTEMPT, { account, userId, address: address ?? null })
  if (Math.random() < 0.01) void forgetOldEvents()
  return { id: row.id, account, address: address ?? '' } satisfies Attempt
}

const BEGIN_ATTEMPT = sql(`
  WITH locked AS (
    SELECT pg_advisory_xact_lock(${ACCOUNT_LOCKS}, hashtext(:account)),
           pg_advisory_xact_lock(${ADDRESS_LOCKS}, hashtext(coalesce(CAST(:address AS text), '')))
  )
  INSERT INTO sign_in_events (account, user_id, address)
  SELECT :account, CAST(:userId AS uuid), CAST(:address AS text) FROM locked
  RETURNING id`)

export async function finishAttempt(attempt: Attempt, outcome: Exclude<SignInOutcome, 'checking'>) {
  await query(FINISH_ATTEMPT, { id: attempt.id, outcome })
}

const FINISH_ATTEMPT = sql(`UPDATE sign_in_events SET outcome = :outcome WHERE id = CAST(:id AS bigint)`)

type Counts = { failures: number; checking: number }
type EarlierAttempts = { pair: Counts; address: Counts; account: Counts }

function refused({ pair, address, account }: Record<keyof EarlierAttempts, number>) {
  return (
    address >= ADDRESS_FAILURE_LIMIT ||
    pair >= PAIR_FAILURE_LIMIT ||
    (account >= ACCOUNT_UNDER_ATTACK_FAILURES && pair >= PAIR_FAILURE_LIMIT_UNDER_ATTACK)
  )
}

/**
 * Whether this attempt may have its password checked, from the attempts before it. Attempts still being
 * checked may yet fail: if counting them as failures would refuse this one (and counting them as nothing
 * would not), it waits until they are done, so a burst checks no more passwords than the limits allow and
 * a burst of right passwords is not refused for being many.
 */
export async function mayCheckPassword(attempt: Attempt): Promise<boolean> {
  const deadline = Date.now() + WAIT_AT_MOST_MS
  for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
    const [earlier] = await query<EarlierAttempts>(EARLIER_ATTEMPTS, {
      id: attempt.id,
      account: attempt.account,
      address: attempt.address,
      minutes: SIGN_IN_WINDOW_MINUTES,
      givenUp: CHECKING_GIVEN_UP_SECONDS,
    })
    const failures = {
      pair: earlier.pair.failures,
      address: earlier.address.failures,
      account: earlier.account.failures,
    }
    if (refused(failures)) return false
    const atWorst = {
      pair: failures.pair + earlier.pair.checking,
      address: failures.address + earlier.address.checking,
      account: failures.account + earlier.account.checking,
    }
    if (!refused(atWorst)) return true
    if (Date.now() > deadline) return false
    await pause(wait)
  }
}

// The window's attempts before this one, of its account or its address. A success of the same account
// and address forgets that pair's failures; a password change forgets all of the account's.
const EARLIER_ATTEMPTS = sql(`
  WITH seen AS (
    SELECT id, account, coalesce(address, '') AS address,
           CASE WHEN outcome = 'checking' AND at < now() - make_interval(secs => :givenUp) THEN 'wrong_password'
                ELSE outcome END AS outcome
      FROM sign_in_events
     WHERE id < CAST(:id AS bigint)
       AND at > now() - make_interval(mins => :minutes)
       AND (account = :account OR coalesce(address, '') = :address)
  ), forgotten AS (
    SELECT coalesce(max(id) FILTER (WHERE account = :account AND outcome = 'password_changed'), 0) AS account,
           coalesce(max(id) FILTER (WHERE account = :account AND address = :address
                                      AND outcome IN ('success', 'password_changed')), 0) AS pair
      FROM seen
  ), counted AS (
    SELECT s.outcome,
           s.account = :account AND s.address = :address AND s.id > f.pair AS in_pair,
           s.address = :address AS in_address,
           s.account = :account AND s.id > f.account AS in_account
      FROM seen s, forgotten f
     WHERE s.outcome IN ('wrong_password', 'checking')
  )
  SELECT json_build_object('failures', count(*) FILTER (WHERE in_pair AND outcome = 'wrong_password'),
                           'checking', count(*) FILTER (WHERE in_pair AND outcome = 'checking')) AS pair,
         json_build_object('failures', count(*) FILTER (WHERE in_address AND outcome = 'wrong_password'),
                           'checking', count(*) FILTER (WHERE in_address AND outcome = 'checking')) AS address,
         json_build_object('failures', count(*) FILTER (WHERE in_account AND outcome = 'wrong_password'),
                           'checking', count(*) FILTER (WHERE in_account AND outcome = 'checking')) AS account
    FROM counted`)

/** A password change (or reset) forgets the account's failures: they were guesses at a password that is gone. */
export async function recordPasswordChange(userId: string, transaction: Transaction) {
  await (
    await sequelize()
  ).query("INSERT INTO sign_in_events (account, user_id, outcome) VALUES (:account, :userId, 'password_changed')", {
    replacements: { account: `user:${userId}`, userId },
    transaction,
  })
}

async function forgetOldEvents() {
  try {
    await (
      await sequelize()
    ).query('DELETE FROM sign_in_events WHERE at < now() - make_interval(days => :days)', {
      replacements: { days: SIGN_IN_EVENTS_KEPT_DAYS },
    })
  } catch {
    // the next sweep tries again
  }
}

export type SignInEvent = {
  id: string
  at: string
  /** the account's email, or what was typed for an account that does not exist */
  account: string
  userId: string | null
  userName: string | null
  address: string | null
  outcome: SignInOutcome
}

/** The record of sign-ins, newest first, for admins (and the CLI): by account, address or outcome. */
export async function listSignInEvents(actor: Actor, input: unknown = {}): Promise<SignInEvent[]> {
  // addresses and who failed to sign in are for the people who manage accounts, not coaches
  requirePermission(actor, 'read:sign-ins')
  const { user, address, outcome, limit } = SignInEventsQuerySchema.parse(input)
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
  const rows = await (
    await sequelize()
  ).query<{
    id: string
    at: Date
    account: string
    user_id: string | null
    email: string | null
    user_name: string | null
    address: string | null
    outcome: SignInOutcome
  }>(
    `SELECT e.id, e.at, e.account, e.user_id, u.email, u.user_name, e.address, e.outcome
       FROM sign_in_events e LEFT JOIN users u ON u.id = e.user_id
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY e.id DESC
      LIMIT :limit`,
    { replacements, type: QueryTypes.SELECT },
  )
  return rows.map((r) => ({
    id: String(r.id),
    at: new Date(r.at).toISOString(),
    account: r.email ?? r.account.replace(/^name:/, ''),
    userId: r.user_id,
    userName: r.user_name,
    address: r.address,
    outcome: r.outcome,
  }))
}

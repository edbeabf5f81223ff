import { randomBytes } from 'node:crypto'
import os from 'node:os'
import { QueryTypes, type Transaction } from 'sequelize'
import { getEnv } from '#app/utils/env.server.ts'
import { hideCredentials } from '#app/utils/redact.server.ts'
import { sequelize, transaction } from '#db/client.ts'
import { createPasswordLink, mailPasswordLink } from '../auth/password-links.server.ts'
import { requirePermission } from '../auth/permissions.ts'
import { type Actor } from '../auth/roles.ts'
import { invalid } from '../errors.ts'
import { isUuid } from '../ids.ts'
import { MAIL_STATUSES, MailQueueQuerySchema, type MailKind, type MailStatus } from './schema.ts'

// The mail queue (table mail_queue): mail that is not sent inline — today the invitations of a user
// import — is written as a row in the caller's transaction and sent later by `sendQueued`, which
// `portal serve` runs every few seconds and `portal mail send-due` runs once.
//
// A row holds what to send and to whom, never a link or a body: an invitation's set-password link is
// made when its mail goes out, so nothing secret waits in the database, and a mail sent again after a
// crash carries a new link that replaces the unsent one.
//
// Sending claims due rows with one UPDATE over SELECT … FOR UPDATE SKIP LOCKED (status sending, a lease
// in claimed_at/claimed_by), so processes sending at once never take the same row. Each mail is marked
// sent in its own statement right after the SMTP server accepts it; the only way to send one twice is a
// crash between those two steps (see docs/decisions/015-mail-queue.md). A failure is retried with a
// growing delay, and after MAX_ATTEMPTS the row is failed. A lease older than LEASE_MS was left by a
// process that died mid-send; that row is claimed again.
//
// The rate (MAIL_RATE_PER_MINUTE) is counted in the database — claims in the last minute — under an
// advisory lock, so it holds across every process sending from the same database.

export const MAX_ATTEMPTS = 8
export const LEASE_MS = 10 * 60_000
const FIRST_RETRY_MS = 60_000
const LONGEST_RETRY_MS = 60 * 60_000
/** rows claimed at a time: a sender stopped mid-way gives back at most this many */
const CLAIM_CHUNK = 10
// any number, the same for every process on this database: it orders the claims so the rate holds
const RATE_LOCK = 7_305_010

/** "now" in SQL: the clock passed in (always the statement's first timestamp parameter), else the database's */
const NOW = (param = '$1') => `SELECT coalesce(${param}::timestamptz, clock_timestamp())`
const MS = "interval '1 millisecond'"

/** The delay before the next try, after `attempts` tries: 1 min, 2, 4, 8 … at most an hour. */
export const retryDelayMs = (attempts: number) =>
  Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), LONGEST_RETRY_MS)

async function query<T extends object>(text: string, bind: unknown[], transaction?: Transaction) {
  return (await sequelize()).query<T>(text, { bind, type: QueryTypes.SELECT, transaction })
}

/**
 * Queue the invitation of these users (accounts without a password), in the caller's transaction when
 * one is given: the rows are there exactly when the accounts are. A user whose invitation is already
 * waiting is not queued twice. Returns how many were queued.
 */
export async function enqueueInvitations(userIds: string[], transaction?: Transaction): Promise<number> {
  if (!userIds.length) return 0
  if (!userIds.every(isUuid)) throw invalid('A user id is not valid.')
  const rows = await query<{ id: string }>(
    `INSERT INTO mail_queue (kind, user_id)
     SELECT 'invitation', id FROM unnest($1::uuid[]) AS id
     ON CONFLICT (kind, user_id) WHERE status IN ('pending', 'sending') DO NOTHING
     RETURNING id`,
    [userIds],
    transaction,
  )
  return rows.length
}

/** Queue one user's invitation; false when one is already waiting. */
export async function enqueueInvitation(userId: string, transaction?: Transaction): Promise<boolean> {
  return (await enqueueInvitations([userId], transaction)) === 1
}

type Claimed = { id: string; kind: MailKind; user_id: string; attempts: number }

/** What a sender did with a row it claimed. */
type Outcome = 'sent' | 'cancelled' | 'gone'

/** One sender per kind: builds the mail from what the database holds now, and sends it. */
const SENDERS: Record<MailKind, (row: Claimed) => Promise<{ outcome: Outcome; note?: string }>> = {
  async invitation(row) {
    const [user] = await query<{ id: string; email: string; first_name: string; has_password: boolean }>(
      'SELECT id, email, first_name, password_hash IS NOT NULL AS has_password FROM users WHERE id = $1',
      [row.user_id],
    )
    if (!user) return { outcome: 'gone' }
    // the person set a password meanwhile (Forgot Password, or an admin): the invitation has no use
    if (user.has_password) return { outcome: 'cancelled', note: 'The account already has a password.' }
    const token = await createPasswordLink(user.id, 'invite')
    await mailPasswordLink({ email: user.email, firstName: user.first_name }, token, 'invite')
    return { outcome: 'sent' }
  },
}

export type SendOptions = {
  /** the clock (tests); the database's clock when left out, the one clock every process shares */
  now?: Date
  /** send at most this many in this call */
  limit?: number
  signal?: AbortSignal
  /** mails per minute across every process; MAIL_RATE_PER_MINUTE when left out */
  ratePerMinute?: number
}

export type SendResult = {
  sent: number
  /** failed this time, tried again later */
  retrying: number
  /** failed for the last time */
  failed: number
  cancelled: number
  /** due but held back by the rate or the limit (or left when stopped) */
  waiting: number
  /** the one-line errors of this call's failures */
  errors: string[]
}

/**
 * Send what is due, within the rate: claim, send, mark, a few rows at a time. Rows claimed but not
 * sent when `signal` aborts are given back at once.
 */
export async function sendQueued(options: SendOptions = {}): Promise<SendResult> {
  // null: each statement reads the database's clock (clock_timestamp())
  const at = options.now?.toISOString() ?? null
  const rate = options.ratePerMinute ?? getEnv().MAIL_RATE_PER_MINUTE
  const claimant = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  const result: SendResult = { sent: 0, retrying: 0, failed: 0, cancelled: 0, waiting: 0, errors: [] }
  let left = options.limit ?? Number.POSITIVE_INFINITY
  while (left > 0 && !options.signal?.aborted) {
    const batch = await claim(Math.min(left, CLAIM_CHUNK), at, rate, claimant)
    if (!batch.length) break
    left -= batch.length
    const unsent = [...batch]
    try {
      while (unsent.length && !options.signal?.aborted) {
        const row = unsent.shift() as Claimed
        await deliver(row, at, claimant, result)
      }
    } finally {
      if (unsent.length) await release(unsent, claimant)
    }
  }
  const [due] = await query<{ count: number }>(
    `SELECT count(*)::int AS count FROM mail_queue, (${NOW()}) AS t(now)
      WHERE (status = 'pending' AND next_attempt_at <= t.now)
         OR (status = 'sending' AND claimed_at <= t.now - $2 * ${MS})`,
    [at, LEASE_MS],
  )
  result.waiting = due?.count ?? 0
  return result
}

/** Claim up to `want` due rows, as many as the rate still allows this minute. */
async function claim(want: number, at: string | null, rate: number, claimant: string): Promise<Claimed[]> {
  return transaction(async (transaction) => {
    // one claim at a time on this database, so that every claimer counts the others' claims
    await query('SELECT pg_advisory_xact_lock($1)', [RATE_LOCK], transaction)
    const [used] = await query<{ count: number }>(
      `SELECT count(*)::int AS count FROM mail_queue, (${NOW()}) AS t(now)
        WHERE claimed_at > t.now - interval '1 minute'`,
      [at],
      transaction,
    )
    const budget = Math.min(want, rate - (used?.count ?? 0))
    if (budget <= 0) return []
    return query<Claimed>(
      `WITH t(now) AS (${NOW()})
       UPDATE mail_queue SET status = 'sending', attempts = attempts + 1, claimed_at = (SELECT now FROM t),
              claimed_by = $2
        WHERE id IN (
          SELECT id FROM mail_queue, t
           WHERE (status = 'pending' AND next_attempt_at <= t.now)
              OR (status = 'sending' AND claimed_at <= t.now - $3 * ${MS})
           ORDER BY next_attempt_at, created_at
           LIMIT $4
           FOR UPDATE OF mail_queue SKIP LOCKED)
        RETURNING id, kind, user_id, attempts`,
      [at, claimant, LEASE_MS, budget],
      transaction,
    )
  })
}

/** Send one claimed row and record what happened; only this claimant's lease is ever updated. */
async function deliver(row: Claimed, at: string | null, claimant: string, result: SendResult) {
  let done: { outcome: Outcome; note?: string }
  try {
    done = await SENDERS[row.kind](row)
  } catch (error) {
    const line = describeMailError(error)
    result.errors.push(line)
    const last = row.attempts >= MAX_ATTEMPTS
    if (last) result.failed++
    else result.retrying++
    await query(
      `UPDATE mail_queue
          SET status = $3, next_attempt_at = (${NOW('$4')}) + $5 * ${MS}, last_error = $6, claimed_by = NULL
        WHERE id = $1 AND claimed_by = $2`,
      [row.id, claimant, last ? 'failed' : 'pending', at, retryDelayMs(row.attempts), line],
    )
    return
  }
  if (done.outcome === 'gone') return
  // in a statement of its own, right after the server took the mail: the window for a second send
  if (done.outcome === 'sent')
    await query(
      `UPDATE mail_queue SET status = 'sent', sent_at = (${NOW('$3')}), last_error = NULL, claimed_by = NULL
        WHERE id = $1 AND claimed_by = $2`,
      [row.id, claimant, at],
    )
  else
    await query(
      `UPDATE mail_queue SET status = 'cancelled', last_error = $3, claimed_by = NULL
        WHERE id = $1 AND claimed_by = $2`,
      [row.id, claimant, done.note ?? null],
    )
  if (done.outcome === 'sent') result.sent++
  else result.cancelled++
}

/** Give claimed rows back untried: pending again, and no longer counted against the rate. */
async function release(rows: Claimed[], claimant: string) {
  await query(
    `UPDATE mail_queue SET status = 'pending', attempts = attempts - 1, claimed_at = NULL, claimed_by = NULL
      WHERE id = ANY($1::uuid[]) AND claimed_by = $2`,
    [rows.map((r) => r.id), claimant],
  )
}

/**
 * Why a mail failed, in one line: whitespace folded, at most 500 characters, and never a credential
 * (the one scrubber every error line goes through).
 */
export function describeMailError(error: unknown): string {
  const folded = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim()
  let line = hideCredentials(folded)
  if (line.length > 500) line = `${line.slice(0, 499)}…`
  return line || 'The mail could not be sent.'
}

export type MailQueueRow = {
  id: string
  kind: MailKind
  userId: string
  email: string
  userName: string
  status: MailStatus
  attempts: number
  nextAttemptAt: string
  lastError: string | null
  createdAt: string
  sentAt: string | null
  claimedAt: string | null
}

export type MailQueueStatus = {
  counts: Record<MailStatus, number>
  /** pending rows whose time has come */
  due: number
  /** the latest rows (of the status asked for), newest first */
  rows: MailQueueRow[]
}

type Row = {
  id: string
  kind: MailKind
  user_id: string
  email: string
  user_name: string
  status: MailStatus
  attempts: number
  next_attempt_at: Date
  last_error: string | null
  created_at: Date
  sent_at: Date | null
  claimed_at: Date | null
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)

/** The queue for the admin side: counts by status, and the latest rows (addresses, never links). */
export async function mailQueueStatus(actor: Actor, input: unknown = {}): Promise<MailQueueStatus> {
  requirePermission(actor, 'read:mail-queue')
  const { status, limit } = MailQueueQuerySchema.parse(input)
  const counted = await query<{ status: MailStatus; count: number; due: number }>(
    `SELECT status, count(*)::int AS count, (count(*) FILTER (WHERE next_attempt_at <= now()))::int AS due
       FROM mail_queue GROUP BY status`,
    [],
  )
  const counts = Object.fromEntries(MAIL_STATUSES.map((s) => [s, 0])) as Record<MailStatus, number>
  for (const c of counted) counts[c.status] = c.count
  const rows = await query<Row>(
    `SELECT q.id, q.kind, q.user_id, u.email, u.user_name, q.status, q.attempts, q.next_attempt_at, q.last_error,
            q.created_at, q.sent_at, q.claimed_at
       FROM mail_queue q JOIN users u ON u.id = q.user_id
      WHERE $1::text IS NULL OR q.status = $1
      ORDER BY q.created_at DESC, q.id
      LIMIT $2`,
    [status ?? null, limit],
  )
  return {
    counts,
    due: counted.find((c) => c.status === 'pending')?.due ?? 0,
    rows: rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      userId: r.user_id,
      email: r.email,
      userName: r.user_name,
      status: r.status,
      attempts: r.attempts,
      nextAttemptAt: new Date(r.next_attempt_at).toISOString(),
      lastError: r.last_error,
      createdAt: new Date(r.created_at).toISOString(),
      sentAt: iso(r.sent_at),
      claimedAt: iso(r.claimed_at),
    })),
  }
}

import { setTimeout as pause } from 'node:timers/promises'
import { QueryTypes, type Transaction } from 'sequelize'
import { getEnv } from '#app/utils/env.server.ts'
import { sequelize, transaction as inTransaction } from '#db/client.ts'
import { createPasswordLink, mailPasswordLink } from '../auth/password-links.server.ts'
import { can, requirePermission } from '../auth/permissions.ts'
import { ROLE, type Actor } from '../auth/roles.ts'
import { describeDue, describeDueFully } from '../deadlines/due.ts'
import { defaultTimeZone, dueView, reminderSettings } from '../deadlines/service.server.ts'
import { invalid } from '../errors.ts'
import { isUuid } from '../ids.ts'
import { enqueueJobs } from '../jobs/connection.server.ts'
import { failureLine, type JobHandler, type RunningJob } from '../jobs/job.ts'
import { QUEUES } from '../jobs/queues.ts'
import { MAIL_STATUSES, MailQueueQuerySchema, type MailKind, type MailStatus } from './schema.ts'
import { sendMail } from './service.server.ts'
import { backupFailedMessage, reminderMessage } from './templates.ts'

// The mail queue (table mail_queue): mail that is not sent inline — the invitations of a user import, and
// the news of a failed backup to the super admins — is written as a row in the caller's transaction, with
// the job that sends it (queue `mail`, the job's id the row's), and a worker sends it (app/modules/jobs).
//
// A row holds what to send and to whom, never a link or a body: an invitation's set-password link is
// made when its mail goes out, so nothing secret waits in the database, and a mail sent again after a
// crash carries a new link that replaces the unsent one. A failed backup's mail names its run
// (subject_id), and is written from the run as it is when it goes out.
//
// A try claims its row (status sending; claimed_by names the try, and every later update names it too),
// sends, and marks the row sent in a statement of its own right after the SMTP server accepts the mail;
// A reminder's row names the reminder the sweep recorded (app/modules/deadlines/sweep.server.ts); its mail
// is written from the assignment and the learner's progress as they are when it goes out, and cancelled
// when it is no longer owed.
//
// the only way to send one twice is a worker lost between those two steps (see
// docs/decisions/015-mail-queue.md). A failure is tried again by the job queue, 1, 2, 4 … minutes later,
// at most an hour apart; after MAX_ATTEMPTS the row is failed, and so is one whose job was given up.
//
// The rate (MAIL_RATE_PER_MINUTE) is counted in the database — claims in the last minute — under an
// advisory lock, so it holds across every worker sending from the same database; a try that finds this
// minute's budget spent waits for it.

export const MAX_ATTEMPTS = QUEUES.mail.retryLimit + 1
// any number, the same for every process on this database: it orders the claims so the rate holds
const RATE_LOCK = 7_305_010

/** "now" in SQL: the clock passed in (always the statement's first timestamp parameter), else the database's */
const NOW = (param = '$1') => `SELECT coalesce(${param}::timestamptz, clock_timestamp())`

async function query<T extends object>(text: string, bind: unknown[], transaction?: Transaction) {
  return (await sequelize()).query<T>(text, { bind, type: QueryTypes.SELECT, transaction })
}

/** Write the mail rows `insert` returns, each with the job that sends it, in `transaction`; how many. */
async function queueMails(insert: string, bind: unknown[], transaction: Transaction): Promise<number> {
  const rows = await query<{ id: string }>(insert, bind, transaction)
  await enqueueJobs(
    'mail',
    rows.map((r) => r.id),
    transaction,
  )
  return rows.length
}

/**
 * Queue the invitation of these users (accounts without a password), in the caller's transaction when
 * one is given: the rows and their jobs are there exactly when the accounts are. A user whose invitation
 * is already waiting is not queued twice. Returns how many were queued.
 */
export async function enqueueInvitations(userIds: string[], transaction?: Transaction): Promise<number> {
  if (!userIds.length) return 0
  if (!userIds.every(isUuid)) throw invalid('A user id is not valid.')
  const queue = (transaction: Transaction) =>
    queueMails(
      `INSERT INTO mail_queue (kind, user_id)
       SELECT 'invitation', id FROM unnest($1::uuid[]) AS id
       ON CONFLICT (kind, user_id) WHERE status IN ('pending', 'sending') AND subject_id IS NULL DO NOTHING
       RETURNING id`,
      [userIds],
      transaction,
    )
  return transaction ? queue(transaction) : inTransaction(queue)
}

/** The roles that read the backups: those a failed backup is mailed to. */
const BACKUP_READERS = Object.values(ROLE).filter((roleId) => can({ id: 'someone', roleId }, 'read:backups'))

/**
 * Queue the mail that tells each super admin (each account that reads the backups, with an address) that a
 * backup run failed, in the transaction that fails the run: the mails exist exactly when the failure does,
 * and a run is never mailed twice to one person. Returns how many were queued.
 */
export async function enqueueBackupFailedMails(runId: string, transaction: Transaction): Promise<number> {
  if (!isUuid(runId)) throw invalid('A run id is not valid.')
  return queueMails(
    `INSERT INTO mail_queue (kind, user_id, subject_id)
     SELECT 'backup-failed', id, $1 FROM users WHERE role_id = ANY($2::smallint[]) AND email <> ''
     ON CONFLICT (kind, user_id, subject_id) WHERE subject_id IS NOT NULL DO NOTHING
     RETURNING id`,
    [runId, BACKUP_READERS],
    transaction,
  )
}

/**
 * Queue the mail of each reminder the sweep recorded (assignment_reminders ids), in the transaction that
 * recorded them: a reminder and its mail exist together or not at all, and one reminder is never mailed
 * twice. Returns how many were queued.
 */
export async function enqueueReminderMails(reminderIds: string[], transaction: Transaction): Promise<number> {
  if (!reminderIds.length) return 0
  if (!reminderIds.every(isUuid)) throw invalid('A reminder id is not valid.')
  return queueMails(
    `INSERT INTO mail_queue (kind, user_id, subject_id)
     SELECT 'reminder', r.user_id, r.id FROM assignment_reminders r WHERE r.id = ANY($1::uuid[])
     ON CONFLICT (kind, user_id, subject_id) WHERE subject_id IS NOT NULL DO NOTHING
     RETURNING id`,
    [reminderIds],
    transaction,
  )
}

/** Queue one user's invitation; false when one is already waiting. */
export async function enqueueInvitation(userId: string, transaction?: Transaction): Promise<boolean> {
  return (await enqueueInvitations([userId], transaction)) === 1
}

type Claimed = { id: string; kind: MailKind; user_id: string; subject_id: string | null; attempts: number }

/** What a sender did with a row it claimed. */
type Outcome = 'sent' | 'cancelled' | 'gone'

/** Why a mail queued for an account that was disabled since is not sent (docs/product.md#disabled-accounts). */
const DISABLED_NOTE = 'The account is disabled.'

/** One sender per kind: builds the mail from what the database holds now, and sends it. */
const SENDERS: Record<MailKind, (row: Claimed, now: Date) => Promise<{ outcome: Outcome; note?: string }>> = {
  async invitation(row) {
    const [user] = await query<{
      id: string
      email: string
      first_name: string
      has_password: boolean
      disabled: boolean
    }>(
      `SELECT id, email, first_name, password_hash IS NOT NULL AS has_password, disabled_at IS NOT NULL AS disabled
         FROM users WHERE id = $1`,
      [row.user_id],
    )
    if (!user) return { outcome: 'gone' }
    if (user.disabled) return { outcome: 'cancelled', note: DISABLED_NOTE }
    // the person set a password meanwhile (Forgot Password, or an admin): the invitation has no use
    if (user.has_password) return { outcome: 'cancelled', note: 'The account already has a password.' }
    const token = await createPasswordLink(user.id, 'invite')
    await mailPasswordLink({ email: user.email, firstName: user.first_name }, token, 'invite')
    return { outcome: 'sent' }
  },
  async 'backup-failed'(row) {
    const [user] = await query<{ email: string; role_id: number }>('SELECT email, role_id FROM users WHERE id = $1', [
      row.user_id,
    ])
    if (!user) return { outcome: 'gone' }
    if (!can({ id: row.user_id, roleId: user.role_id as Actor['roleId'] }, 'read:backups'))
      return { outcome: 'cancelled', note: 'The account no longer reads the backups.' }
    const [run] = await query<{ schedule_name: string; finished_at: Date | null; error: string | null }>(
      'SELECT schedule_name, finished_at, error FROM backup_runs WHERE id = $1',
      [row.subject_id],
    )
    if (!run) return { outcome: 'cancelled', note: 'The backup run is no longer there.' }
    const at = run.finished_at ? new Date(run.finished_at) : new Date()
    const mail = backupFailedMessage({
      schedule: run.schedule_name,
      failedAt: `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      reason: run.error ?? 'no reason was recorded.',
      link: `${getEnv().PUBLIC_URL}/admin/backups`,
    })
    await sendMail({ to: user.email, ...mail })
    return { outcome: 'sent' }
  },
  reminder: sendReminder,
}

type ReminderRow = {
  step: string
  key: string
  course_id: string | null
  program_id: string | null
  email: string
  first_name: string
  role_id: number
  reminder_mails: boolean
  disabled: boolean
  zone: string
  title: string | null
  reminders: boolean | null
  assigned: boolean
  due_date: string | null
  due_at: Date | null
  due_instant: Date | null
  current_key: string | null
}

// the reminder, its learner, and the assignment as it is now (none: unassigned since)
const REMINDER = `
  SELECT r.step, r.due AS key, r.course_id, r.program_id, u.email, u.first_name, u.role_id, u.reminder_mails,
         u.disabled_at IS NOT NULL AS disabled,
         COALESCE(u.time_zone, $2) AS zone, COALESCE(c.title, p.title) AS title,
         COALESCE(c.reminders, p.reminders) AS reminders, a.user_id IS NOT NULL AS assigned,
         to_char(a.due_date, 'YYYY-MM-DD') AS due_date, a.due_at,
         assignment_due_at(a.due_date, a.due_at, COALESCE(u.time_zone, $2)) AS due_instant,
         assignment_due_key(a.due_date, a.due_at) AS current_key
    FROM assignment_reminders r
    JOIN users u ON u.id = r.user_id
    LEFT JOIN courses c ON c.id = r.course_id
    LEFT JOIN programs p ON p.id = r.program_id
    LEFT JOIN LATERAL (
      SELECT x.user_id, x.due_date, x.due_at FROM course_assignments x
       WHERE x.user_id = r.user_id AND x.course_id = r.course_id
      UNION ALL
      SELECT x.user_id, x.due_date, x.due_at FROM program_assignments x
       WHERE x.user_id = r.user_id AND x.program_id = r.program_id) a ON true
   WHERE r.id = $1`

type CourseState = {
  course_id: string
  title: string
  videos: number
  labs: number
  done_videos: number
  done_labs: number
  started: boolean
  done: boolean
}

// the learner's progress in each course ($2: one course, or $3: the program's, in its order)
const PROGRESS = `
  SELECT c.id AS course_id, c.title, n.videos, n.labs,
         COALESCE(t.completed_videos, 0) AS done_videos, COALESCE(t.completed_labs, 0) AS done_labs,
         (COALESCE(t.completed_videos + t.completed_labs, 0) > 0
          OR EXISTS (SELECT 1 FROM video_progress v WHERE v.user_id = $1 AND v.course_id = c.id)
          OR EXISTS (SELECT 1 FROM lab_progress l JOIN labs b ON b.id = l.lab_id
                      WHERE l.user_id = $1 AND b.course_id = c.id)) AS started,
         COALESCE(t.assigned AND course_done(t.completed_videos, t.completed_labs, n.videos, n.labs), false) AS done
    FROM courses c
    CROSS JOIN LATERAL (SELECT course_visible_videos(c.id) AS videos, course_visible_labs(c.id) AS labs) n
    LEFT JOIN course_completion_tallies t ON t.user_id = $1 AND t.course_id = c.id
    LEFT JOIN program_courses pc ON pc.course_id = c.id AND pc.program_id = $3
   WHERE c.id = $2 OR pc.program_id IS NOT NULL
   ORDER BY pc.position NULLS FIRST, c.title`

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`

/** How far the learner is, in words: not started, N of M videos, labs left; a program's courses. */
function progressWords(kind: 'course' | 'program', courses: CourseState[]): string[] {
  if (kind === 'course') {
    const [c] = courses
    if (!c.started) return ['You have not started yet.']
    const words = []
    if (c.videos > 0) words.push(`${c.done_videos} of ${count(c.videos, 'video')} completed.`)
    if (c.labs > 0) words.push(`${c.labs - c.done_labs} of ${count(c.labs, 'lab')} left.`)
    return words
  }
  if (!courses.some((c) => c.started)) return ['You have not started yet.']
  const done = courses.filter((c) => c.done).length
  const left = courses.filter((c) => !c.done).map((c) => c.title)
  return [`${done} of ${count(courses.length, 'course')} completed.`, `Left: ${left.join(', ')}.`]
}

/** A reminder's mail, written as things are now; cancelled when it is no longer owed. */
async function sendReminder(row: Claimed, now: Date): Promise<{ outcome: Outcome; note?: string }> {
  const [r] = await query<ReminderRow>(REMINDER, [row.subject_id, defaultTimeZone()])
  if (!r) return { outcome: 'cancelled', note: 'The reminder is no longer there.' }
  const kind = r.course_id ? 'course' : 'program'
  if (!r.assigned || !r.title) return { outcome: 'cancelled', note: `The ${kind} is no longer assigned.` }
  if (r.current_key !== r.key) return { outcome: 'cancelled', note: 'The due date changed.' }
  if (!r.reminders) return { outcome: 'cancelled', note: `Reminders are off for this ${kind}.` }
  if (r.role_id !== ROLE.learner || !r.email) return { outcome: 'cancelled', note: 'The account is not a learner.' }
  if (r.disabled) return { outcome: 'cancelled', note: DISABLED_NOTE }
  const settings = await reminderSettings()
  if (settings.learnersMayOptOut && !r.reminder_mails)
    return { outcome: 'cancelled', note: 'The learner turned reminder mails off.' }
  const courses = await query<CourseState>(PROGRESS, [row.user_id, r.course_id, r.program_id])
  const done = courses.length > 0 && courses.every((c) => c.done)
  if (done) return { outcome: 'cancelled', note: `The learner completed the ${kind}.` }
  if (!courses.length) return { outcome: 'cancelled', note: 'The program has no course.' }
  const view = dueView({ due_date: r.due_date, due_instant: r.due_instant, zone: r.zone })!
  const { PUBLIC_URL } = getEnv()
  const mail = reminderMessage({
    firstName: r.first_name,
    title: r.title,
    kind,
    dueWords: describeDue(view, now),
    dueFully: describeDueFully(view),
    progress: progressWords(kind, courses),
    link: kind === 'course' ? `${PUBLIC_URL}/course/${r.course_id}` : `${PUBLIC_URL}/courses`,
    why:
      `You get this reminder because the ${kind} was assigned to you with a due date and is not completed yet.` +
      (settings.learnersMayOptOut ? ' You can turn reminder mails off on your profile.' : ''),
  })
  await sendMail({ to: r.email, ...mail })
  return { outcome: 'sent' }
}

/** The clock a try keeps the rate by: the database's (`now` null) and real waits, or a test's own. */
export type MailClock = {
  now(): Date | null
  wait(ms: number, signal: AbortSignal): Promise<void>
}

const DATABASE_CLOCK: MailClock = {
  now: () => null,
  wait: (ms, signal) => pause(ms, undefined, { signal }),
}

/**
 * One try of a mail's job: claim its row within the rate (waiting for this minute's budget when it is
 * spent), send, and record what happened. A row sent, cancelled or failed meanwhile is left alone. A
 * failure is recorded on the row and thrown, so the job queue tries again later (or, on the last try,
 * the row is failed).
 */
export async function sendQueuedMail(job: RunningJob, clock: MailClock = DATABASE_CLOCK): Promise<void> {
  const claimant = `${job.id}:${job.retryCount}`
  let row: Claimed | undefined
  for (;;) {
    job.signal.throwIfAborted()
    const at = clock.now()?.toISOString() ?? null
    const claim = await claimWithinRate(job.id, claimant, at, getEnv().MAIL_RATE_PER_MINUTE)
    if (!('waitMs' in claim)) {
      row = claim.row
      break
    }
    await clock.wait(claim.waitMs, job.signal)
  }
  if (!row) return
  let done: { outcome: Outcome; note?: string }
  try {
    done = await SENDERS[row.kind](row, clock.now() ?? new Date())
  } catch (error) {
    await query(
      `UPDATE mail_queue SET status = $3, last_error = $4, claimed_by = NULL WHERE id = $1 AND claimed_by = $2`,
      [row.id, claimant, job.lastTry ? 'failed' : 'pending', failureLine(error)],
    )
    throw error
  }
  const at = clock.now()?.toISOString() ?? null
  // in a statement of its own, right after the server took the mail: the window for a second send
  if (done.outcome === 'sent')
    await query(
      `UPDATE mail_queue SET status = 'sent', sent_at = (${NOW('$3')}), last_error = NULL, claimed_by = NULL
        WHERE id = $1 AND claimed_by = $2`,
      [row.id, claimant, at],
    )
  else if (done.outcome === 'cancelled')
    await query(
      `UPDATE mail_queue SET status = 'cancelled', last_error = $3, claimed_by = NULL
        WHERE id = $1 AND claimed_by = $2`,
      [row.id, claimant, done.note ?? null],
    )
}

/**
 * Claim the mail's row if this minute's budget allows, or say how long until it does. A row in
 * `sending` was claimed by an earlier try of the same job, which the job queue gave up on: its worker is
 * gone, so this try takes it over.
 */
async function claimWithinRate(
  id: string,
  claimant: string,
  at: string | null,
  rate: number,
): Promise<{ row: Claimed | undefined } | { waitMs: number }> {
  return inTransaction(async (transaction) => {
    // one claim at a time on this database, so that every claimer counts the others' claims
    await query('SELECT pg_advisory_xact_lock($1)', [RATE_LOCK], transaction)
    const [used] = await query<{ count: number; free_in_ms: number | null }>(
      `SELECT count(*)::int AS count,
              ceil(extract(epoch FROM min(claimed_at) + interval '1 minute' - t.now) * 1000)::int AS free_in_ms
         FROM mail_queue, (${NOW()}) AS t(now)
        WHERE claimed_at > t.now - interval '1 minute'
        GROUP BY t.now`,
      [at],
      transaction,
    )
    if (used && used.count >= rate) return { waitMs: Math.max(1, used.free_in_ms ?? 1) }
    const [row] = await query<Claimed>(
      `UPDATE mail_queue SET status = 'sending', attempts = attempts + 1, claimed_at = (${NOW()}), claimed_by = $2
        WHERE id = $3 AND status IN ('pending', 'sending')
        RETURNING id, kind, user_id, subject_id, attempts`,
      [at, claimant, id],
      transaction,
    )
    return { row }
  })
}

/** The jobs of the queue `mail`: a try sends; a mail whose job was given up or cancelled is no longer waiting. */
export const mailJobs: JobHandler = {
  run: (job) => sendQueuedMail(job),
  async gaveUp(id, reason) {
    await endWaitingMail(id, 'failed', reason)
  },
  async cancelled(id) {
    await endWaitingMail(id, 'cancelled', 'Cancelled by an operator.')
  },
  async reopened(id) {
    await query(
      `UPDATE mail_queue SET status = 'pending' WHERE id = $1 AND status IN ('failed', 'cancelled') RETURNING id`,
      [id],
    )
  },
}

async function endWaitingMail(id: string, status: 'failed' | 'cancelled', reason: string) {
  await query(
    `UPDATE mail_queue SET status = $2, last_error = $3, claimed_by = NULL
      WHERE id = $1 AND status IN ('pending', 'sending') RETURNING id`,
    [id, status, reason],
  )
}

export type MailQueueRow = {
  id: string
  kind: MailKind
  userId: string
  email: string
  userName: string
  status: MailStatus
  attempts: number
  lastError: string | null
  createdAt: string
  sentAt: string | null
  claimedAt: string | null
}

type MailQueueStatus = {
  counts: Record<MailStatus, number>
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
  const counted = await query<{ status: MailStatus; count: number }>(
    `SELECT status, count(*)::int AS count FROM mail_queue GROUP BY status`,
    [],
  )
  const counts = Object.fromEntries(MAIL_STATUSES.map((s) => [s, 0])) as Record<MailStatus, number>
  for (const c of counted) counts[c.status] = c.count
  const rows = await query<Row>(
    `SELECT q.id, q.kind, q.user_id, u.email, u.user_name, q.status, q.attempts, q.last_error,
            q.created_at, q.sent_at, q.claimed_at
       FROM mail_queue q JOIN users u ON u.id = q.user_id
      WHERE $1::text IS NULL OR q.status = $1
      ORDER BY q.created_at DESC, q.id
      LIMIT $2`,
    [status ?? null, limit],
  )
  return {
    counts,
    rows: rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      userId: r.user_id,
      email: r.email,
      userName: r.user_name,
      status: r.status,
      attempts: r.attempts,
      lastError: r.last_error,
      createdAt: new Date(r.created_at).toISOString(),
      sentAt: iso(r.sent_at),
      claimedAt: iso(r.claimed_at),
    })),
  }
}

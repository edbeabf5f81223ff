import type { Transaction } from 'sequelize'
import { z } from 'zod'
import { select, transaction as inTransaction } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import { ROLE, type Actor } from '../auth/roles.ts'
import { listLimit } from '../list-limit.ts'
import { enqueueReminderMails } from '../mail/queue.server.ts'
import type { AssignmentStatus } from './due.ts'
import { REMINDER_HOUR } from './plan.ts'
import { defaultTimeZone, reminderSettings } from './service.server.ts'

// The reminder sweep: which reminders about due dates are owed now, each queued once as a mail.
//
// Considered: every course and program assignment with a due date whose learner (role learner, with an
// email) has not completed it, whose course or program has reminders on, and whose learner has not turned
// reminder mails off — which counts only while the portal's settings let learners do so. A course is
// complete when every visible video and lab is done (the completion tallies); a program when each of its
// courses is. A program with no course has nothing to remind of and is left out.
//
// The plan: the assignment's own (reminder_plan), else the portal's; two empty lists send none. Each day n
// of the plan is a step with its moment, REMINDER_HOUR (08:00) on a local day of the learner's time zone
// (theirs, else DEFAULT_TIME_ZONE): before-n is on the due day minus n, and counts only while the
// assignment is not yet due and only if its moment comes before the due instant (a before-0 at 08:00 for
// an assignment due at 07:00 is never sent); after-n is on the due day plus n, and counts only once the
// assignment is due. The due day is the due date, or the day an exact due time falls on in that zone.
//
// Per assignment only the latest step whose moment has come is a candidate, and only within 24 hours of
// its moment: a sweep that was down for days sends no stale reminders, and steps it missed are never sent
// later. A step already recorded for the same key (learner, course or program, the due date as set, the
// step) is not sent again; a moved due date is a new key, so its steps are owed again.
//
// Sending once: the reminder's row is inserted under its key (ON CONFLICT DO NOTHING) and, in the same
// transaction, its mail and the mail's job (app/modules/mail/queue.server.ts), so two sweeps racing, a
// restart, a re-run or a sweep run for a moment in the past never queue a second mail for a key. The
// mail is written when it goes out, from the database as it is then, and is cancelled if it is no longer
// owed.
//
// The sweep works a batch of learners at a time (keyset over their ids, one transaction per batch), so its
// memory stays the same however many learners have due dates; a stop asked for (its signal) ends it
// between batches.

/** Learners per batch: a transaction each. */
const BATCH = 2000
/** How many reminders a run lists (a dry run's would-be reminders, a real run's queued ones). */
const LISTED = 1000
const FIRST_ID = '00000000-0000-0000-0000-000000000000'

/** A reminder the sweep queued, or would queue on a dry run. */
type SweptReminder = {
  userId: string
  email: string
  kind: 'course' | 'program'
  /** the course's or program's id */
  subjectId: string
  title: string
  /** the due date as set (YYYY-MM-DD, or an exact instant in UTC) */
  due: string
  /** before-7 … after-3 */
  step: string
  /** when the step became owed (08:00 on its local day), ISO */
  at: string
}

export type SweepResult = {
  /** the moment swept for, ISO */
  now: string
  dryRun: boolean
  /** assignments with a due date that reminders may be sent about */
  considered: number
  /** reminders queued (or, on a dry run, that would be) */
  queued: number
  /** the first LISTED of them */
  reminders: SweptReminder[]
  /** false when a stop was asked for before every learner was swept */
  finished: boolean
}

// the learners of the next batch: learners with an email, not disabled, and at least one due date
const NEXT_LEARNERS = `
  SELECT u.id FROM users u
   WHERE u.id > $1::uuid AND u.role_id = $2 AND u.email <> '' AND u.disabled_at IS NULL
     AND NOT ($3::boolean AND NOT u.reminder_mails)
     AND (EXISTS (SELECT 1 FROM course_assignments a
                   WHERE a.user_id = u.id AND (a.due_date IS NOT NULL OR a.due_at IS NOT NULL))
          OR EXISTS (SELECT 1 FROM program_assignments a
                      WHERE a.user_id = u.id AND (a.due_date IS NOT NULL OR a.due_at IS NOT NULL)))
   ORDER BY u.id
   LIMIT $4`

// For a batch of learners ($1): how many assignments are considered, and the step owed now ($3) for each,
// if any, not yet recorded. $2 the portal's plan, $4 the default zone, $5 REMINDER_HOUR.
const OWED = `
  WITH t AS (SELECT COALESCE($3::timestamptz, clock_timestamp()) AS now),
  due AS (
    SELECT u.id AS user_id, u.email, COALESCE(u.time_zone, $4) AS zone, a.course_id, NULL::uuid AS program_id,
           c.title, a.due_date, a.due_at, COALESCE(a.reminder_plan, $2::jsonb) AS plan
      FROM users u
      JOIN course_assignments a ON a.user_id = u.id AND (a.due_date IS NOT NULL OR a.due_at IS NOT NULL)
      JOIN courses c ON c.id = a.course_id AND c.reminders
     WHERE u.id = ANY($1::uuid[])
    UNION ALL
    SELECT u.id, u.email, COALESCE(u.time_zone, $4), NULL, a.program_id, p.title, a.due_date, a.due_at,
           COALESCE(a.reminder_plan, $2::jsonb)
      FROM users u
      JOIN program_assignments a ON a.user_id = u.id AND (a.due_date IS NOT NULL OR a.due_at IS NOT NULL)
      JOIN programs p ON p.id = a.program_id AND p.reminders
     WHERE u.id = ANY($1::uuid[])
  ),
  -- each course's visible videos and labs, counted once for the batch
  visible AS (
    SELECT c.id AS course_id, course_visible_videos(c.id) AS videos, course_visible_labs(c.id) AS labs
      FROM courses c
     WHERE c.id IN (SELECT course_id FROM due WHERE course_id IS NOT NULL
                    UNION
                    SELECT pc.course_id FROM due d JOIN program_courses pc ON pc.program_id = d.program_id)
  ),
  done AS (
    SELECT t.user_id, t.course_id
      FROM course_completion_tallies t JOIN visible v ON v.course_id = t.course_id
     WHERE t.user_id = ANY($1::uuid[]) AND t.assigned
       AND course_done(t.completed_videos, t.completed_labs, v.videos, v.labs)
  ),
  open AS (
    SELECT d.*, assignment_due_at(d.due_date, d.due_at, d.zone) AS due_instant,
           COALESCE(d.due_date, (d.due_at AT TIME ZONE d.zone)::date) AS due_day,
           assignment_due_key(d.due_date, d.due_at) AS due_key
      FROM due d
     WHERE CASE WHEN d.course_id IS NOT NULL
                THEN NOT EXISTS (SELECT 1 FROM done x WHERE x.user_id = d.user_id AND x.course_id = d.course_id)
                ELSE EXISTS (SELECT 1 FROM program_courses pc WHERE pc.program_id = d.program_id
                              AND NOT EXISTS (SELECT 1 FROM done x
                                               WHERE x.user_id = d.user_id AND x.course_id = pc.course_id))
           END
  ),
  steps AS (
    SELECT o.*, s.side, s.days,
           (((o.due_day + CASE s.side WHEN 'before' THEN -s.days ELSE s.days END)
             + make_interval(hours => $5)) AT TIME ZONE o.zone) AS moment
      FROM open o
      CROSS JOIN LATERAL (
        SELECT 'before' AS side, e.value::int AS days
          FROM jsonb_array_elements(CASE WHEN jsonb_typeof(o.plan -> 'before') = 'array' THEN o.plan -> 'before'
                                         ELSE '[]'::jsonb END) e
         WHERE jsonb_typeof(e.value) = 'number'
        UNION ALL
        SELECT 'after', e.value::int
          FROM jsonb_array_elements(CASE WHEN jsonb_typeof(o.plan -> 'after') = 'array' THEN o.plan -> 'after'
                                         ELSE '[]'::jsonb END) e
         WHERE jsonb_typeof(e.value) = 'number'
      ) s
  ),
  -- the latest step whose moment has come, within a day of it
  latest AS (
    SELECT DISTINCT ON (s.user_id, s.course_id, s.program_id) s.*
      FROM steps s, t
     WHERE s.moment <= t.now AND t.now < s.moment + interval '24 hours'
       AND CASE s.side WHEN 'before' THEN t.now < s.due_instant AND s.moment < s.due_instant
                       ELSE t.now >= s.due_instant END
     ORDER BY s.user_id, s.course_id, s.program_id, s.moment DESC
  )
  SELECT (SELECT count(*) FROM open)::int AS considered,
         (SELECT now FROM t) AS now,
         COALESCE((
           SELECT json_agg(json_build_object(
                    'userId', l.user_id, 'email', l.email,
                    'kind', CASE WHEN l.course_id IS NOT NULL THEN 'course' ELSE 'program' END,
                    'subjectId', COALESCE(l.course_id, l.program_id), 'title', l.title, 'due', l.due_key,
                    'step', l.side || '-' || l.days, 'at', l.moment) ORDER BY l.user_id, l.course_id, l.program_id)
             FROM latest l
            WHERE NOT EXISTS (SELECT 1 FROM assignment_reminders r
                               WHERE r.user_id = l.user_id AND r.course_id IS NOT DISTINCT FROM l.course_id
                                 AND r.program_id IS NOT DISTINCT FROM l.program_id
                                 AND r.due = l.due_key AND r.step = l.side || '-' || l.days)), '[]') AS owed`

const RECORD = `
  INSERT INTO assignment_reminders (user_id, course_id, program_id, due, step)
  SELECT r."userId",
         CASE WHEN r.kind = 'course' THEN r."subjectId" END,
         CASE WHEN r.kind = 'program' THEN r."subjectId" END,
         r.due, r.step
    FROM jsonb_to_recordset($1::jsonb) AS r("userId" uuid, kind text, "subjectId" uuid, due text, step text)
  ON CONFLICT DO NOTHING
  RETURNING id, user_id, COALESCE(course_id, program_id) AS subject_id, step`

type Owed = { considered: number; now: Date; owed: (Omit<SweptReminder, 'at'> & { at: string })[] }

const keyOf = (r: { userId: string; subjectId: string; step: string }) => `${r.userId}/${r.subjectId}/${r.step}`

/** One batch: what is owed, and (unless a dry run) each owed reminder recorded with its mail, in `transaction`. */
async function sweepBatch(
  ids: string[],
  bind: { plan: string; now: string | null; zone: string },
  dryRun: boolean,
  transaction: Transaction,
) {
  const [row] = await select<Owed>(OWED, [ids, bind.plan, bind.now, bind.zone, REMINDER_HOUR], transaction)
  const owed = row.owed.map((r) => ({ ...r, at: new Date(r.at).toISOString() }))
  if (dryRun || owed.length === 0) return { considered: row.considered, now: row.now, queued: owed }
  const recorded = await select<{ id: string; user_id: string; subject_id: string; step: string }>(
    RECORD,
    [JSON.stringify(owed)],
    transaction,
  )
  await enqueueReminderMails(
    recorded.map((r) => r.id),
    transaction,
  )
  const inserted = new Set(recorded.map((r) => keyOf({ userId: r.user_id, subjectId: r.subject_id, step: r.step })))
  return { considered: row.considered, now: row.now, queued: owed.filter((r) => inserted.has(keyOf(r))) }
}

/**
 * Sweep once: queue every reminder owed at `now` (the database's clock when left out), a batch of learners
 * at a time. A dry run writes nothing and says what a real run would queue.
 */
export async function runReminderSweep({
  now,
  dryRun = false,
  signal,
  onProgress,
}: {
  now?: Date
  dryRun?: boolean
  signal?: AbortSignal
  /** told the learners swept so far after each batch */
  onProgress?: (learners: number) => void
} = {}): Promise<SweepResult> {
  const settings = await reminderSettings()
  const bind = { plan: JSON.stringify(settings.plan), now: now?.toISOString() ?? null, zone: defaultTimeZone() }
  const result: SweepResult = {
    now: now?.toISOString() ?? '',
    dryRun,
    considered: 0,
    queued: 0,
    reminders: [],
    finished: true,
  }
  let after = FIRST_ID
  let swept = 0
  for (;;) {
    if (signal?.aborted) {
      result.finished = false
      break
    }
    const learners = await select<{ id: string }>(NEXT_LEARNERS, [
      after,
      ROLE.learner,
      settings.learnersMayOptOut,
      BATCH,
    ])
    if (learners.length === 0) break
    after = learners[learners.length - 1].id
    const batch = await inTransaction((transaction) =>
      sweepBatch(
        learners.map((l) => l.id),
        bind,
        dryRun,
        transaction,
      ),
    )
    if (!result.now) result.now = new Date(batch.now).toISOString()
    result.considered += batch.considered
    result.queued += batch.queued.length
    result.reminders.push(...batch.queued.slice(0, LISTED - result.reminders.length))
    swept += learners.length
    onProgress?.(swept)
    if (learners.length < BATCH) break
  }
  result.now ||= (now ?? new Date()).toISOString()
  return result
}

// ——— for the CLI and the admin side ———

const INSTANT_MESSAGE = 'must be an instant such as 2026-12-15T08:00:00Z (a date, a time and an offset).'

const instant = (name: string) =>
  z
    .string({ required_error: `${name} is required.` })
    .trim()
    .refine((text) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text), {
      message: `${name} ${INSTANT_MESSAGE}`,
    })
    .transform((text, context) => {
      const at = new Date(text)
      if (Number.isNaN(at.getTime())) {
        context.addIssue({ code: z.ZodIssueCode.custom, message: `${name} ${INSTANT_MESSAGE}` })
        return z.NEVER
      }
      return at
    })

const ReminderRunSchema = z.object({
  now: instant('The moment').optional(),
  dryRun: z.boolean().default(false),
})

/**
 * The sweep run by a person (the CLI, as SYSTEM): a dry run needs to read the reminders, a real one to
 * manage them.
 */
export async function sweepReminders(
  actor: Actor,
  input: unknown,
  options: { signal?: AbortSignal; onProgress?: (learners: number) => void } = {},
): Promise<SweepResult> {
  const { now, dryRun } = ReminderRunSchema.parse(input)
  requirePermission(actor, dryRun ? 'read:reminders' : 'manage:reminders')
  return runReminderSweep({ now, dryRun, ...options })
}

const DueListSchema = z.object({
  dueBefore: instant('The moment'),
  limit: listLimit(1000),
})

/** An assignment not completed, due before a moment, as `portal reminders list` shows it. */
export type DueAssignment = {
  userId: string
  email: string
  kind: 'course' | 'program'
  subjectId: string
  title: string
  /** the due date as set: a day (YYYY-MM-DD) or an exact instant (ISO) */
  due: string
  /** when it falls due in the learner's time zone, ISO */
  dueAt: string
  timeZone: string
  status: Exclude<AssignmentStatus, 'completed'>
  /** the latest reminder step recorded for this due date, or null */
  lastReminder: string | null
  lastReminderAt: string | null
}

// Every assignment due before $1 and not completed, nearest due first. In progress: a video or lab done.
const DUE_BEFORE = `
  WITH t AS (SELECT clock_timestamp() AS now),
  due AS (
    SELECT u.id AS user_id, u.email, COALESCE(u.time_zone, $2) AS zone, 'course' AS kind, a.course_id, NULL::uuid AS program_id,
           c.title, a.due_date, a.due_at
      FROM course_assignments a JOIN users u ON u.id = a.user_id JOIN courses c ON c.id = a.course_id
     WHERE a.due_date IS NOT NULL OR a.due_at IS NOT NULL
    UNION ALL
    SELECT u.id, u.email, COALESCE(u.time_zone, $2), 'program', NULL, a.program_id, p.title, a.due_date, a.due_at
      FROM program_assignments a JOIN users u ON u.id = a.user_id JOIN programs p ON p.id = a.program_id
     WHERE a.due_date IS NOT NULL OR a.due_at IS NOT NULL
  ),
  timed AS (
    SELECT d.*, assignment_due_at(d.due_date, d.due_at, d.zone) AS due_instant,
           assignment_due_key(d.due_date, d.due_at) AS due_key
      FROM due d
  ),
  states AS (
    SELECT x.*,
           CASE WHEN x.course_id IS NOT NULL THEN
             (SELECT COALESCE(tl.assigned AND course_done(tl.completed_videos, tl.completed_labs,
                       course_visible_videos(x.course_id), course_visible_labs(x.course_id)), false)
                FROM (SELECT 1) one LEFT JOIN course_completion_tallies tl
                  ON tl.user_id = x.user_id AND tl.course_id = x.course_id)
           ELSE
             EXISTS (SELECT 1 FROM program_courses pc WHERE pc.program_id = x.program_id)
             AND NOT EXISTS (
               SELECT 1 FROM program_courses pc
                 LEFT JOIN course_completion_tallies tl ON tl.user_id = x.user_id AND tl.course_id = pc.course_id
                WHERE pc.program_id = x.program_id
                  AND NOT COALESCE(tl.assigned AND course_done(tl.completed_videos, tl.completed_labs,
                        course_visible_videos(pc.course_id), course_visible_labs(pc.course_id)), false))
           END AS done,
           EXISTS (SELECT 1 FROM course_completion_tallies tl
                    WHERE tl.user_id = x.user_id AND tl.completed_videos + tl.completed_labs > 0
                      AND (tl.course_id = x.course_id
                           OR tl.course_id IN (SELECT pc.course_id FROM program_courses pc
                                                WHERE pc.program_id = x.program_id))) AS started
      FROM timed x
     WHERE x.due_instant < $1
  )
  SELECT s.user_id AS "userId", s.email, s.kind, COALESCE(s.course_id, s.program_id) AS "subjectId", s.title,
         s.due_key AS due, s.due_instant AS "dueAt", s.zone AS "timeZone",
         CASE WHEN s.due_instant <= t.now THEN 'overdue' WHEN s.started THEN 'in-progress' ELSE 'not-started' END
           AS status,
         r.step AS "lastReminder", r.created_at AS "lastReminderAt"
    FROM states s CROSS JOIN t
    LEFT JOIN LATERAL (
      SELECT r.step, r.created_at FROM assignment_reminders r
       WHERE r.user_id = s.user_id AND r.course_id IS NOT DISTINCT FROM s.course_id
         AND r.program_id IS NOT DISTINCT FROM s.program_id AND r.due = s.due_key
       ORDER BY r.created_at DESC, r.id DESC LIMIT 1) r ON true
   WHERE NOT s.done
   ORDER BY s.due_instant, s.email, s.title
   LIMIT $3`

/** The assignments not completed that fall due before a moment (readers of the reminders). */
export async function listDueAssignments(actor: Actor, input: unknown): Promise<DueAssignment[]> {
  requirePermission(actor, 'read:reminders')
  const { dueBefore, limit } = DueListSchema.parse(input)
  const rows = await select<DueAssignment & { dueAt: Date; lastReminderAt: Date | null }>(DUE_BEFORE, [
    dueBefore.toISOString(),
    defaultTimeZone(),
    limit,
  ])
  return rows.map((r) => ({
    ...r,
    dueAt: new Date(r.dueAt).toISOString(),
    lastReminderAt: r.lastReminderAt ? new Date(r.lastReminderAt).toISOString() : null,
  }))
}

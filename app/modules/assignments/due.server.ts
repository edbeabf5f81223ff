import { query, sql } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import type { Actor } from '../auth/roles.ts'
import type { DueView } from '../deadlines/due.ts'
import type { ReminderPlan } from '../deadlines/plan.ts'
import {
  courseDoneSql,
  defaultTimeZone,
  dueAtSql,
  dueView,
  hasDueSql,
  programDoneSql,
  zoneSql,
} from '../deadlines/service.server.ts'
import { notFound } from '../errors.ts'
import { isUuid } from '../ids.ts'
import type { DueFilter } from './due-filter.ts'

// Due dates as the admin side reads them: one learner's assignments with their due dates and plans (User
// Details), the learners with an overdue assignment or one due soon (Users List), and how many assignments
// are overdue (the dashboard).
//
// The lists find assignments by the due-date indexes, on COALESCE(due_date, the UTC day of due_at): a
// learner's zone moves the instant a day falls due by at most 14 hours, so the indexed day is first taken
// with a day to spare on either side, then each assignment is checked exactly with assignment_due_at in
// its learner's zone.

const INDEXED_DAY = (a: string) => `COALESCE(${a}.due_date, (${a}.due_at AT TIME ZONE 'UTC')::date)`
const TODAY_UTC = `(CAST(:now AS timestamptz) AT TIME ZONE 'UTC')::date`
/** The learner's due day and today, both in their zone. */
const LOCAL_DUE_DAY = (a: string) => `COALESCE(${a}.due_date, (${a}.due_at AT TIME ZONE ${zoneSql('u')})::date)`
const LOCAL_TODAY = `(CAST(:now AS timestamptz) AT TIME ZONE ${zoneSql('u')})::date`

/**
 * SQL: the assignments (`a`, its learner `u`) the filter keeps, both kinds; binds :now, :defaultZone and
 * :days (overdue: 0). Completed assignments are never kept.
 */
function matching(filter: 'overdue' | 'within', table: 'course' | 'program') {
  const done =
    table === 'course' ? courseDoneSql('a.user_id', 'a.course_id') : programDoneSql('a.user_id', 'a.program_id')
  const window =
    filter === 'overdue'
      ? `${INDEXED_DAY('a')} <= ${TODAY_UTC} + 1
         AND ${dueAtSql('a', 'u')} <= CAST(:now AS timestamptz)`
      : `${INDEXED_DAY('a')} BETWEEN ${TODAY_UTC} - 1 AND ${TODAY_UTC} + CAST(:days AS int) + 1
         AND ${dueAtSql('a', 'u')} > CAST(:now AS timestamptz)
         AND ${LOCAL_DUE_DAY('a')} <= ${LOCAL_TODAY} + CAST(:days AS int)`
  return `SELECT a.user_id FROM ${table}_assignments a JOIN users u ON u.id = a.user_id
           WHERE ${hasDueSql('a')} AND ${window} AND NOT ${done}`
}

/**
 * SQL for the Users List: `users.id IN (…)` the learners the filter keeps, and the values it binds. The
 * statement is built by the caller around it (Sequelize's literal), so the values are given escaped.
 */
export function dueFilterSql(filter: DueFilter, now: Date, escape: (value: unknown) => string) {
  const kind = filter === 'overdue' ? 'overdue' : 'within'
  const values: Record<string, unknown> = {
    now: now.toISOString(),
    defaultZone: defaultTimeZone(),
    days: filter === 'overdue' ? 0 : filter,
  }
  const text = `(${matching(kind, 'course')} UNION ${matching(kind, 'program')})`
  // the fragment is ours; only the three values come from outside it, each escaped
  return text.replace(/(?<![:\w]):(now|defaultZone|days)\b/g, (_, name: string) => escape(values[name]))
}

const OVERDUE_PER_LEARNER = sql(
  `SELECT o.user_id, count(*)::int AS overdue FROM (
     ${matching('overdue', 'course').replace('WHERE', 'WHERE a.user_id = ANY(CAST(:userIds AS uuid[])) AND')}
     UNION ALL
     ${matching('overdue', 'program').replace('WHERE', 'WHERE a.user_id = ANY(CAST(:userIds AS uuid[])) AND')}
   ) o GROUP BY o.user_id`,
)

/** How many overdue assignments (courses assigned directly and programs) each of these learners has. */
export async function overdueCounts(actor: Actor, userIds: string[], now = new Date()) {
  requirePermission(actor, 'read:people')
  const counts: Record<string, number> = {}
  if (userIds.length === 0) return counts
  const rows = await query<{ user_id: string; overdue: number }>(OVERDUE_PER_LEARNER, {
    userIds,
    now: now.toISOString(),
    defaultZone: defaultTimeZone(),
    days: 0,
  })
  for (const row of rows) counts[row.user_id] = Number(row.overdue)
  return counts
}

const OVERDUE_TOTAL = sql(
  `SELECT count(*)::int AS overdue FROM (
     ${matching('overdue', 'course')}
     UNION ALL
     ${matching('overdue', 'program')}
   ) o`,
)

/** The dashboard's "Overdue assignments": courses assigned directly and programs, not completed, past due. */
export async function overdueAssignmentCount(actor: Actor, now = new Date()): Promise<number> {
  requirePermission(actor, 'read:dashboard')
  const [row] = await query<{ overdue: number }>(OVERDUE_TOTAL, {
    now: now.toISOString(),
    defaultZone: defaultTimeZone(),
    days: 0,
  })
  return Number(row?.overdue ?? 0)
}

// ——— one learner's assignments (User Details) ———

export type AssignmentDue = {
  /** the course's or program's id */
  id: string
  title: string
  due: DueView | null
  /** its own plan; null: the portal's */
  reminderPlan: ReminderPlan | null
  completed: boolean
}

const LEARNER_DUES = sql(
  `SELECT 'course' AS kind, c.id, c.title, a.due_date::text AS due_date, ${dueAtSql('a', 'u')} AS due_instant,
          ${zoneSql('u')} AS zone, a.reminder_plan, ${courseDoneSql('a.user_id', 'a.course_id')} AS completed,
          a.created_at
     FROM course_assignments a JOIN users u ON u.id = a.user_id JOIN courses c ON c.id = a.course_id
    WHERE a.user_id = :userId
   UNION ALL
   SELECT 'program', p.id, p.title, a.due_date::text, ${dueAtSql('a', 'u')}, ${zoneSql('u')}, a.reminder_plan,
          ${programDoneSql('a.user_id', 'a.program_id')}, a.created_at
     FROM program_assignments a JOIN users u ON u.id = a.user_id JOIN programs p ON p.id = a.program_id
    WHERE a.user_id = :userId
    ORDER BY created_at, id`,
)

const LEARNER_ZONE = sql(`SELECT ${zoneSql('u')} AS zone FROM users u WHERE u.id = :userId`)

/**
 * A learner's direct course assignments and programs, each with its due date, plan and whether it is
 * completed, and the learner's time zone. The admin side (coaches read it too).
 */
export async function learnerAssignmentDues(actor: Actor, userId: string) {
  requirePermission(actor, 'read:people')
  if (!isUuid(userId)) throw notFound('User not found.')
  const defaultZone = defaultTimeZone()
  const [[zone], rows] = await Promise.all([
    query<{ zone: string }>(LEARNER_ZONE, { userId, defaultZone }),
    query<{
      kind: 'course' | 'program'
      id: string
      title: string
      due_date: string | null
      due_instant: Date | null
      zone: string
      reminder_plan: ReminderPlan | null
      completed: boolean
    }>(LEARNER_DUES, { userId, defaultZone }),
  ])
  if (!zone) throw notFound('User not found.')
  const toDue = (row: (typeof rows)[number]): AssignmentDue => ({
    id: row.id,
    title: row.title,
    due: dueView(row),
    reminderPlan: row.reminder_plan,
    completed: row.completed,
  })
  return {
    timeZone: zone.zone,
    courses: rows.filter((r) => r.kind === 'course').map(toDue),
    programs: rows.filter((r) => r.kind === 'program').map(toDue),
  }
}

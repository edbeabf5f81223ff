import { getEnv } from '#app/utils/env.server.ts'
import { db, query, sql } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import type { Actor } from '../auth/roles.ts'
import { invalid } from '../errors.ts'
import { type DueInput, type DueView } from './due.ts'
import { ReminderSettingsSchema, type ReminderSettings } from './plan.ts'

// Due dates on the server: the SQL that reads them (when an assignment falls due for its learner, whether it
// is complete), the portal-wide reminder settings, and a due date as written turned into what is stored.

/** The time zone of learners who chose none. */
export const defaultTimeZone = () => getEnv().DEFAULT_TIME_ZONE

/** SQL: the learner's time zone; `:defaultZone` must be bound to defaultTimeZone(). */
export const zoneSql = (user: string) => `COALESCE(${user}.time_zone, :defaultZone)`

/** SQL: when the assignment `a` (course or program) of the learner `u` falls due, as a timestamptz (NULL: no due date). */
export const dueAtSql = (a: string, user: string) => `assignment_due_at(${a}.due_date, ${a}.due_at, ${zoneSql(user)})`

/** SQL: whether the assignment `a` has a due date. */
export const hasDueSql = (a: string) => `(${a}.due_date IS NOT NULL OR ${a}.due_at IS NOT NULL)`

/**
 * SQL: whether the learner (`userId`, SQL) has completed the course (`courseId`, SQL): every visible video and
 * lab done, as the completion tallies keep it.
 */
export const courseDoneSql = (userId: string, courseId: string) => `COALESCE((
  SELECT t.assigned AND course_done(t.completed_videos, t.completed_labs,
                                    course_visible_videos(t.course_id), course_visible_labs(t.course_id))
    FROM course_completion_tallies t WHERE t.user_id = ${userId} AND t.course_id = ${courseId}), false)`

/** SQL: whether the learner has completed every course of the program (a program with no course is not complete). */
export const programDoneSql = (userId: string, programId: string) => `(
  EXISTS (SELECT 1 FROM program_courses pc WHERE pc.program_id = ${programId})
  AND NOT EXISTS (SELECT 1 FROM program_courses pc WHERE pc.program_id = ${programId}
                   AND NOT ${courseDoneSql(userId, 'pc.course_id')}))`

/** What a page is sent about a due date, from a row's due_date (a date string), due_at_effective and zone. */
export function dueView(row: {
  due_date: string | Date | null
  due_instant: Date | string | null
  zone: string
}): DueView | null {
  if (!row.due_instant) return null
  const dueDate =
    row.due_date === null ? null : typeof row.due_date === 'string' ? row.due_date.slice(0, 10) : isoDay(row.due_date)
  return { dueDate, dueAt: new Date(row.due_instant).toISOString(), timeZone: row.zone }
}

const isoDay = (date: Date) => date.toISOString().slice(0, 10)

/** The stored form of a due date: a day, or an instant (a local time resolved in the learner's zone). */
type StoredDue = { dueDate: string | null; dueAt: string | null }

const LOCAL_INSTANT = sql(
  `SELECT ((:date || ' ' || :time)::timestamp AT TIME ZONE ${zoneSql('u')}) AS at FROM users u WHERE u.id = :userId`,
)

/** A due date as written turned into what is stored for this learner (a local time is read in their zone). */
export async function storedDue(userId: string, due: DueInput | null): Promise<StoredDue> {
  if (!due) return { dueDate: null, dueAt: null }
  if (due.kind === 'day') return { dueDate: due.date, dueAt: null }
  if (due.kind === 'instant') return { dueDate: null, dueAt: due.at }
  const [row] = await query<{ at: Date }>(LOCAL_INSTANT, {
    date: due.date,
    time: due.time,
    userId,
    defaultZone: defaultTimeZone(),
  })
  if (!row) throw invalid('User not found.')
  return { dueDate: null, dueAt: new Date(row.at).toISOString() }
}

// ——— the portal-wide settings ———

const SETTINGS_KEY = 'reminders'

/** The reminder plan and whether learners may turn reminders off (defaults until an admin saves them). */
export async function reminderSettings(): Promise<ReminderSettings> {
  const { Setting } = await db()
  const row = await Setting.findByPk(SETTINGS_KEY)
  const read = ReminderSettingsSchema.safeParse(row?.value ?? {})
  return read.success ? read.data : ReminderSettingsSchema.parse({})
}

/** The settings page's view: admins and coaches. */
export async function readReminderSettings(actor: Actor): Promise<ReminderSettings> {
  requirePermission(actor, 'read:reminders')
  return reminderSettings()
}

/** Save the reminder plan and the learners' choice (admins). */
export async function saveReminderSettings(actor: Actor, input: unknown): Promise<ReminderSettings> {
  requirePermission(actor, 'manage:reminders')
  const settings = ReminderSettingsSchema.parse(input)
  const { Setting } = await db()
  await Setting.upsert({ key: SETTINGS_KEY, value: settings })
  return settings
}

// date-fns by its own paths, as elsewhere: its index costs a command seconds at start
import { differenceInCalendarDays } from 'date-fns/differenceInCalendarDays'
import { isValid } from 'date-fns/isValid'
import { parse } from 'date-fns/parse'
import { parseISO } from 'date-fns/parseISO'
import { z } from 'zod'
import { isTimeZone } from '../access-log/schema.ts'

// Due dates as people write them and read them. Pure: the server and the browser both use it.
//
// A due date is either a calendar day (due at the end of that day in the learner's time zone) or an exact
// time. An exact time written with an offset (2026-12-15T17:00:00Z, …+01:00) is that instant; one written
// without (2026-12-15 17:00) is that time of day in the learner's time zone, resolved when it is saved.

export type DueInput =
  { kind: 'day'; date: string } | { kind: 'instant'; at: string } | { kind: 'local'; date: string; time: string }

export const DUE_DATE_MESSAGE =
  'Due date must be a day such as 2026-12-15 or 15 Dec 2026, or a time such as 2026-12-15 17:00.'

// the forms of a day that say which number is the month: 12/05/2026 does not, and is refused
const DAY_FORMATS = [
  'yyyy-MM-dd',
  'yyyy/MM/dd',
  'dd.MM.yyyy',
  'd MMM yyyy',
  'd MMMM yyyy',
  'MMM d, yyyy',
  'MMMM d, yyyy',
]
const ISO_DAY = 'yyyy-MM-dd'
// a reference date for date-fns' parse: the fields it does not find come from it
const REFERENCE = new Date(2000, 0, 1)

function toIsoDay(date: Date) {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
}

/** A day written in one of the accepted forms, as YYYY-MM-DD; undefined when it is none of them. */
function parseDay(text: string): string | undefined {
  for (const format of DAY_FORMATS) {
    const date = parse(text, format, REFERENCE)
    // parse is lenient about widths ("2026-1-5"); the year must be the one written, four digits
    if (isValid(date) && date.getFullYear() >= 2000 && date.getFullYear() <= 2999) return toIsoDay(date)
  }
  return undefined
}

/**
 * Read a due date as written in a form, a file, a command or the /api. Empty means none (null). Returns
 * the message DUE_DATE_MESSAGE when the text is no date.
 */
export function parseDueDate(text: string | null | undefined): { due: DueInput | null } | { error: string } {
  const value = (text ?? '').trim()
  if (value === '') return { due: null }
  if (value.length > 40) return { error: DUE_DATE_MESSAGE }
  // an exact instant: a date, a time and an offset
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})$/i.test(value)) {
    const at = parseISO(value)
    return isValid(at) && at.getUTCFullYear() >= 2000 && at.getUTCFullYear() <= 2999
      ? { due: { kind: 'instant', at: at.toISOString() } }
      : { error: DUE_DATE_MESSAGE }
  }
  // a day and a time of day, in the learner's time zone
  const local = /^(.+?)[ T](\d{1,2}):(\d{2})$/.exec(value)
  if (local) {
    const date = parseDay(local[1])
    const hours = Number(local[2])
    const minutes = Number(local[3])
    if (!date || hours > 23 || minutes > 59) return { error: DUE_DATE_MESSAGE }
    return { due: { kind: 'local', date, time: `${String(hours).padStart(2, '0')}:${local[3]}` } }
  }
  const date = parseDay(value)
  return date ? { due: { kind: 'day', date } } : { error: DUE_DATE_MESSAGE }
}

/** The text a due date already read was read from: it must read back as itself (no 2026-02-31, no 25:00). */
const writtenAs = (due: DueInput) =>
  due.kind === 'day' ? due.date : due.kind === 'instant' ? due.at : `${due.date} ${due.time}`

const DueInputSchema: z.ZodType<DueInput> = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('day'), date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) }),
    z.object({ kind: z.literal('instant'), at: z.string().datetime() }),
    z.object({
      kind: z.literal('local'),
      date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      time: z.string().regex(/^\d{2}:\d{2}$/),
    }),
  ])
  .refine((due) => {
    const read = parseDueDate(writtenAs(due))
    if (!('due' in read) || read.due === null || read.due.kind !== due.kind) return false
    return read.due.kind === 'instant'
      ? read.due.at === new Date(writtenAs(due)).toISOString()
      : writtenAs(read.due) === writtenAs(due)
  }, DUE_DATE_MESSAGE)

/**
 * A due date field of a zod schema: absent stays absent (the /api's "leave it as it is"), empty or null is
 * no due date, anything else must read as a date. A due date already read (a route that parsed the form
 * with the same schema before calling the service) passes as it is.
 */
export const dueDateField = () =>
  z
    .union([z.string(), z.null(), DueInputSchema], { errorMap: () => ({ message: DUE_DATE_MESSAGE }) })
    .optional()
    .transform((value, context): DueInput | null | undefined => {
      if (value === undefined || value === null || typeof value === 'object') return value
      const read = parseDueDate(value)
      if ('error' in read) {
        context.addIssue({ code: z.ZodIssueCode.custom, message: read.error })
        return z.NEVER
      }
      return read.due
    })

// ——— time zones ———

/** The zones a learner chooses from: UTC, every zone this runtime knows, and the fixed offsets (Etc/GMT+12 is UTC−12). */
export function timeZoneNames(): string[] {
  const named = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []
  const fixed = Array.from({ length: 27 }, (_, i) => i - 12)
    .filter((offset) => offset !== 0)
    // Etc/GMT's sign is the reverse of the offset: Etc/GMT+12 is twelve hours behind UTC
    .map((offset) => `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`)
    .filter(isTimeZone)
  return ['UTC', ...named.filter((name) => name !== 'UTC'), ...fixed]
}

export const TIME_ZONE_CHOICE_MESSAGE = 'Choose a time zone from the list.'

export const timeZoneField = () =>
  z
    .string({ required_error: TIME_ZONE_CHOICE_MESSAGE, invalid_type_error: TIME_ZONE_CHOICE_MESSAGE })
    .trim()
    .max(64, TIME_ZONE_CHOICE_MESSAGE)
    .refine(isTimeZone, TIME_ZONE_CHOICE_MESSAGE)

// ——— reading a due date ———

/** Where an assignment stands. Overdue: not completed, and the due time has passed. */
export const ASSIGNMENT_STATUSES = ['completed', 'overdue', 'in-progress', 'not-started'] as const
export type AssignmentStatus = (typeof ASSIGNMENT_STATUSES)[number]
export const STATUS_LABELS: Record<AssignmentStatus, string> = {
  completed: 'Completed',
  overdue: 'Overdue',
  'in-progress': 'In progress',
  'not-started': 'Not started',
}

/** A due date as the server sends it to a page: the date as set, the instant it falls due, the learner's zone. */
export type DueView = {
  /** YYYY-MM-DD when due at the end of a day; null for an exact time */
  dueDate: string | null
  /** the instant it falls due (the end of the day in `timeZone`, or the exact time), ISO */
  dueAt: string
  timeZone: string
}

/** The calendar day an instant falls on in a time zone, as YYYY-MM-DD (read by Intl, not by hand). */
export function dayIn(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at)
}

const dayDate = (day: string) => parse(day, ISO_DAY, REFERENCE)

/** Whole calendar days from `now`'s day to the due day, in the learner's zone: 0 today, 1 tomorrow, −3 three days ago. */
export function daysUntilDue(due: DueView, now: Date): number {
  const dueDay = due.dueDate ?? dayIn(new Date(due.dueAt), due.timeZone)
  return differenceInCalendarDays(dayDate(dueDay), dayDate(dayIn(now, due.timeZone)))
}

function timeOfDay(at: Date, timeZone: string) {
  return new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit' }).format(at)
}

/** "15 Dec", or "15 Dec 2027" when not this year (in the learner's zone). */
function shortDay(due: DueView, now: Date) {
  const at = new Date(due.dueAt)
  const day = due.dueDate ?? dayIn(at, due.timeZone)
  const sameYear = day.slice(0, 4) === dayIn(now, due.timeZone).slice(0, 4)
  // a day-due's day is its own date: formatted at noon UTC so no zone moves it
  const shown = due.dueDate ? new Date(`${due.dueDate}T12:00:00Z`) : at
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: due.dueDate ? 'UTC' : due.timeZone,
    day: 'numeric',
    month: 'short',
    ...(sameYear ? {} : { year: 'numeric' }),
  }).format(shown)
}

/**
 * The words for a due date on My Courses and the admin pages: "Due 15 Dec", "Due today", "Due tomorrow",
 * "Due today at 17:00", "Overdue by 3 days", "Overdue since 17:00"; "Completed" once done.
 */
export function describeDue(due: DueView, now: Date, completed = false): string {
  if (completed) return 'Completed'
  const at = new Date(due.dueAt)
  const days = daysUntilDue(due, now)
  const time = due.dueDate ? '' : ` at ${timeOfDay(at, due.timeZone)}`
  if (now.getTime() >= at.getTime()) {
    const late = -days
    if (late <= 0) return `Overdue since ${timeOfDay(at, due.timeZone)}`
    return `Overdue by ${late} ${late === 1 ? 'day' : 'days'}`
  }
  if (days === 0) return `Due today${time}`
  if (days === 1) return `Due tomorrow${time}`
  return `Due ${shortDay(due, now)}${time}`
}

/** The due date in full, with its zone named: "Tue 15 Dec 2026, end of day (Europe/Berlin)". */
export function describeDueFully(due: DueView): string {
  if (due.dueDate) {
    const day = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'UTC',
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
    }).format(new Date(`${due.dueDate}T12:00:00Z`))
    return `${day}, end of day (${due.timeZone})`
  }
  const at = new Intl.DateTimeFormat('en-GB', {
    timeZone: due.timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  }).format(new Date(due.dueAt))
  return `${at} (${due.timeZone})`
}

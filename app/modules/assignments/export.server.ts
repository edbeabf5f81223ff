import { Transform, type Writable } from 'node:stream'
import { pipeQuery, sql, type Statement } from '#db/client.ts'
import {
  CONTENT_TYPES,
  describeDestination,
  EXPORT_FORMATS,
  isExportFormat,
  type ExportDestination,
  type ExportFormat,
  type ExportProgress,
} from '../access-log/export.server.ts'
import { requirePermission } from '../auth/permissions.ts'
import { ROLE, type Actor } from '../auth/roles.ts'
import { csvRecords } from '../csv/writer.server.ts'
import type { AssignmentStatus } from '../deadlines/due.ts'
import { dueAtSql, defaultTimeZone, zoneSql } from '../deadlines/service.server.ts'
import { courseStatusSql, programStatusSql } from '../deadlines/status.server.ts'
import { invalid } from '../errors.ts'
import { uploadToS3, writeFileAtomically } from '../files/destinations.server.ts'
import { toCourseProgress, courseProgressSql, type CourseProgressRow } from '../progress/rules.server.ts'
import { AssignmentExportFilterSchema, type AssignmentExportFilter } from './export-schema.ts'

// The assignments export: one row per course or program assigned to a learner, with its due date, where the
// learner stands (completed, overdue, in progress, not started) and how far along they are, for the Scheduled
// exports page's download, `portal export assignments` and the schedules of kind `assignments`. Rows stream
// from a database cursor through the CSV (or JSON Lines) writer the access-log export uses, so memory stays
// flat whatever the count.
//
// Percent: a course's is the course percent of My Courses (courseProgressSql, toCourseProgress). A program's is
// the mean of its courses' percents, rounded, each course counting the same: it moves with every course the
// learner works on, where the share of completed courses would stay at 0 until a first course is finished.
// A program with no course is at 0.
//
// Last reminder: the latest reminder sent for the due date as it now stands (a moved date starts again).

type Row = {
  kind: 'course' | 'program'
  subject_id: string
  title: string
  first_name: string
  last_name: string
  email: string
  user_name: string
  assigned_at: Date
  due_date: string | null
  due_at: Date | null
  due_instant: Date | null
  zone: string
  status: AssignmentStatus
  progress: CourseProgressRow[]
  reminder_step: string | null
  reminder_at: Date | null
}

/** The percent of a row: its course's, or the mean of its program's courses' (see above). */
function percentOf(row: Row): number {
  const percents = row.progress.map((p) => toCourseProgress(p).percent)
  if (!percents.length) return 0
  return Math.round(percents.reduce((sum, p) => sum + p, 0) / percents.length)
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString())

/** The due date as it was set: the day (yyyy-MM-dd), or the exact instant in ISO. */
const dueAsSet = (row: Row) => row.due_date ?? iso(row.due_at)

type Column = { header: string; key: string; value: (r: Row) => string | number | null }

const COLUMNS: Column[] = [
  { header: 'First Name', key: 'firstName', value: (r) => r.first_name },
  { header: 'Last Name', key: 'lastName', value: (r) => r.last_name },
  { header: 'Email', key: 'email', value: (r) => r.email },
  { header: 'Username', key: 'userName', value: (r) => r.user_name },
  { header: 'Kind', key: 'kind', value: (r) => r.kind },
  { header: 'Title', key: 'title', value: (r) => r.title },
  { header: 'ID', key: 'id', value: (r) => r.subject_id },
  { header: 'Assigned At', key: 'assignedAt', value: (r) => iso(r.assigned_at) },
  { header: 'Due Date', key: 'dueDate', value: dueAsSet },
  { header: 'Due At', key: 'dueAt', value: (r) => iso(r.due_instant) },
  { header: 'Time Zone', key: 'timeZone', value: (r) => r.zone },
  { header: 'Status', key: 'status', value: (r) => r.status },
  { header: 'Percent', key: 'percent', value: percentOf },
  { header: 'Last Reminder', key: 'lastReminder', value: (r) => r.reminder_step },
  { header: 'Last Reminder At', key: 'lastReminderAt', value: (r) => iso(r.reminder_at) },
]
export const ASSIGNMENT_EXPORT_HEADERS = COLUMNS.map((c) => c.header)

/** The day an assignment `a` of the learner `u` is due on, in the learner's time zone. */
const dueDaySql = (a: string, u: string) => `COALESCE(${a}.due_date, (${a}.due_at AT TIME ZONE ${zoneSql(u)})::date)`

const lastReminderSql = (a: string, subject: 'course_id' | 'program_id') => `
  LEFT JOIN LATERAL (
    SELECT r.step, r.created_at FROM assignment_reminders r
     WHERE r.user_id = ${a}.user_id AND r.${subject} = ${a}.${subject}
       AND r.due = assignment_due_key(${a}.due_date, ${a}.due_at)
     ORDER BY r.created_at DESC, r.id DESC LIMIT 1) r ON true`

/** The assignments of learners the filter keeps (courses, programs, due days); status is the outer query's. */
const keepSql = (a: string, subject: 'courses' | 'programs', column: string) => `
      u.role_id = :learner
  AND ((cardinality(:courses::uuid[]) = 0 AND cardinality(:programs::uuid[]) = 0)
       OR ${a}.${column} = ANY(:${subject}::uuid[]))
  AND (:dueAfter::date IS NULL OR ${dueDaySql(a, 'u')} > :dueAfter::date)
  AND (:dueBefore::date IS NULL OR ${dueDaySql(a, 'u')} < :dueBefore::date)`

const ASSIGNMENTS = sql(`
  SELECT * FROM (
    SELECT 'course' AS kind, c.id AS subject_id, c.title, u.id AS user_id,
           u.first_name, u.last_name, u.email::text AS email, u.user_name::text AS user_name,
           a.created_at AS assigned_at, to_char(a.due_date, 'YYYY-MM-DD') AS due_date, a.due_at,
           ${dueAtSql('a', 'u')} AS due_instant, ${zoneSql('u')} AS zone,
           ${courseStatusSql('a', 'u')} AS status,
           (SELECT jsonb_build_array(to_jsonb(cp)) FROM (${courseProgressSql('a.course_id', 'a.user_id')}) cp) AS progress,
           r.step AS reminder_step, r.created_at AS reminder_at
      FROM course_assignments a
      JOIN users u ON u.id = a.user_id
      JOIN courses c ON c.id = a.course_id
      ${lastReminderSql('a', 'course_id')}
     WHERE ${keepSql('a', 'courses', 'course_id')}
    UNION ALL
    SELECT 'program', p.id, p.title, u.id,
           u.first_name, u.last_name, u.email::text, u.user_name::text,
           a.created_at, to_char(a.due_date, 'YYYY-MM-DD'), a.due_at,
           ${dueAtSql('a', 'u')}, ${zoneSql('u')},
           ${programStatusSql('a', 'u')},
           (SELECT COALESCE(jsonb_agg(to_jsonb(cp) ORDER BY pc.position, pc.course_id), '[]'::jsonb)
              FROM program_courses pc
             CROSS JOIN LATERAL (${courseProgressSql('pc.course_id', 'a.user_id')}) cp
             WHERE pc.program_id = a.program_id),
           r.step, r.created_at
      FROM program_assignments a
      JOIN users u ON u.id = a.user_id
      JOIN programs p ON p.id = a.program_id
      ${lastReminderSql('a', 'program_id')}
     WHERE ${keepSql('a', 'programs', 'program_id')}
  ) x
  WHERE (:status::text IS NULL OR x.status = :status::text)
  ORDER BY lower(x.last_name), lower(x.first_name), x.user_id, x.due_instant NULLS LAST, x.kind, lower(x.title),
           x.subject_id`)

/** The export's statement for a checked filter, as of `now`. */
function statement(filter: AssignmentExportFilter, now: Date): Statement {
  const values: Record<string, unknown> = {
    learner: ROLE.learner,
    courses: filter.courses,
    programs: filter.programs,
    dueAfter: filter.dueAfter ?? null,
    dueBefore: filter.dueBefore ?? null,
    status: filter.status ?? null,
    now,
    defaultZone: defaultTimeZone(),
  }
  return { text: ASSIGNMENTS.text, values: ASSIGNMENTS.names.map((name) => values[name]) }
}

/**
 * The filter checked for whoever asks: the people who may read the people lists and their progress (admins,
 * the super admin, coaches), as the users export. A refused actor or filter is refused before anything is
 * written.
 */
export function assignmentExportFilter(actor: Actor, input: unknown): AssignmentExportFilter {
  requirePermission(actor, 'read:people')
  return AssignmentExportFilterSchema.parse(input ?? {})
}

function formatter(format: ExportFormat): Transform[] {
  if (format === 'jsonl') {
    return [
      new Transform({
        writableObjectMode: true,
        transform(row: Row, _encoding, done) {
          done(null, `${JSON.stringify(Object.fromEntries(COLUMNS.map((c) => [c.key, c.value(row)])))}\n`)
        },
      }),
    ]
  }
  return csvRecords(ASSIGNMENT_EXPORT_HEADERS, (row: Row) => COLUMNS.map((c) => c.value(row)))
}

function assertFormat(format: string) {
  if (!isExportFormat(format)) throw invalid(`Format must be one of ${EXPORT_FORMATS.join(', ')}.`)
}

type ExportOptions = {
  format?: ExportFormat
  /** the moment the statuses are read at (now by default) */
  now?: Date
  /** called as rows are written, at most every 1,000 rows and once at the end */
  onProgress?: (progress: ExportProgress) => void
  signal?: AbortSignal
}

/** Stream the assignments of a filter into `sink` in the given format; resolves with the rows and bytes written. */
export async function writeAssignments(
  actor: Actor,
  input: unknown,
  sink: Writable,
  { format = 'csv', now = new Date(), onProgress, signal }: ExportOptions = {},
): Promise<ExportProgress> {
  const filter = assignmentExportFilter(actor, input)
  assertFormat(format)
  const progress: ExportProgress = { rows: 0, bytes: 0 }
  const rowCounter = new Transform({
    objectMode: true,
    transform(row: Row, _encoding, done) {
      progress.rows++
      if (progress.rows % 1000 === 0) onProgress?.({ ...progress })
      done(null, row)
    },
  })
  const byteCounter = new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      progress.bytes += Buffer.byteLength(chunk)
      done(null, chunk)
    },
  })
  await pipeQuery(statement(filter, now), [rowCounter, ...formatter(format), byteCounter, sink], { signal })
  onProgress?.({ ...progress })
  return progress
}

/** Export the assignments of a filter to a destination; on failure nothing is left there. */
export async function exportAssignments(
  actor: Actor,
  input: unknown,
  destination: ExportDestination,
  options: ExportOptions = {},
): Promise<ExportProgress & { location: string }> {
  const location = describeDestination(destination)
  // refused filters, actors and formats fail before anything is created
  assignmentExportFilter(actor, input)
  const format = options.format ?? 'csv'
  assertFormat(format)
  const write = (sink: Writable) => writeAssignments(actor, input, sink, options)
  if (destination.kind === 'stream') return { ...(await write(destination.stream)), location }
  if (destination.kind === 'file') return { ...(await writeFileAtomically(destination.path, write)), location }
  return { ...(await uploadToS3(destination, CONTENT_TYPES[format], write)), location }
}

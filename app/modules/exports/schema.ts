import { Cron } from 'croner'
import { z } from 'zod'
import type { ExportFormat } from '../access-log/export.server.ts'
import { EXPORT_RANGES } from '../access-log/ranges.ts'
import { isTimeZone } from '../access-log/schema.ts'
import { listLimit } from '../list-limit.ts'

// A scheduled export as an admin describes it, on the page or with `portal exports schedule add`.

export { EXPORT_RANGES, type ExportRange } from '../access-log/ranges.ts'
export const SCHEDULE_FORMATS = ['csv', 'jsonl'] as const satisfies readonly ExportFormat[]

/** Cron patterns are the classic five fields, read in the schedule's time zone. */
export const CRON_OPTIONS = { mode: '5-part' } as const

const CRON_HINT = 'five fields: minute hour day-of-month month day-of-week, such as 0 2 * * * for 02:00 every day'

/** Why croner refuses a pattern, or why it would never run; undefined when it is a usable schedule. */
function cronProblem(pattern: string): string | undefined {
  let cron: Cron
  try {
    cron = new Cron(pattern, { ...CRON_OPTIONS, paused: true })
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error)
    return `Cron "${pattern}" is not a valid schedule (${reason}); use ${CRON_HINT}.`
  }
  if (!cron.nextRun()) return `Cron "${pattern}" never runs; use ${CRON_HINT}.`
  return undefined
}

const BUCKET = '[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]'
const S3_PREFIX = new RegExp(`^s3://${BUCKET}/([^\\s]*/)?$`)

/** Why a destination cannot take exports, or undefined: an S3 prefix or an absolute folder, both ending in /. */
function destinationProblem(destination: string): string | undefined {
  if (destination.startsWith('s3://')) {
    if (!destination.endsWith('/'))
      return 'An S3 destination is a prefix and must end with / (such as s3://bucket/exports/).'
    if (!S3_PREFIX.test(destination) || destination.includes('//', 5))
      return `"${destination}" is not an S3 prefix (s3://bucket/ or s3://bucket/prefix/).`
    return undefined
  }
  if (!destination.startsWith('/'))
    return 'A folder destination must be an absolute path (such as /var/exports/), or use s3://bucket/prefix/.'
  if (!destination.endsWith('/')) return 'A folder destination must end with / (such as /var/exports/).'
  if (destination.split('/').includes('..')) return 'A folder destination may not contain "..".'
  return undefined
}

const text = (label: string, max: number) =>
  z
    .string({ required_error: `${label} is required.`, invalid_type_error: `${label} must be text.` })
    .trim()
    .min(1, `${label} is required.`)
    .max(max, `${label} must be at most ${max} characters.`)

const oneOf = <T extends readonly [string, ...string[]]>(label: string, values: T) =>
  z.enum(values, {
    errorMap: (issue, ctx) => ({
      message:
        issue.code === 'invalid_type' && ctx.data === undefined
          ? `${label} is required.`
          : `${label} must be one of ${values.join(', ')}.`,
    }),
  })

export const ScheduleSchema = z.object({
  // the name starts every file the schedule writes, so it is kept to what is safe in a file name
  name: text('Name', 64).regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
    'Name can only contain letters, numbers, dots, dashes and underscores, and starts with a letter or number.',
  ),
  cron: text('Cron', 120)
    .transform((v) => v.replace(/\s+/g, ' '))
    .superRefine((v, ctx) => {
      const problem = cronProblem(v)
      if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem })
    }),
  timeZone: z
    .string()
    .trim()
    .max(64)
    .refine(isTimeZone, 'Time zone must be an IANA name such as UTC or Europe/Berlin.')
    .default('UTC'),
  range: oneOf('Range', EXPORT_RANGES),
  courses: z.preprocess(
    (v) => (v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? v : [v]),
    z.array(z.string().trim().uuid('Courses must be course ids.')).max(200, 'Choose at most 200 courses.'),
  ),
  format: oneOf('Format', SCHEDULE_FORMATS).default('csv'),
  destination: text('Destination', 1000).superRefine((v, ctx) => {
    const problem = destinationProblem(v)
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem })
  }),
})
export type Schedule = z.output<typeof ScheduleSchema>

export const HistorySchema = z.object({
  limit: listLimit(20),
})

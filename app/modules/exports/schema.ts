import { z } from 'zod'
import type { ExportFormat } from '../access-log/export.server.ts'
import { EXPORT_RANGES, type ExportRange } from '../access-log/ranges.ts'
import { ASSIGNMENT_STATUSES } from '../deadlines/due.ts'
import { scheduleDestination, scheduleTiming } from '../jobs/schedule-schema.ts'

// A scheduled export as an admin describes it, on the page or with `portal exports schedule add`: its kind
// (the access log for a range of days, or the assignments as they stand when it runs, which has no range and
// may keep one status only), the courses it covers (all when none), its format and where it goes.

export { EXPORT_RANGES, type ExportRange } from '../access-log/ranges.ts'
export const SCHEDULE_FORMATS = ['csv', 'jsonl'] as const satisfies readonly ExportFormat[]
export const EXPORT_KINDS = ['access-log', 'assignments'] as const
export type ExportKind = (typeof EXPORT_KINDS)[number]

const oneOf = <T extends readonly [string, ...string[]]>(label: string, values: T) =>
  z.enum(values, {
    errorMap: (issue, ctx) => ({
      message:
        issue.code === 'invalid_type' && ctx.data === undefined
          ? `${label} is required.`
          : `${label} must be one of ${values.join(', ')}.`,
    }),
  })

export const ScheduleSchema = z
  .object({
    ...scheduleTiming,
    kind: oneOf('Kind', EXPORT_KINDS).default('access-log'),
    // the access log's days; an assignments export has none (what the form posts for it is left aside)
    range: z.preprocess((v) => (v === null ? undefined : v), oneOf('Range', EXPORT_RANGES).optional()),
    courses: z.preprocess(
      (v) => (v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? v : [v]),
      z.array(z.string().trim().uuid('Courses must be course ids.')).max(200, 'Choose at most 200 courses.'),
    ),
    // an assignments export's status (none: every status); the access log has none
    status: z.preprocess(
      (v) => (v === '' || v === null ? undefined : v),
      oneOf('Status', ASSIGNMENT_STATUSES).optional(),
    ),
    format: oneOf('Format', SCHEDULE_FORMATS).default('csv'),
    destination: scheduleDestination('exports'),
  })
  .superRefine((schedule, ctx) => {
    if (schedule.kind === 'access-log' && !schedule.range)
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['range'], message: 'Range is required.' })
    if (schedule.kind === 'access-log' && schedule.status)
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['status'],
        message: 'Only an assignments export has a status.',
      })
  })
  .transform((schedule) =>
    schedule.kind === 'assignments'
      ? { ...schedule, range: null, status: schedule.status ?? null }
      : { ...schedule, range: schedule.range as ExportRange, status: null },
  )
export type Schedule = z.output<typeof ScheduleSchema>

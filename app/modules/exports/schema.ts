import { z } from 'zod'
import type { ExportFormat } from '../access-log/export.server.ts'
import { EXPORT_RANGES } from '../access-log/ranges.ts'
import { isTimeZone } from '../access-log/schema.ts'
import { destinationProblem } from '../files/destination-syntax.ts'
import { cronProblem } from '../jobs/cron-slots.ts'
import { listLimit } from '../list-limit.ts'

// A scheduled export as an admin describes it, on the page or with `portal exports schedule add`.

export { EXPORT_RANGES, type ExportRange } from '../access-log/ranges.ts'
export const SCHEDULE_FORMATS = ['csv', 'jsonl'] as const satisfies readonly ExportFormat[]

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
    const problem = destinationProblem(v, 'exports')
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem })
  }),
})
export type Schedule = z.output<typeof ScheduleSchema>

export const HistorySchema = z.object({
  limit: listLimit(20),
})

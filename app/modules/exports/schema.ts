import { z } from 'zod'
import type { ExportFormat } from '../access-log/export.server.ts'
import { EXPORT_RANGES } from '../access-log/ranges.ts'
import { scheduleDestination, scheduleTiming } from '../jobs/schedule-schema.ts'

// A scheduled export as an admin describes it, on the page or with `portal exports schedule add`.

export { EXPORT_RANGES, type ExportRange } from '../access-log/ranges.ts'
export const SCHEDULE_FORMATS = ['csv', 'jsonl'] as const satisfies readonly ExportFormat[]

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
  ...scheduleTiming,
  range: oneOf('Range', EXPORT_RANGES),
  courses: z.preprocess(
    (v) => (v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? v : [v]),
    z.array(z.string().trim().uuid('Courses must be course ids.')).max(200, 'Choose at most 200 courses.'),
  ),
  format: oneOf('Format', SCHEDULE_FORMATS).default('csv'),
  destination: scheduleDestination('exports'),
})
export type Schedule = z.output<typeof ScheduleSchema>

import { z } from 'zod'

// The access-log filter (spec §2): courses, a start date and an end date, all optional.

const day = (label: string) =>
  z.preprocess(
    (v) => (v === '' || v === null ? undefined : v),
    z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}/, `${label} must be a date.`)
      .refine((v) => !Number.isNaN(Date.parse(v.slice(0, 10))), `${label} must be a date.`)
      .transform((v) => v.slice(0, 10))
      .optional(),
  )

export const AccessLogFilterSchema = z
  .object({
    startDate: day('Start date'),
    endDate: day('End date'),
    courses: z.preprocess(
      (v) => (v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? v : [v]),
      z.array(z.string().uuid('Courses must be course ids.')).max(200),
    ),
  })
  .refine((f) => !f.startDate || !f.endDate || f.startDate <= f.endDate, {
    path: ['endDate'],
    message: 'End date must not be before the start date.',
  })
export type AccessLogFilter = z.output<typeof AccessLogFilterSchema>

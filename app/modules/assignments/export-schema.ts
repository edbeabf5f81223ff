import { z } from 'zod'
import { toDay } from '../access-log/schema.ts'
import { ASSIGNMENT_STATUSES } from '../deadlines/due.ts'

// What the assignments export takes as its filter, on the Scheduled exports page, with `portal export
// assignments` and in a schedule: a status, some courses and programs, and the days the due dates fall in.

const list = (label: string) =>
  z.preprocess(
    (v) => (v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? v : [v]),
    z
      .array(z.string().trim().uuid(`${label} must be ${label.toLowerCase()} ids.`))
      .max(200, `Choose at most 200 ${label.toLowerCase()}.`),
  )

const day = (label: string) =>
  z.preprocess(
    (v) => (v === '' || v === null ? undefined : v),
    z
      .string({ invalid_type_error: `${label} must be a date such as 2026-12-15.` })
      .transform((v, ctx) => {
        const read = toDay(v)
        if (read) return read
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${label} must be a date such as 2026-12-15.` })
        return z.NEVER
      })
      .optional(),
  )

export const AssignmentExportFilterSchema = z
  .object({
    status: z.preprocess(
      (v) => (v === '' || v === null ? undefined : v),
      z
        .enum(ASSIGNMENT_STATUSES, {
          errorMap: () => ({ message: `Status must be one of ${ASSIGNMENT_STATUSES.join(', ')}.` }),
        })
        .optional(),
    ),
    // none of either: every assignment; otherwise the assignments of these courses and of these programs
    courses: list('Courses'),
    programs: list('Programs'),
    // the day an assignment is due on, in its learner's time zone, strictly after and strictly before these
    dueAfter: day('Due after'),
    dueBefore: day('Due before'),
  })
  .superRefine((filter, ctx) => {
    if (filter.dueAfter && filter.dueBefore && filter.dueAfter >= filter.dueBefore)
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['dueBefore'],
        message: 'Due before must be later than due after.',
      })
  })
export type AssignmentExportFilter = z.output<typeof AssignmentExportFilterSchema>

import { z } from 'zod'
import { isTimeZone } from '../access-log/schema.ts'
import { destinationProblem } from '../files/destination-syntax.ts'
import { cronProblem } from '../jobs/cron-slots.ts'
import { listLimit } from '../list-limit.ts'

// A scheduled backup as a super admin describes it, on the Backups page or with `portal backups schedule add`.

export const BACKUP_COMPRESSIONS = ['zstd', 'gzip'] as const

/** The most days and weeks a schedule keeps: ten years of weeks, a year of days. */
const MAX_DAILY = 366
const MAX_WEEKLY = 520

const text = (label: string, max: number) =>
  z
    .string({ required_error: `${label} is required.`, invalid_type_error: `${label} must be text.` })
    .trim()
    .min(1, `${label} is required.`)
    .max(max, `${label} must be at most ${max} characters.`)

/** A count of archives to keep, from a form's text or a number; left empty, `byDefault`. */
const keep = (label: string, max: number, byDefault: number) =>
  z.preprocess(
    (v) => (v === undefined || v === null || v === '' ? undefined : typeof v === 'string' ? Number(v.trim()) : v),
    z
      .number({ invalid_type_error: `${label} must be a number.` })
      .int(`${label} must be a whole number.`)
      .min(0, `${label} cannot be negative.`)
      .max(max, `${label} must be at most ${max}.`)
      .default(byDefault),
  )

export const BackupScheduleSchema = z.object({
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
  destination: text('Destination', 1000).superRefine((v, ctx) => {
    const problem = destinationProblem(v, 'backups')
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem })
  }),
  keepDaily: keep('Daily archives kept', MAX_DAILY, 7),
  keepWeekly: keep('Weekly archives kept', MAX_WEEKLY, 4),
  compression: z
    .enum(BACKUP_COMPRESSIONS, {
      errorMap: () => ({ message: `Compression must be one of ${BACKUP_COMPRESSIONS.join(', ')}.` }),
    })
    .default('zstd'),
})
export type BackupSchedule = z.output<typeof BackupScheduleSchema>

export const BackupHistorySchema = z.object({
  limit: listLimit(20),
})

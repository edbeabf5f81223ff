import { z } from 'zod'
import { scheduleDestination, scheduleTiming } from '../jobs/schedule-schema.ts'

// A scheduled backup as a super admin describes it, on the Backups page or with `portal backups schedule add`.

export const BACKUP_COMPRESSIONS = ['zstd', 'gzip'] as const

/** The most days and weeks a schedule keeps: ten years of weeks, a year of days. */
const MAX_DAILY = 366
const MAX_WEEKLY = 520

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
  ...scheduleTiming,
  destination: scheduleDestination('backups'),
  keepDaily: keep('Daily archives kept', MAX_DAILY, 7),
  keepWeekly: keep('Weekly archives kept', MAX_WEEKLY, 4),
  compression: z
    .enum(BACKUP_COMPRESSIONS, {
      errorMap: () => ({ message: `Compression must be one of ${BACKUP_COMPRESSIONS.join(', ')}.` }),
    })
    .default('zstd'),
})
export type BackupSchedule = z.output<typeof BackupScheduleSchema>

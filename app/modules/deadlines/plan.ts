import { z } from 'zod'

// The reminder plan: on which days around a due date a learner who has not completed is mailed. Days
// before are counted back from the due day, days overdue on from it, in the learner's time zone; each
// reminder goes from REMINDER_HOUR that local day.

export type ReminderPlan = { before: number[]; after: number[] }

/** A week and a day ahead; then a day, three days and a week overdue. */
export const DEFAULT_PLAN: ReminderPlan = { before: [7, 1], after: [1, 3, 7] }

/** The local hour of the day a reminder goes from (08:00). */
export const REMINDER_HOUR = 8

export const PLAN_MESSAGE = 'Days must be whole numbers from 0 to 365, at most 10 of them, such as 7, 1.'

const days = (least: number) =>
  z
    .array(
      z.number({ invalid_type_error: PLAN_MESSAGE }).int(PLAN_MESSAGE).min(least, PLAN_MESSAGE).max(365, PLAN_MESSAGE),
    )
    .max(10, PLAN_MESSAGE)
    .transform((list) => [...new Set(list)].sort((a, b) => b - a))

export const ReminderPlanSchema = z.object({
  /** days before the due day (0: the due day itself) */
  before: days(0),
  /** days after it (at least 1) */
  after: days(1).transform((list) => [...list].sort((a, b) => a - b)),
})

/** "7, 1" as typed in a form or a command: the days, or the message. */
export function parseDays(text: string): number[] | { error: string } {
  const parts = text
    .split(/[,\s]+/)
    .map((p) => p.trim())
    .filter(Boolean)
  if (!parts.every((p) => /^\d{1,3}$/.test(p))) return { error: PLAN_MESSAGE }
  return parts.map(Number)
}

/** The portal-wide reminder settings (the settings row `reminders`). */
export const ReminderSettingsSchema = z.object({
  plan: ReminderPlanSchema.default(DEFAULT_PLAN),
  /** learners may turn reminder mails off on their profile (off by default: compliance training) */
  learnersMayOptOut: z.boolean().default(false),
})
export type ReminderSettings = z.output<typeof ReminderSettingsSchema>

/** "7 and 1 days before; 1, 3 and 7 days overdue", or "none". */
export function describePlan(plan: ReminderPlan): string {
  const list = (d: number[]) => (d.length === 1 ? `${d[0]}` : `${d.slice(0, -1).join(', ')} and ${d[d.length - 1]}`)
  const parts = [
    plan.before.length
      ? `${list(plan.before)} ${plan.before.length === 1 && plan.before[0] === 1 ? 'day' : 'days'} before`
      : '',
    plan.after.length
      ? `${list(plan.after)} ${plan.after.length === 1 && plan.after[0] === 1 ? 'day' : 'days'} overdue`
      : '',
  ].filter(Boolean)
  return parts.length ? parts.join('; ') : 'none'
}

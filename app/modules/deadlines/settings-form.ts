import { z } from 'zod'
import { flag, keptFlag } from '../content/schema.ts'
import { parseDays, ReminderPlanSchema } from './plan.ts'

// The Reminders page's form: the portal's reminder plan as days typed in two fields ("7, 1"), and whether
// learners may turn reminder mails off. The browser checks it as the server does; what it gives is what
// saveReminderSettings takes.

export const BEFORE_MESSAGE =
  'Days before the due date are whole numbers from 0 (the due day itself) to 365, at most 10 of them, such as 7, 1.'
export const AFTER_MESSAGE = 'Days overdue are whole numbers from 1 to 365, at most 10 of them, such as 1, 3, 7.'

/** One side of the plan as typed: empty is no reminders on that side. */
const daysField = (least: number, message: string) =>
  z
    .string({ invalid_type_error: message })
    .default('')
    .transform((text, context) => {
      const days = parseDays(text)
      if ('error' in days || days.length > 10 || days.some((d) => d < least || d > 365)) {
        context.addIssue({ code: 'custom', message })
        return z.NEVER
      }
      return days
    })

export const ReminderSettingsFormSchema = z
  .object({
    before: daysField(0, BEFORE_MESSAGE).pipe(ReminderPlanSchema.shape.before),
    after: daysField(1, AFTER_MESSAGE).pipe(ReminderPlanSchema.shape.after),
    learnersMayOptOut: flag(false),
  })
  .transform(({ before, after, learnersMayOptOut }) => ({ plan: { before, after }, learnersMayOptOut }))

/** Days as the form shows them again: "7, 1". */
export const daysText = (days: number[]) => days.join(', ')

/**
 * The switch the /api's edit calls (editCourseDetails, editProgram) take beside their own fields, left out to
 * keep what is stored.
 */
export const ReminderSwitchField = z.object({
  reminders: keptFlag.describe(
    'reminders about due dates are mailed to its learners (on for a new one); left out keeps the setting',
  ),
})

const REMINDER_SWITCH_MESSAGE = 'Choose whether reminders about due dates are sent.'

/** The switch on a course's page: on or off, posted as true or false. */
export const ReminderSwitchFormSchema = z.object({
  reminders: keptFlag.pipe(
    z.boolean({ required_error: REMINDER_SWITCH_MESSAGE, invalid_type_error: REMINDER_SWITCH_MESSAGE }),
  ),
})

/** What the page says once the switch is saved. */
export const remindersSavedMessage = (kind: 'course' | 'program', on: boolean) =>
  on
    ? `Reminders about due dates are on for this ${kind}.`
    : `Reminders about due dates are off for this ${kind}: its learners get none.`

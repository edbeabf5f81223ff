import { z } from 'zod'
import { DUE_DATE_MESSAGE, dueDateField, parseDueDate, type DueInput } from '../deadlines/due.ts'
import { parseDays, PLAN_MESSAGE, ReminderPlanSchema, type ReminderPlan } from '../deadlines/plan.ts'
import { IMPORT_DELIMITERS } from '../users/import-schema.ts'

// The old client's messages, word for word: the program's says "Course" too, and lacks its "a".
export const NO_COURSE = 'Course is a required field to assign'
export const NO_PROGRAM = 'Course is required field to assign'

const id = (message: string) =>
  z.string({ required_error: message, invalid_type_error: message }).trim().min(1, message).uuid(message)

/**
 * What an assignment may carry besides who and what: a due date (absent: a new assignment has none and an
 * existing one keeps its own; empty or null: none) and its own reminder plan (absent: kept; null: the portal's).
 */
const dueFields = {
  dueDate: dueDateField(),
  reminderPlan: ReminderPlanSchema.nullable().optional(),
}

export const AssignCourseSchema = z.object({
  userId: id('User is required.'),
  courseId: id(NO_COURSE),
  ...dueFields,
})
export type AssignCourseInput = z.input<typeof AssignCourseSchema>

export const AssignProgramSchema = z.object({
  userId: id('User is required.'),
  programId: id(NO_PROGRAM),
  ...dueFields,
})
export type AssignProgramInput = z.input<typeof AssignProgramSchema>

// ——— Due dates as the admin pages' forms post them ———

const DUE_TIME_MESSAGE = 'A time needs its day: choose the date too.'
const TIME_MESSAGE = 'Time must be like 17:00.'

/**
 * A day (a date input; typed days are read as the imports read them) and an optional time of day, in the
 * learner's time zone: no time is due at the end of the day, a time is due then.
 */
const dueFormFields = {
  dueDate: z.string().trim().max(40, DUE_DATE_MESSAGE).optional(),
  dueTime: z.string().trim().max(8, TIME_MESSAGE).optional(),
}

/** The day and time read as one due date (null: none), or the messages beside their fields. */
function readDueForm(value: { dueDate?: string; dueTime?: string }, context: z.RefinementCtx): DueInput | null {
  const day = value.dueDate ?? ''
  const time = value.dueTime ?? ''
  if (time !== '' && !/^\d{1,2}:\d{2}$/.test(time)) {
    context.addIssue({ code: z.ZodIssueCode.custom, message: TIME_MESSAGE, path: ['dueTime'] })
    return null
  }
  if (day === '') {
    if (time !== '') context.addIssue({ code: z.ZodIssueCode.custom, message: DUE_TIME_MESSAGE, path: ['dueTime'] })
    return null
  }
  const read = parseDueDate(time === '' ? day : `${day} ${time}`)
  if ('error' in read) {
    context.addIssue({ code: z.ZodIssueCode.custom, message: read.error, path: ['dueDate'] })
    return null
  }
  return read.due
}

/** User Details' Assign New Course: the course and an optional due date. */
export const AssignCourseFormSchema = z
  .object({ courseId: id(NO_COURSE), ...dueFormFields })
  .transform((value, context) => ({ courseId: value.courseId, dueDate: readDueForm(value, context) }))

/** User Details' Assign Program: the program and an optional due date. */
export const AssignProgramFormSchema = z
  .object({ programId: id(NO_PROGRAM), ...dueFormFields })
  .transform((value, context) => ({ programId: value.programId, dueDate: readDueForm(value, context) }))

/** A program page's assigning: learners named by username or email, one a line or comma, and a due date. */
export const AssignLearnersFormSchema = z
  .object({
    learners: z
      .string({ required_error: 'Name at least one learner.' })
      .trim()
      .min(1, 'Name at least one learner.')
      .max(20_000, 'At most 500 learners at once.'),
    ...dueFormFields,
  })
  .transform((value, context) => {
    const learners = [...new Set(value.learners.split(/[\s,;]+/).filter(Boolean))]
    if (learners.length > 500)
      context.addIssue({ code: z.ZodIssueCode.custom, message: 'At most 500 learners at once.', path: ['learners'] })
    return { learners, dueDate: readDueForm(value, context) }
  })

export const REMINDER_CHOICES = ['portal', 'custom', 'none'] as const
export const REMINDER_CHOICE_LABELS: Record<(typeof REMINDER_CHOICES)[number], string> = {
  portal: 'The portal’s plan',
  custom: 'Its own days',
  none: 'No reminders',
}

/** "7, 1" read as days, with the plan's rule, or the message beside the field. */
function readDays(text: string | undefined, field: string, context: z.RefinementCtx): number[] {
  const days = parseDays(text ?? '')
  if ('error' in days) {
    context.addIssue({ code: z.ZodIssueCode.custom, message: days.error, path: [field] })
    return []
  }
  return days
}

/**
 * An assignment's due date and reminders as the change dialog of User Details posts them: which assignment
 * (a course assigned directly, or a program), the day and time (empty: no due date), and the plan.
 */
export const AssignmentDueFormSchema = z
  .object({
    kind: z.enum(['course', 'program'], { message: 'Choose a course or a program.' }),
    id: id('Choose an assignment.'),
    ...dueFormFields,
    reminders: z.enum(REMINDER_CHOICES, { message: 'Choose a reminder plan.' }).default('portal'),
    remindBefore: z.string().trim().max(60, PLAN_MESSAGE).optional(),
    remindAfter: z.string().trim().max(60, PLAN_MESSAGE).optional(),
  })
  .transform((value, context) => {
    let reminderPlan: ReminderPlan | null = null
    if (value.reminders === 'none') reminderPlan = { before: [], after: [] }
    if (value.reminders === 'custom') {
      const before = readDays(value.remindBefore, 'remindBefore', context)
      const after = readDays(value.remindAfter, 'remindAfter', context)
      const plan = ReminderPlanSchema.safeParse({ before, after })
      if (plan.success) reminderPlan = plan.data
      else
        for (const issue of plan.error.issues)
          context.addIssue({
            code: z.ZodIssueCode.custom,
            message: issue.message,
            path: [issue.path[0] === 'before' ? 'remindBefore' : 'remindAfter'],
          })
    }
    return { kind: value.kind, id: value.id, dueDate: readDueForm(value, context), reminderPlan }
  })

/** Changing an assignment's due date and plan (absent: kept; a null due date: none; a null plan: the portal's). */
export const AssignmentDueSchema = z.object({
  userId: id('User is required.'),
  kind: z.enum(['course', 'program'], { message: 'Choose a course or a program.' }),
  id: id('Choose an assignment.'),
  ...dueFields,
})
export type AssignmentDueInput = z.input<typeof AssignmentDueSchema>

// ——— Assignments in bulk: a CSV file, or one course or program for many learners ———

export const AssignmentImportOptionsSchema = z.object({
  dryRun: z.boolean().default(false),
  atomic: z.boolean().default(false),
  delimiter: z.enum(IMPORT_DELIMITERS, { message: 'The delimiter is a comma or a semicolon.' }).optional(),
})
export type AssignmentImportOptionsInput = z.input<typeof AssignmentImportOptionsSchema>

/** One row of an assignment file, after its header was matched: a learner and a course, a program or both. */
export const AssignmentRowSchema = z
  .object({
    user: z.string().trim().min(1, 'User is required.'),
    course: z.string().trim().default(''),
    program: z.string().trim().default(''),
  })
  .refine((row) => row.course !== '' || row.program !== '', {
    message: 'Give a course or a program.',
    path: ['course'],
  })

/**
 * One course or program for many learners. When assigning, a due date and a reminder plan given apply to
 * every learner named: new assignments get them, and those the learners had already take them (absent: each
 * keeps its own; null: none, and the portal's plan).
 */
export const BulkAssignmentSchema = z
  .object({
    action: z.enum(['assign', 'unassign']),
    course: z.string().trim().default(''),
    program: z.string().trim().default(''),
    dryRun: z.boolean().default(false),
    ...dueFields,
  })
  .refine((input) => (input.course === '') !== (input.program === ''), {
    message: 'Give either a course or a program.',
    path: ['course'],
  })
export type BulkAssignmentInput = z.input<typeof BulkAssignmentSchema>

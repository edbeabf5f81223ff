import { z } from 'zod'
import { dueDateField } from '../deadlines/due.ts'
import { ReminderPlanSchema } from '../deadlines/plan.ts'
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

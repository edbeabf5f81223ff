import { z } from 'zod'
import { CertificateFields } from '../certificates/settings.ts'
import { fileRef, ReorderSchema, uuid } from '../content/schema.ts'
import { ReminderSwitchField } from '../deadlines/settings-form.ts'

// The program form (new and edit), with one message per field ("Price is required field."). The old
// client named the title `name` and the course `relatedCourse`; both spellings are accepted.

const required = (label: string, max = 2000) =>
  z
    .string({ required_error: `${label} is required field.`, invalid_type_error: `${label} is required field.` })
    .trim()
    .min(1, `${label} is required field.`)
    .max(max, `${label} must be at most ${max} characters.`)

/** The old client's spellings, read as the form's. */
const oldNames = (value: unknown) => {
  if (!value || typeof value !== 'object') return value
  const v = value as Record<string, unknown>
  return { ...v, title: v.title ?? v.name, courses: v.courses ?? v.relatedCourse }
}

/** A program's own fields and its courses in order: what the new and the edit forms both post. */
const ProgramFields = z.object({
  title: required('Program Name', 200),
  path: required('Program Path', 200),
  learningPath: required('Program Learning Path', 200),
  duration: required('Program Duration', 100),
  description: required('Program Description', 5000),
  price: z.preprocess(
    (v) => (v === undefined || v === null || v === '' ? undefined : typeof v === 'string' ? Number(v.trim()) : v),
    z
      .number({ required_error: 'Price is required field.', invalid_type_error: 'Price must be a number.' })
      .min(0, 'Price cannot be negative.')
      .max(1_000_000, 'Price must be under 1,000,000.')
      .multipleOf(0.01, 'Price can have at most two decimals.'),
  ),
  courses: z.preprocess(
    (v) => (v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? v : [v]),
    z
      .array(z.string().uuid('Please select a course.'))
      .min(1, 'Please select a course.')
      .max(100)
      .refine((ids) => new Set(ids).size === ids.length, 'Each course can be in the program once.'),
  ),
  /** on an edit, left out (or the current image) keeps the current image */
  programImage: fileRef('Please Upload the Image.').optional(),
})

export const NewProgramSchema = z.preprocess(oldNames, ProgramFields)
export type NewProgramInput = z.input<typeof NewProgramSchema>

/**
 * An edit: the same, and the reminders switch (the edit page's and the /api's), and (the /api's call) the
 * certificate settings, each left out to keep it.
 */
export const EditProgramSchema = z.preprocess(
  oldNames,
  ProgramFields.extend({ programId: uuid('Program not found.') })
    .merge(CertificateFields)
    .merge(ReminderSwitchField),
)
export type EditProgramInput = z.input<typeof EditProgramSchema>

/** PUT editProgramOrder/{programId}: every course of the program, each with its new place (0 first). */
export const ProgramOrderSchema = z.object({
  programId: uuid('Program not found.'),
  courses: ReorderSchema,
})
export type ProgramOrderInput = z.input<typeof ProgramOrderSchema>

/** A flag as JSON, a form or a query string sends it. */
const flag = z.preprocess(
  (v) => (v === 'true' || v === 'on' || v === '1' ? true : v === 'false' || v === '0' || v === '' ? false : v),
  z.boolean({ invalid_type_error: 'confirmUnassign is true or false.' }),
)

/** DELETE deleteProgram/{programId}: with learners assigned, only when confirmUnassign says to unassign them. */
export const DeleteProgramSchema = z.object({
  programId: uuid('Program not found.'),
  confirmUnassign: flag.default(false),
})
export type DeleteProgramInput = z.input<typeof DeleteProgramSchema>

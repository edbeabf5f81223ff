import { z } from 'zod'
import { fileRef } from '../content/schema.ts'

// The new-program form, with one message per field ("Price is required field."). The old client named the
// title `name` and the course `relatedCourse`; both spellings are accepted.

const required = (label: string, max = 2000) =>
  z
    .string({ required_error: `${label} is required field.`, invalid_type_error: `${label} is required field.` })
    .trim()
    .min(1, `${label} is required field.`)
    .max(max, `${label} must be at most ${max} characters.`)

export const NewProgramSchema = z.preprocess(
  (value) => {
    if (!value || typeof value !== 'object') return value
    const v = value as Record<string, unknown>
    return { ...v, title: v.title ?? v.name, courses: v.courses ?? v.relatedCourse }
  },
  z.object({
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
    programImage: fileRef('Please Upload the Image.').optional(),
  }),
)
export type NewProgramInput = z.input<typeof NewProgramSchema>

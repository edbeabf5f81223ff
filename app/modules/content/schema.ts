import { z } from 'zod'

// The old client's messages for videos, documents and scenarios, shared by the admin
// forms, the /api calls and the CLI. Form values arrive as strings; the /api sends JSON.

const TITLE_CHARACTERS = /^[\p{L}\p{N}\s.,:;!?'"()[\]{}&@#%+\-_/*=<>|~`$^’‘“”–—]+$/u

export const uuid = (message: string) =>
  z.string({ required_error: message, invalid_type_error: message }).trim().min(1, message).uuid(message)

export const required = (message: string, max = 5000) =>
  z
    .string({ required_error: message, invalid_type_error: message })
    .trim()
    .min(1, message)
    .max(max, `At most ${max} characters.`)

/**
 * A stored file named by the client: the old client sends `{ key, link, name }`, forms send that
 * as JSON in a hidden field, or just the key. Only the key is trusted; the service looks it up.
 */
export const fileRef = (message: string) =>
  z.preprocess(
    (value) => {
      if (typeof value === 'string') {
        const text = value.trim()
        if (text.startsWith('{')) {
          try {
            return (JSON.parse(text) as { key?: unknown }).key
          } catch {
            return ''
          }
        }
        return text
      }
      if (value && typeof value === 'object' && 'key' in value) return (value as { key: unknown }).key
      return value
    },
    z.string({ required_error: message, invalid_type_error: message }).min(1, message).max(250, message),
  )

function readFlag(value: unknown) {
  if (typeof value === 'boolean') return value
  if (value === 'true' || value === 'on' || value === 'yes' || value === '1') return true
  if (value === 'false' || value === 'off' || value === 'no' || value === '0') return false
  return value
}
const FLAG = z.boolean({ invalid_type_error: 'Must be true or false.' })

/** A checkbox, a switch's "true"/"false", or a JSON boolean. */
export const flag = (fallback: boolean) =>
  z.preprocess((value) => (value === undefined || value === null || value === '' ? fallback : readFlag(value)), FLAG)

/** The same, for an edit: left out means "keep what is stored", so it stays undefined. */
export const keptFlag = z.preprocess(
  (value) => (value === undefined || value === null || value === '' ? undefined : readFlag(value)),
  FLAG.optional(),
)

/** Seconds, from a number or a time like 12:30 or 1:02:03; empty means unknown. */
const durationSeconds = z.preprocess(
  (value) => {
    if (value === undefined || value === null || value === '') return null
    if (typeof value === 'number') return value
    if (typeof value === 'string') {
      const text = value.trim()
      if (/^\d+$/.test(text)) return Number(text)
      const match = /^(?:(\d{1,3}):)?([0-5]?\d):([0-5]\d)$/.exec(text)
      if (match) return Number(match[1] ?? 0) * 3600 + Number(match[2]) * 60 + Number(match[3])
    }
    return Number.NaN
  },
  z
    .number({ invalid_type_error: 'Duration must be a time like 12:30 or 1:02:03.' })
    .int('Duration must be whole seconds.')
    .min(1, 'Duration must be a time like 12:30 or 1:02:03.')
    .max(24 * 3600, 'Duration must be under 24 hours.')
    .nullable(),
)

/** Ids from a multi-select (repeated fields), a JSON list, or `[{ _id }]` objects. */
const idList = (message: string) =>
  z.preprocess(
    (value) => {
      if (value === undefined || value === null || value === '') return []
      const list = Array.isArray(value) ? value : [value]
      return list.map((item) =>
        item && typeof item === 'object' && '_id' in item ? (item as { _id: unknown })._id : item,
      )
    },
    z.array(z.string().uuid(message)).max(200),
  )

/** A place in a list: a whole number, or its digits; zod refuses anything else (Number() would throw on some). */
const orderId = (message: string) =>
  z.preprocess(
    (value) =>
      value === undefined || value === null || value === ''
        ? undefined
        : typeof value === 'string'
          ? /^\s*-?\d+\s*$/.test(value)
            ? Number(value)
            : Number.NaN
          : value,
    z
      .number({ required_error: message, invalid_type_error: message })
      .int('Order Id must be a whole number.')
      .min(0, 'Order Id cannot be negative.')
      .max(100_000, 'Order Id is too large.'),
  )

const videoTitle = (message: string) =>
  required(message, 200).regex(TITLE_CHARACTERS, 'Title can only contain alphabets, numbers, and special characters.')

export const NewVideoSchema = z.object({
  relatedCourse: uuid('Video Related Course is required field.'),
  title: videoTitle('Video Title is required.'),
  embedUrl: required('Embeded code is required.', 2000),
  description: required('Description is required.'),
  duration: durationSeconds.optional(),
  preview: flag(false),
  visibility: flag(true),
  prerequisiteVideos: idList('Prerequisite videos must be videos of this course.'),
})
export type NewVideoInput = z.input<typeof NewVideoSchema>

export const EditVideoSchema = z.object({
  courseId: uuid('Course is required.'),
  videoId: uuid('Video is required.'),
  title: videoTitle('Video Title is required field.'),
  embedUrl: required('Embeded code is required field.', 2000),
  description: required('Description is required field.'),
  duration: durationSeconds.optional(),
  orderId: orderId('Order Id must be a whole number.').optional(),
  preview: keptFlag,
  visibility: keptFlag,
  prerequisiteVideos: idList('Prerequisite videos must be videos of this course.'),
})
export type EditVideoInput = z.input<typeof EditVideoSchema>

export const DOCUMENT_TYPES = ['Document', 'Scenarios'] as const
export type DocumentType = (typeof DOCUMENT_TYPES)[number]

export const AddDocumentSchema = z.object({
  documentType: z.enum(DOCUMENT_TYPES, { message: 'Document type must be Document or Scenarios.' }).default('Document'),
  courseId: uuid('Please select a course'),
  document: fileRef('Please Upload a document'),
})
export type AddDocumentInput = z.input<typeof AddDocumentSchema>

/**
 * PUT editDocumentOrder/{documentId}: the old client's payload has no orderId; without one the place is kept,
 * and without a visibility the document stays shown or hidden as it was.
 */
export const EditDocumentSchema = z.object({
  documentId: uuid('Document is required.'),
  courseId: uuid('Please select a course'),
  document: fileRef('Please Upload a document').optional(),
  visibility: keptFlag,
  orderId: orderId('Order Id must be a whole number.').optional(),
})
export type EditDocumentInput = z.input<typeof EditDocumentSchema>
/** The Edit dialog asks for the position. */
export const EditDocumentFormSchema = EditDocumentSchema.extend({ orderId: orderId('Order Id is required field.') })

/** A new order: every item of the list with its zero-based position. */
export const ReorderSchema = z
  .array(
    z.object({
      _id: z.string({ required_error: 'Each item needs its _id.' }).uuid('Each item needs its _id.'),
      orderId: z.number({ required_error: 'Each item needs its orderId.' }).int().min(0).max(100_000),
    }),
    { invalid_type_error: 'Send the new order as a list of { _id, orderId }.' },
  )
  .min(1, 'Send the new order as a list of { _id, orderId }.')
  .max(1000, 'At most 1000 items can be ordered at once.')
export type ReorderInput = z.input<typeof ReorderSchema>

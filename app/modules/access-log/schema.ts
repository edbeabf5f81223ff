// date-fns by its own paths: its index (and `parse`, with every locale's parsers) costs a command
// hundreds of megabytes and seconds at start
import { isValid } from 'date-fns/isValid'
import { lightFormat } from 'date-fns/lightFormat'
import { parseISO } from 'date-fns/parseISO'
import { z } from 'zod'

// The access-log filter: courses, a start date and an end date, all optional. Dates come as the
// partner's client writes them (MM/dd/yyyy) or as date inputs send them (yyyy-MM-dd). `includeLabs` asks for
// the lab rows beside the video rows: the page and the exports always do; the /api answers them only when
// asked, since its old client reads every row as a video (ADR 037).

/** MM/dd/yyyy, read as the ISO day it names. */
const US_DAY = /^(\d{2})\/(\d{2})\/(\d{4})$/

/** A whole day as yyyy-MM-dd, or undefined when the text is no real day in either format. */
export function toDay(text: string): string | undefined {
  const value = text.trim().replace(US_DAY, '$3-$1-$2')
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined
  const date = parseISO(value)
  return isValid(date) ? lightFormat(date, 'yyyy-MM-dd') : undefined
}

const day = (label: string) =>
  z.preprocess(
    (v) => (v === '' || v === null ? undefined : v),
    z
      .string({ invalid_type_error: `${label} must be a date.` })
      // an ISO timestamp names its UTC day
      .transform((v, ctx) => toDay(/^\d{4}-\d{2}-\d{2}T/.test(v) ? v.slice(0, 10) : v) ?? invalidDay(ctx, label))
      .optional(),
  )

function invalidDay(ctx: z.RefinementCtx, label: string) {
  ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${label} must be a date.` })
  return z.NEVER
}

/** An IANA time zone name this runtime knows (Intl throws on any other). */
export function isTimeZone(name: string) {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name })
    return true
  } catch {
    return false
  }
}

export const TIME_ZONE_MESSAGE = 'Time zone must be an IANA name such as UTC or Europe/Berlin.'

export const AccessLogFilterSchema = z
  .object({
    startDate: day('Start date'),
    endDate: day('End date'),
    // where a day starts for the dates; the page and the /api use UTC, exports may choose
    timeZone: z.string().max(64).refine(isTimeZone, TIME_ZONE_MESSAGE).default('UTC'),
    courses: z.preprocess(
      (v) => (v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? v : [v]),
      z.array(z.string().uuid('Courses must be course ids.')).max(200),
    ),
    includeLabs: z
      .boolean({ invalid_type_error: 'Include labs must be true or false.' })
      .default(false)
      .describe('true: the lab rows too (one per learner and lab exercise attempted), and every row says its `kind`'),
  })
  .refine((f) => !f.startDate || !f.endDate || f.startDate <= f.endDate, {
    path: ['endDate'],
    message: 'End date must not be before the start date.',
  })
export type AccessLogFilter = z.output<typeof AccessLogFilterSchema>

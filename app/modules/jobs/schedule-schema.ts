import { z } from 'zod'
import { isTimeZone } from '../access-log/schema.ts'
import { destinationProblem } from '../files/destination-syntax.ts'
import { listLimit } from '../list-limit.ts'
import { cronProblem } from './cron-slots.ts'

// What every schedule of a job (scheduled exports, scheduled backups) is described by, on its page or with
// the portal CLI: its name, when it runs, and where it writes. Each area adds what its own runs need.

const text = (label: string, max: number) =>
  z
    .string({ required_error: `${label} is required.`, invalid_type_error: `${label} must be text.` })
    .trim()
    .min(1, `${label} is required.`)
    .max(max, `${label} must be at most ${max} characters.`)

/** A schedule's name and when it runs: its cron, read in its time zone. */
export const scheduleTiming = {
  // the name starts every file the schedule writes, so it is kept to what is safe in a file name
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
}

/** Where a schedule writes: an absolute folder or an S3 prefix, named in the examples as `what`. */
export const scheduleDestination = (what: 'exports' | 'backups') =>
  text('Destination', 1000).superRefine((v, ctx) => {
    const problem = destinationProblem(v, what)
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem })
  })

/** How many of the latest runs a list shows. */
export const RunHistorySchema = z.object({
  limit: listLimit(20),
})

import { z } from 'zod'
import { JOB_STATES, QUEUE_NAMES } from './queues.ts'

/** The jobs `portal jobs list` and the Jobs page ask for: a state, a queue, how many (newest first). */
export const JobListQuerySchema = z.object({
  state: z
    .enum(JOB_STATES, { errorMap: () => ({ message: `State must be one of ${JOB_STATES.join(', ')}.` }) })
    .optional(),
  queue: z
    .enum(QUEUE_NAMES, { errorMap: () => ({ message: `Queue must be one of ${QUEUE_NAMES.join(', ')}.` }) })
    .optional(),
  limit: z.coerce
    .number({ invalid_type_error: 'Limit must be a number.' })
    .int('Limit must be a whole number.')
    .min(1, 'Limit must be at least 1.')
    .max(1000, 'Limit must be at most 1000.')
    .default(50),
})
export type JobListQuery = z.input<typeof JobListQuerySchema>

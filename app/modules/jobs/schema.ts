import { z } from 'zod'
import { listLimit } from '../list-limit.ts'
import { JOB_STATES, QUEUE_NAMES } from './queues.ts'

/** The jobs `portal jobs list` and the Jobs page ask for: a state, a queue, how many (newest first). */
export const JobListQuerySchema = z.object({
  state: z
    .enum(JOB_STATES, { errorMap: () => ({ message: `State must be one of ${JOB_STATES.join(', ')}.` }) })
    .optional(),
  queue: z
    .enum(QUEUE_NAMES, { errorMap: () => ({ message: `Queue must be one of ${QUEUE_NAMES.join(', ')}.` }) })
    .optional(),
  limit: listLimit(50),
})

import { z } from 'zod'
import { listLimit } from '../list-limit.ts'

/**
 * What the queue sends. Each kind has a sender in queue.server.ts that builds the mail when it is sent:
 * an invitation to set a password, the news of a failed backup (its row names the run), and a reminder of
 * a due date (its row names the reminder recorded by the sweep).
 */
export type MailKind = 'invitation' | 'backup-failed' | 'reminder'

/**
 * cancelled: no longer needed when its turn came (an invited account that already has a password, a reminder
 * about an assignment completed meanwhile).
 */
export const MAIL_STATUSES = ['pending', 'sending', 'sent', 'failed', 'cancelled'] as const
export type MailStatus = (typeof MAIL_STATUSES)[number]

export const MailQueueQuerySchema = z.object({
  status: z
    .enum(MAIL_STATUSES, {
      errorMap: () => ({ message: `Status must be one of ${MAIL_STATUSES.join(', ')}.` }),
    })
    .optional(),
  limit: listLimit(50),
})

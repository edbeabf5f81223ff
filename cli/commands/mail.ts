import type { Command } from 'commander'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { mailQueueStatus, type MailQueueRow } from '#app/modules/mail/queue.server.ts'
import { MAIL_STATUSES } from '#app/modules/mail/schema.ts'
import { withDatabase } from '../database.ts'
import { textTable as table, usageOf } from '../output.ts'

// `portal mail …`: the mail queue, which the workers send (`portal jobs` shows and retries its jobs).
// Data (tables, JSON) goes to stdout, what happened to stderr; wrong input exits 2.

const when = (row: MailQueueRow) => (row.status === 'sent' ? (row.sentAt ?? '') : (row.claimedAt ?? ''))

export function registerMail(program: Command) {
  const mail = program.command('mail').description('mail sent later: the invitations of an import')

  mail
    .command('queue')
    .description('counts by status and the latest queued mails, newest first')
    .option('--status <status>', `only mails in this status: ${MAIL_STATUSES.join(', ')}`)
    .option('--limit <n>', 'how many mails to list (1 to 1000)', '50')
    .option('--json', 'print { counts, rows } as JSON')
    .action(async (options: { status?: string; limit: string; json?: boolean }) => {
      const status = await withDatabase(() =>
        mailQueueStatus(SYSTEM, { status: options.status, limit: options.limit }).catch(usageOf),
      )
      if (options.json) return console.log(JSON.stringify(status, null, 2))
      const { counts } = status
      console.log(table([MAIL_STATUSES.map((s) => s.toUpperCase()), MAIL_STATUSES.map((s) => String(counts[s]))]))
      if (!status.rows.length)
        return console.error(options.status ? `No ${options.status} mail.` : 'The queue is empty.')
      console.log(
        '\n' +
          table([
            ['CREATED', 'KIND', 'TO', 'STATUS', 'ATTEMPTS', 'SENT OR LAST TRIED', 'LAST ERROR'],
            ...status.rows.map((r) => [
              r.createdAt,
              r.kind,
              r.email,
              r.status,
              String(r.attempts),
              when(r),
              r.lastError ?? '',
            ]),
          ]),
      )
    })
}

import type { Command } from 'commander'
import { ZodError } from 'zod'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { mailQueueStatus, sendQueued, type MailQueueRow } from '#app/modules/mail/queue.server.ts'
import { MAIL_STATUSES } from '#app/modules/mail/schema.ts'
import { resetMailTransport } from '#app/modules/mail/service.server.ts'
import { disconnect } from '#db/client.ts'
import { UsageError, textTable as table } from '../output.ts'

// `portal mail …`: the mail queue. Data (tables, JSON) goes to stdout, what happened to stderr. A mail
// that could not be sent exits 1, wrong input exits 2.

function usage(error: unknown): never {
  if (!(error instanceof ZodError)) throw error
  throw new UsageError(error.issues.map((issue) => `--${String(issue.path[0])}: ${issue.message}`).join('\nportal: '))
}

async function disconnecting<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } finally {
    await disconnect()
  }
}

const when = (row: MailQueueRow) =>
  row.status === 'sent' ? (row.sentAt ?? '') : row.status === 'pending' ? row.nextAttemptAt : (row.claimedAt ?? '')

function positiveInteger(value: string | undefined, flag: string) {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag}: must be a whole number of at least 1.`)
  return n
}

export function registerMail(program: Command) {
  const mail = program.command('mail').description('mail sent later: the invitations of an import')

  mail
    .command('queue')
    .description('counts by status and the latest queued mails, newest first')
    .option('--status <status>', `only mails in this status: ${MAIL_STATUSES.join(', ')}`)
    .option('--limit <n>', 'how many mails to list (1 to 1000)', '50')
    .option('--json', 'print { counts, due, rows } as JSON')
    .action(async (options: { status?: string; limit: string; json?: boolean }) => {
      const status = await disconnecting(() =>
        mailQueueStatus(SYSTEM, { status: options.status, limit: options.limit }).catch(usage),
      )
      if (options.json) return console.log(JSON.stringify(status, null, 2))
      const { counts } = status
      console.log(
        table([
          [...MAIL_STATUSES.map((s) => s.toUpperCase()), 'DUE NOW'],
          [...MAIL_STATUSES.map((s) => String(counts[s])), String(status.due)],
        ]),
      )
      if (!status.rows.length)
        return console.error(options.status ? `No ${options.status} mail.` : 'The queue is empty.')
      console.log(
        '\n' +
          table([
            ['CREATED', 'KIND', 'TO', 'STATUS', 'ATTEMPTS', 'NEXT TRY, SENT OR CLAIMED', 'LAST ERROR'],
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

  mail
    .command('send-due')
    .description('send the queued mail that is due, within MAIL_RATE_PER_MINUTE, once, and exit (for cron or a timer)')
    .option('--limit <n>', 'send at most this many')
    .option('--json', 'print { sent, retrying, failed, cancelled, waiting, errors } as JSON')
    .action(async (options: { limit?: string; json?: boolean }) => {
      const limit = positiveInteger(options.limit, '--limit')
      // closing the transport ends a pooled one's open connections (SMTP_URL …?pool=true), which would
      // otherwise keep this process, meant to run and exit from cron, alive for good
      const result = await disconnecting(() => sendQueued({ limit }).finally(resetMailTransport))
      if (options.json) console.log(JSON.stringify(result, null, 2))
      const parts = [`${result.sent} sent`]
      if (result.cancelled) parts.push(`${result.cancelled} no longer needed`)
      if (result.retrying) parts.push(`${result.retrying} to retry later`)
      if (result.failed) parts.push(`${result.failed} failed for good`)
      parts.push(`${result.waiting} still due`)
      console.error(`Mail queue: ${parts.join(', ')}.`)
      for (const error of new Set(result.errors)) console.error(`  ${error}`)
      // a failure exits 1 through the one error path
      if (result.retrying || result.failed)
        throw new Error(`${result.retrying + result.failed} mail(s) could not be sent.`)
    })
}

import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { simpleParser, type ParsedMail } from 'mailparser'

// The mails the app wrote to $DATA_DIR/outbox (SMTP_URL is unset in tests). Some mails are sent
// after the answer (forgotPassword answers the same, at once, for known and unknown accounts), so
// tests wait for the mail they expect instead of sleeping and taking whatever is newest.

/** Every mail in the outbox, oldest first (the file names start with an ISO timestamp). */
export async function readOutbox(dataDir: string): Promise<ParsedMail[]> {
  const dir = path.join(dataDir, 'outbox')
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.eml')).sort()
  return Promise.all(files.map(async (file) => simpleParser(await readFile(path.join(dir, file)))))
}

const addressedTo = (mail: ParsedMail, address: string) => JSON.stringify(mail.to ?? '').includes(address)

/**
 * Waits until at least `count` mails to `to` (with a subject matching `subject`, when given) are in
 * the outbox, and returns the newest of them. Throws after `timeoutMs`.
 */
export async function waitForMail(
  dataDir: string,
  { to, subject, count = 1, timeoutMs = 10_000 }: { to: string; subject?: RegExp; count?: number; timeoutMs?: number },
): Promise<ParsedMail> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const matching = (await readOutbox(dataDir)).filter(
      (mail) => addressedTo(mail, to) && (!subject || subject.test(mail.subject ?? '')),
    )
    if (matching.length >= count) return matching.at(-1) as ParsedMail
    if (Date.now() > deadline) {
      throw new Error(`${matching.length} of ${count} mails to ${to}${subject ? ` matching ${subject}` : ''} arrived`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The token of a set-password or reset link in a mail's text. */
export const resetTokenIn = (mail: ParsedMail) => /\/reset-Password\/([A-Za-z0-9_-]+)/.exec(mail.text ?? '')?.[1] ?? ''

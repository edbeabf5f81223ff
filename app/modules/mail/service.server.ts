import { randomBytes } from 'node:crypto'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import nodemailer, { type Transporter } from 'nodemailer'
import { getEnv } from '#app/utils/env.server.ts'

// Mail goes through SMTP when SMTP_URL is set; otherwise each message is written to
// $DATA_DIR/outbox as an .eml file and its links are logged, so a developer can follow them.

type Mail = { to: string | string[]; subject: string; text: string; html: string; replyTo?: string }
type Sent = { messageId: string; file?: string }

let transporter: Transporter | undefined

function transport(): Transporter {
  const env = getEnv()
  transporter ??= env.SMTP_URL
    ? nodemailer.createTransport(env.SMTP_URL)
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  return transporter
}

/** Forget the transport (tests that change SMTP_URL). */
export function resetMailTransport() {
  transporter?.close()
  transporter = undefined
}

export async function sendMail(mail: Mail): Promise<Sent> {
  const env = getEnv()
  const info = await transport().sendMail({ from: env.MAIL_FROM, ...mail })
  if (env.SMTP_URL) return { messageId: info.messageId }

  const outbox = path.join(env.DATA_DIR, 'outbox')
  await mkdir(outbox, { recursive: true })
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const name = `${stamp}-${randomBytes(4).toString('hex')}.eml`
  const file = path.join(outbox, name)
  // written beside its name and renamed: whoever reads the outbox never finds half a mail
  const partial = path.join(outbox, `.${name}.partial`)
  await writeFile(partial, info.message as Buffer, { mode: 0o600 })
  await rename(partial, file)
  const links = mail.text.match(/https?:\/\/\S+/g) ?? []
  // a log line, on stderr: a CLI command that sends mail keeps its stdout for data
  console.error(`Mail to ${[mail.to].flat().join(', ')}: "${mail.subject}" saved to ${file}`)
  for (const link of links) console.error(`  link: ${link}`)
  return { messageId: info.messageId, file }
}

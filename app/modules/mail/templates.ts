import { PRODUCT_NAME } from '#app/utils/brand.ts'

// Every mail has a plain-text and an HTML part; what users typed is escaped in the HTML.

type Rendered = { subject: string; text: string; html: string }

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

function layout(title: string, body: string) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head>
<body style="font-family:Arial,Helvetica,sans-serif;color:#0f172a;background:#f8fafc;padding:24px">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border:1px solid #e2e8f0;border-radius:12px;padding:24px">
<p style="font-weight:bold;color:#1e3a8a;margin:0 0 16px">${escape(PRODUCT_NAME)}</p>
${body}
</div></body></html>`
}

const paragraphs = (text: string) =>
  text
    .split(/\n{2,}/)
    .map((p) => `<p style="white-space:pre-line;line-height:1.5">${escape(p)}</p>`)
    .join('\n')

export function contactMessage(input: { name: string; email: string; subject: string; message: string }): Rendered {
  const subject = `Contact form: ${input.subject}`
  const text = `${input.name} <${input.email}> wrote through the contact form of ${PRODUCT_NAME}:\n\n${input.message}\n\nReply to this mail to answer them.`
  const html = layout(
    subject,
    `<p><strong>${escape(input.name)}</strong> &lt;${escape(input.email)}&gt; wrote through the contact form:</p>
${paragraphs(input.message)}
<p style="color:#64748b;font-size:13px">Reply to this mail to answer them.</p>`,
  )
  return { subject, text, html }
}

/** A link to set or reset a password (reset, and the invitations of coaches and users). */
export function passwordLinkMessage(input: {
  kind: 'reset' | 'invite'
  firstName: string
  link: string
  expiresIn: string
}): Rendered {
  const invite = input.kind === 'invite'
  const subject = invite ? `Welcome to ${PRODUCT_NAME}: set your password` : `Reset your ${PRODUCT_NAME} password`
  const intro = invite
    ? `An account has been created for you on ${PRODUCT_NAME}. Choose your password to sign in.`
    : `We received a request to reset the password of your ${PRODUCT_NAME} account.`
  const outro = invite
    ? `The link works once and expires in ${input.expiresIn}.`
    : `The link works once and expires in ${input.expiresIn}. If you did not ask for it, ignore this mail: your password stays as it is.`
  const text = `Hello ${input.firstName},\n\n${intro}\n\n${input.link}\n\n${outro}\n`
  const html = layout(
    subject,
    `<p>Hello ${escape(input.firstName)},</p>
<p>${escape(intro)}</p>
<p><a href="${escape(input.link)}" style="display:inline-block;background:#2563eb;color:#ffffff;padding:10px 18px;border-radius:6px;text-decoration:none;font-weight:bold">${invite ? 'Set my password' : 'Reset my password'}</a></p>
<p style="font-size:13px;color:#64748b">Or open this address: ${escape(input.link)}</p>
<p style="font-size:13px;color:#64748b">${escape(outro)}</p>`,
  )
  return { subject, text, html }
}

/** A scheduled backup that failed, to each super admin: what failed, when and why, and where to look. */
export function backupFailedMessage(input: {
  schedule: string
  failedAt: string
  reason: string
  link: string
}): Rendered {
  const subject = `${PRODUCT_NAME}: the backup ${input.schedule} failed`
  const line = `The backup ${input.schedule} failed at ${input.failedAt}: ${input.reason}`
  const outro = 'Until a backup of this schedule succeeds, the dashboard says so too.'
  const text = `${line}\n\nSee its runs: ${input.link}\n\n${outro}\n`
  const html = layout(
    subject,
    `<p>${escape(line)}</p>
<p><a href="${escape(input.link)}" style="display:inline-block;background:#2563eb;color:#ffffff;padding:10px 18px;border-radius:6px;text-decoration:none;font-weight:bold">Open Backups</a></p>
<p style="font-size:13px;color:#64748b">Or open this address: ${escape(input.link)}</p>
<p style="font-size:13px;color:#64748b">${escape(outro)}</p>`,
  )
  return { subject, text, html }
}

/**
 * A reminder of a due date, to the learner: what is due and when (`dueWords` as My Courses says it, such as
 * "Due tomorrow" or "Overdue by 3 days"; `dueFully` with the time zone named), how far they are, where to
 * go on, and why they get it.
 */
export function reminderMessage(input: {
  firstName: string
  title: string
  kind: 'course' | 'program'
  dueWords: string
  dueFully: string
  progress: string[]
  link: string
  why: string
}): Rendered {
  const words = input.dueWords.charAt(0).toLowerCase() + input.dueWords.slice(1)
  const overdue = input.dueWords.startsWith('Overdue')
  const subject = overdue ? `${input.title} is ${words}` : `Reminder: ${input.title} is ${words}`
  const what = input.kind === 'course' ? 'The course' : 'The program'
  const line = `${what} ${input.title} ${overdue ? 'was' : 'is'} due ${input.dueFully}.`
  const button = input.kind === 'course' ? 'Open the course' : 'Open My Courses'
  const text = `Hello ${input.firstName},\n\n${line}\n\n${input.progress.join('\n')}\n\n${button}: ${input.link}\n\n${input.why}\n`
  const html = layout(
    subject,
    `<p>Hello ${escape(input.firstName)},</p>
<p>${escape(line)}</p>
<ul>${input.progress.map((p) => `<li>${escape(p)}</li>`).join('')}</ul>
<p><a href="${escape(input.link)}" style="display:inline-block;background:#2563eb;color:#ffffff;padding:10px 18px;border-radius:6px;text-decoration:none;font-weight:bold">${button}</a></p>
<p style="font-size:13px;color:#64748b">Or open this address: ${escape(input.link)}</p>
<p style="font-size:13px;color:#64748b">${escape(input.why)}</p>`,
  )
  return { subject, text, html }
}

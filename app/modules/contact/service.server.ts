import { db } from '#db/client.ts'
import { ROLE } from '../auth/roles.ts'
import { ServiceError } from '../errors.ts'
import { sendMail } from '../mail/service.server.ts'
import { contactMessage } from '../mail/templates.ts'
import { ContactSchema, type ContactInput } from './schema.ts'

// The contact form (/contact-Us) mails the admins, with the sender as Reply-To.

const WINDOW_MS = 15 * 60 * 1000
const PER_WINDOW = 5
const recent = new Map<string, number[]>()

/**
 * At most 5 messages per address in 15 minutes, kept in this process's memory: each web worker of each
 * instance counts apart (ADR 023).
 */
function throttle(ip: string) {
  const now = Date.now()
  const times = (recent.get(ip) ?? []).filter((t) => now - t < WINDOW_MS)
  if (times.length >= PER_WINDOW)
    throw new ServiceError(429, 'You have sent several messages in a short time; please try again in a few minutes.')
  times.push(now)
  recent.set(ip, times)
  if (recent.size > 10_000) recent.clear()
}

/** `address` is the client's network address; unknown addresses share one allowance. */
export async function sendContactMessage(
  input: ContactInput,
  sender: { address: string | undefined },
): Promise<{ delivered: boolean }> {
  const data = ContactSchema.parse(input)
  // a robot filled in the field people never see: thank it, send nothing
  if (data.website) return { delivered: false }
  throttle(sender.address ?? 'unknown')
  const { User } = await db()
  const admins = await User.findAll({ where: { roleId: [ROLE.superAdmin, ROLE.admin] }, attributes: ['email'] })
  if (admins.length === 0) throw new ServiceError(409, 'Nobody can receive messages yet; please try again later.')
  const mail = contactMessage(data)
  await sendMail({ to: admins.map((a) => a.email), replyTo: data.email, ...mail })
  return { delivered: true }
}

/** Tests start each case with a clean slate. */
export function resetContactThrottle() {
  recent.clear()
}

import { RateLimiterRes } from 'rate-limiter-flexible'
import { db } from '#db/client.ts'
import { rateLimiter } from '#db/rate-limits.ts'
import { ADMIN_ROLES } from '../auth/roles.ts'
import { ServiceError } from '../errors.ts'
import { sendMail } from '../mail/service.server.ts'
import { contactMessage } from '../mail/templates.ts'
import { ContactSchema, type ContactInput } from './schema.ts'

// The contact form (/contact-Us) mails the admins, with the sender as Reply-To.

const TOO_MANY_MESSAGES = 'You have sent several messages in a short time; please try again in a few minutes.'

/** At most 5 messages per address in 15 minutes, counted in PostgreSQL: the same for every worker and instance. */
const messagesPerAddress = () => rateLimiter({ keyPrefix: 'contact-messages', points: 5, duration: 15 * 60 })

async function throttle(address: string) {
  try {
    await (await messagesPerAddress()).consume(address)
  } catch (refusal) {
    // the library refuses with its result (how long to wait); anything else is a fault
    if (refusal instanceof RateLimiterRes) throw new ServiceError(429, TOO_MANY_MESSAGES)
    throw refusal
  }
}

/** `address` is the client's network address; unknown addresses share one allowance. */
export async function sendContactMessage(
  input: ContactInput,
  sender: { address: string | undefined },
): Promise<{ delivered: boolean }> {
  const data = ContactSchema.parse(input)
  // a robot filled in the field people never see: thank it, send nothing
  if (data.website) return { delivered: false }
  await throttle(sender.address ?? 'unknown')
  const { User } = await db()
  const admins = await User.findAll({ where: { roleId: [...ADMIN_ROLES] }, attributes: ['email'] })
  if (admins.length === 0) throw new ServiceError(409, 'Nobody can receive messages yet; please try again later.')
  const mail = contactMessage(data)
  await sendMail({ to: admins.map((a) => a.email), replyTo: data.email, ...mail })
  return { delivered: true }
}

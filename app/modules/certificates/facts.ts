import { randomBytes } from 'node:crypto'

// What a certificate states, once, for every form it takes: the PDF, the public verify page and the signed
// Open Badges credential all draw from these facts, copied when the certificate is issued (a learner renamed
// later, or a course retitled, does not change a certificate already given).

export type CertificateKind = 'course' | 'program'

export type CertificateFacts = {
  /** the certificate's own id (a UUID); the credential's subject is named by it, never by the learner's id */
  id: string
  /** the canonical code: CODE_LENGTH characters of Crockford's base32, upper case, no separators */
  code: string
  kind: CertificateKind
  /** the course's or program's id */
  subjectId: string
  /** the course's or program's title when it was issued */
  title: string
  /** the course's or program's description when it was issued ('' when it had none) */
  description: string
  /** the learner's name when it was issued */
  learnerName: string
  /** the learner's email when it was issued: the credential holds only its salted hash */
  learnerEmail: string
  issuedAt: Date
  /** the contents' total duration, in minutes */
  minutes: number
  /** who issues it, as the course's or program's certificate settings name it */
  issuerName: string
  /** the certificate's place in the revocation list (0, 1, 2 … in issue order) */
  statusIndex: number
}

// Crockford's base32: no I, L, O or U, so a code read aloud or typed by hand has no look-alikes; reading
// a typed code forgives case, separators and the look-alikes it left out.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
/** 26 characters of 5 bits: 130 random bits */
export const CODE_LENGTH = 26
const GROUP = 4

/** A new random code, canonical form. */
export function newCertificateCode(): string {
  const bytes = randomBytes(CODE_LENGTH)
  let code = ''
  for (const byte of bytes) code += ALPHABET[byte & 31]
  return code
}

/** The code as people read it: groups of four joined by hyphens (7KQ2-M9XD-…). */
export function groupedCode(code: string): string {
  return code.match(new RegExp(`.{1,${GROUP}}`, 'g'))!.join('-')
}

/** A code as typed (any case, spaces or hyphens, O for 0, I or L for 1) in canonical form; undefined when it cannot be one. */
export function canonicalCode(typed: string): string | undefined {
  const code = typed
    .toUpperCase()
    .replace(/[\s-]+/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1')
  if (code.length !== CODE_LENGTH) return undefined
  for (const char of code) if (!ALPHABET.includes(char)) return undefined
  return code
}

/** The public page that says whether a certificate is valid. */
export const verifyUrl = (publicUrl: string, code: string) => `${publicUrl}/verify/${groupedCode(code)}`

/** Hours as a certificate states them: to a tenth, never 0 for a course with any content. */
export const certificateHours = (minutes: number) => Math.max(minutes > 0 ? 0.1 : 0, Math.round(minutes / 6) / 10)

/** The hours as words: "1.5 hours", "1 hour". */
export function hoursText(minutes: number): string {
  const hours = certificateHours(minutes)
  return `${hours.toLocaleString('en-US', { maximumFractionDigits: 1 })} ${hours === 1 ? 'hour' : 'hours'}`
}

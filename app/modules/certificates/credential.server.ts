import { createHash, createHmac } from 'node:crypto'
import { promisify } from 'node:util'
import { gunzipSync, gzip } from 'node:zlib'
import {
  createLocalJWKSet,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  SignJWT,
  type JSONWebKeySet,
  type JWTPayload,
} from 'jose'
import { hoursText, verifyUrl, type CertificateFacts } from './facts.ts'
import type { SigningKey } from './keys.server.ts'

// A certificate as an Open Badges 3.0 OpenBadgeCredential (a W3C Verifiable Credential 2.0), signed as a
// VC-JWT as Open Badges 3.0 defines it: what a learner puts in a wallet, and what anyone can check without the
// portal's say-so beyond its published keys and its revocation list.

const VC_CONTEXT = 'https://www.w3.org/ns/credentials/v2'
const OB_CONTEXT = 'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json'
/** The schema a credential declares it follows; a copy is kept beside this module (schema/SOURCE.md). */
const OB_SCHEMA = 'https://purl.imsglobal.org/spec/ob/v3p0/schema/json/ob_v3p0_achievementcredential_schema.json'

type Profile = { id: string; type: ['Profile']; name: string; url: string }

type IdentityObject = {
  type: 'IdentityObject'
  identityType: 'emailAddress'
  hashed: true
  identityHash: string
  salt: string
}

type CredentialStatus = {
  id: string
  type: 'BitstringStatusListEntry'
  statusPurpose: 'revocation'
  statusListIndex: string
  statusListCredential: string
}

export type OpenBadgeCredential = {
  '@context': [typeof VC_CONTEXT, typeof OB_CONTEXT]
  id: string
  type: ['VerifiableCredential', 'OpenBadgeCredential']
  name: string
  description: string
  issuer: Profile
  validFrom: string
  credentialSubject: {
    id: string
    type: ['AchievementSubject']
    identifier: [IdentityObject]
    achievement: {
      id: string
      type: ['Achievement']
      achievementType: 'Certificate'
      name: string
      description: string
      criteria: { narrative: string }
    }
  }
  credentialSchema: [{ id: typeof OB_SCHEMA; type: '1EdTechJsonSchemaValidator2019' }]
  credentialStatus: CredentialStatus
}

const issuerId = (publicUrl: string) => `${publicUrl}/issuer`
const statusListUrl = (publicUrl: string) => `${publicUrl}/issuer/status/1`

/** The portal as an issuer (GET /issuer): the Profile every credential names. */
export const issuerProfile = (publicUrl: string, name: string): Profile => ({
  id: issuerId(publicUrl),
  type: ['Profile'],
  name,
  url: publicUrl,
})

/** Whole seconds: a JWT's NumericDate and validFrom then say the same instant. */
const isoSeconds = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z')

/**
 * The salt of a certificate's hashed email, derived from the certificate's id so one certificate always yields
 * the same credential and two certificates of one learner hash the email differently; derived with a secret,
 * so it cannot be worked out from the id alone to hash guessed emails before a credential is seen.
 */
const saltOf = (secret: string, certificateId: string) =>
  createHmac('sha256', secret).update(certificateId).digest().subarray(0, 16).toString('base64url')

/** Open Badges' IdentityHash: the algorithm, "$", and the hex SHA-256 of the identity followed by its salt. */
const identityHash = (email: string, salt: string) =>
  `sha256$${createHash('sha256')
    .update(email.trim().toLowerCase() + salt, 'utf8')
    .digest('hex')}`

const criteria = (facts: CertificateFacts) =>
  facts.kind === 'course'
    ? `Watch every visible video of the course “${facts.title}” to the end and pass every visible lab.`
    : `Complete every course of the program “${facts.title}”: in each, watch every visible video to the end and pass every visible lab.`

/**
 * The credential of a certificate. No learner's name or email in clear: the subject is named by the
 * certificate's own id, and the email only as a salted hash, which whoever is shown the credential can check
 * against the email they were given. `saltSecret` must not change, or the same certificate yields a new hash.
 */
export function buildCredential(
  facts: CertificateFacts,
  issuer: { publicUrl: string },
  saltSecret: string,
): OpenBadgeCredential {
  const { publicUrl } = issuer
  const salt = saltOf(saltSecret, facts.id)
  return {
    '@context': [VC_CONTEXT, OB_CONTEXT],
    id: verifyUrl(publicUrl, facts.code),
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    name: facts.title,
    // Open Badges has no field for a course's length: creditsAvailable counts academic credit hours, which
    // hours of videos and labs are not, so the length is said in words.
    description: `Certificate of completion of the ${facts.kind} “${facts.title}” (${hoursText(facts.minutes)}), issued by ${facts.issuerName}.`,
    issuer: issuerProfile(publicUrl, facts.issuerName),
    validFrom: isoSeconds(facts.issuedAt),
    credentialSubject: {
      id: `urn:uuid:${facts.id}`,
      type: ['AchievementSubject'],
      identifier: [
        {
          type: 'IdentityObject',
          identityType: 'emailAddress',
          hashed: true,
          identityHash: identityHash(facts.learnerEmail, salt),
          salt,
        },
      ],
      achievement: {
        id: `${issuerId(publicUrl)}/achievements/${facts.kind}/${facts.subjectId}`,
        type: ['Achievement'],
        achievementType: 'Certificate',
        name: facts.title,
        description: facts.description.trim() || `Completed the ${facts.kind} “${facts.title}”.`,
        criteria: { narrative: criteria(facts) },
      },
    },
    credentialSchema: [{ id: OB_SCHEMA, type: '1EdTechJsonSchemaValidator2019' }],
    credentialStatus: {
      id: `${statusListUrl(publicUrl)}#${facts.statusIndex}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: String(facts.statusIndex),
      statusListCredential: statusListUrl(publicUrl),
    },
  }
}

// ---- VC-JWT ----

/** What signing needs of a credential: the claims a VC-JWT repeats from it. */
type SignableCredential = {
  id: string
  issuer: string | { id: string }
  validFrom: string
  credentialSubject: { id: string }
}

/**
 * Where a key is published as a bare JWK. Open Badges 3.0 wants the header's kid to be a URI that
 * dereferences to the key; its last segment is the key's thumbprint, which is how the key set names it.
 */
const keyUrl = (issuer: string, kid: string) => `${issuer}/keys/${kid}`
/** A key's id as credentials' headers name it and the published key set lists it: its URL under the issuer. */
export const publishedKeyId = (publicUrl: string, thumbprint: string) => keyUrl(issuerId(publicUrl), thumbprint)
const thumbprintOf = (kidUrl: string) => kidUrl.slice(kidUrl.lastIndexOf('/') + 1)

/**
 * A credential as a compact JWS: the credential's own properties as the payload, plus iss, jti, sub and nbf
 * taken from it. The header holds alg, kid and typ "JWT" only: Open Badges 3.0 allows no other JOSE header
 * (so no cty, nor VC-JOSE-COSE's "vc+jwt").
 */
export async function signCredential(credential: SignableCredential, key: SigningKey): Promise<string> {
  const issuer = typeof credential.issuer === 'string' ? credential.issuer : credential.issuer.id
  return new SignJWT({ ...credential } as JWTPayload)
    .setProtectedHeader({ alg: 'RS256', kid: keyUrl(issuer, key.kid), typ: 'JWT' })
    .setIssuer(issuer)
    .setJti(credential.id)
    .setSubject(credential.credentialSubject.id)
    .setNotBefore(Math.floor(Date.parse(credential.validFrom) / 1000))
    .sign(key.privateKey)
}

const JWT_CLAIMS = ['iss', 'jti', 'sub', 'nbf', 'exp', 'iat', 'aud'] as const

type Verified =
  | { result: 'valid'; credential: Record<string, unknown> & SignableCredential }
  | { result: 'tampered' | 'unknown-key' | 'malformed'; reason: string }

/** Three base64url parts joined by dots, the last (the signature) perhaps empty: what a compact JWS looks like. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

const tampered = (reason: string) => ({ result: 'tampered' as const, reason })

/**
 * Checks a VC-JWT against the keys the portal has signed with: the signature, and that its claims say what
 * the credential inside says. Text not shaped like a compact JWS is `malformed`; one shaped like it that does
 * not verify (a header or payload that does not read, another algorithm, no key named, a signature that does
 * not match, claims that contradict the credential) is `tampered`; one naming a key the portal never used is
 * `unknown-key`. Whether the certificate is known or revoked is for the caller to look up.
 */
export async function verifyCredentialJwt(jwt: string, keys: JSONWebKeySet): Promise<Verified> {
  if (!COMPACT_JWS.test(jwt))
    return {
      result: 'malformed',
      reason: 'This is not a signed credential (a compact JWS: three parts joined by dots).',
    }
  let kid: unknown
  try {
    kid = decodeProtectedHeader(jwt).kid
  } catch {
    return tampered('Its header cannot be read.')
  }
  if (typeof kid !== 'string' || kid === '') return tampered('Its header does not name the key that signed it.')
  const local = createLocalJWKSet(keys)
  let payload: JWTPayload
  try {
    const verified = await jwtVerify(jwt, (header, token) => local({ ...header, kid: thumbprintOf(kid) }, token), {
      algorithms: ['RS256'],
      // servers' clocks differ by a little: a credential just issued elsewhere is not "not yet valid"
      clockTolerance: 60,
    })
    payload = verified.payload
  } catch (error) {
    if (error instanceof joseErrors.JWKSNoMatchingKey)
      return { result: 'unknown-key', reason: 'It was signed by a key this portal never used.' }
    if (error instanceof joseErrors.JWSSignatureVerificationFailed)
      return tampered('Its signature does not match its contents.')
    if (error instanceof joseErrors.JOSEAlgNotAllowed)
      return tampered('It is not signed with RS256, the algorithm the portal signs with.')
    if (error instanceof joseErrors.JWTClaimValidationFailed)
      return tampered(`Its ${error.claim} claim is not valid: ${error.message}`)
    return tampered(
      `It does not read as a signed credential: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  const credential: Record<string, unknown> = { ...payload }
  for (const claim of JWT_CLAIMS) delete credential[claim]
  const disagreement = claimsDisagreement(payload, credential)
  if (disagreement) return tampered(disagreement)
  return { result: 'valid', credential: credential as Record<string, unknown> & SignableCredential }
}

/** Why the JWT's claims and the credential they wrap disagree, or undefined when they agree. */
function claimsDisagreement(payload: JWTPayload, credential: Record<string, unknown>): string | undefined {
  const issuer = credential.issuer
  const issuerOf = typeof issuer === 'string' ? issuer : (issuer as { id?: unknown } | undefined)?.id
  const subject = (credential.credentialSubject as { id?: unknown } | undefined)?.id
  const types = credential.type
  if (!Array.isArray(types) || !types.includes('VerifiableCredential')) return 'It is not a verifiable credential.'
  if (typeof credential.id !== 'string' || payload.jti !== credential.id) return 'Its jti is not its id.'
  if (typeof issuerOf !== 'string' || payload.iss !== issuerOf) return 'Its iss is not its issuer.'
  if (typeof subject !== 'string' || payload.sub !== subject) return 'Its sub is not its subject.'
  const validFrom = typeof credential.validFrom === 'string' ? Date.parse(credential.validFrom) : NaN
  if (Number.isNaN(validFrom) || payload.nbf !== Math.floor(validFrom / 1000)) return 'Its nbf is not its validFrom.'
  return undefined
}

// ---- revocation: W3C Bitstring Status List v1.0 ----

/** The Bitstring Status List minimum: 16 KiB of bits, so one certificate's bit hides among many. */
const MIN_STATUS_BITS = 131_072

/** The bitstring, its first index the left-most (most significant) bit of the first byte, gzipped, as multibase base64url. */
async function encodeStatusList(revokedIndexes: number[]): Promise<string> {
  const highest = revokedIndexes.reduce((max, index) => Math.max(max, index), -1)
  const bytes = Buffer.alloc(Math.max(MIN_STATUS_BITS / 8, Math.ceil((highest + 1) / 8)))
  for (const index of revokedIndexes) {
    if (!Number.isInteger(index) || index < 0) throw new RangeError(`No status list index ${index}.`)
    bytes[index >> 3] |= 0x80 >> (index & 7)
  }
  return `u${(await promisify(gzip)(bytes)).toString('base64url')}`
}

/** The bits of an encodedList (multibase "u" + base64url of the gzipped bitstring). */
export function decodeStatusList(encodedList: string): Buffer {
  if (!encodedList.startsWith('u')) throw new Error('An encodedList is multibase base64url: it starts with "u".')
  return gunzipSync(Buffer.from(encodedList.slice(1), 'base64url'))
}

/** Whether a status list marks an index: for a revocation list, whether that certificate is revoked. */
export function isRevokedInStatusList(encodedList: string, index: number): boolean {
  const bytes = decodeStatusList(encodedList)
  if (!Number.isInteger(index) || index < 0 || index >= bytes.length * 8)
    throw new RangeError(`Index ${index} is outside the status list.`)
  return (bytes[index >> 3] & (0x80 >> (index & 7))) !== 0
}

/** The signed revocation list (a BitstringStatusListCredential as a VC-JWT) every credential points to. */
export async function statusListCredential(
  revokedIndexes: number[],
  issuer: { publicUrl: string },
  key: SigningKey,
  at: Date = new Date(),
): Promise<string> {
  const url = statusListUrl(issuer.publicUrl)
  return signCredential(
    {
      '@context': [VC_CONTEXT],
      id: url,
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: issuerId(issuer.publicUrl),
      validFrom: isoSeconds(at),
      credentialSubject: {
        id: `${url}#list`,
        type: 'BitstringStatusList',
        statusPurpose: 'revocation',
        encodedList: await encodeStatusList(revokedIndexes),
      },
    } as SignableCredential,
    key,
  )
}

import { decodeJwt } from 'jose'
import { RateLimiterRes } from 'rate-limiter-flexible'
import { getEnv } from '#app/utils/env.server.ts'
import { mapRows, pipeQuery, select, transaction, type RowStream } from '#db/client.ts'
import { rateLimiter } from '#db/rate-limits.ts'
import { can, requirePermission } from '../auth/permissions.ts'
import type { Actor } from '../auth/roles.ts'
import { conflict, invalid, notFound, ServiceError } from '../errors.ts'
import { storage } from '../files/storage.server.ts'
import { verifyCredentialJwt } from './credential.server.ts'
import { canonicalCode, groupedCode, verifyUrl, type CertificateKind } from './facts.ts'
import { candidatesFor, issueTo, type Candidate } from './issue.server.ts'
import { renderCertificatePdf } from './pdf.server.ts'
import { BackfillSchema, CertificateFilterSchema, CertificateListQuerySchema, RevokeSchema } from './schema.ts'
import { publishedKeySet } from './signing.server.ts'

// What people see of certificates and do with them. Learners read their own (My Certificates); the admin
// side reads everyone's, and admins revoke, re-issue and backfill. Anyone, signed in or not, may ask
// whether a code is a valid certificate: the verify page shows what the certificate states and its state,
// never the learner's email or why it was revoked.

type CertificateState = 'valid' | 'revoked'

/** A certificate as its holder and the admin side see it. */
export type CertificateView = {
  id: string
  /** grouped, as people read it */
  code: string
  kind: CertificateKind
  /** the course or program, while it exists */
  subjectId: string | null
  title: string
  userId: string
  learnerName: string
  issuerName: string
  issuedAt: string
  minutes: number
  state: CertificateState
  revokedAt: string | null
  revokedReason: string | null
  verifyUrl: string
  pdfUrl: string
}

/** What the public verify page shows. */
type PublicCertificate = Omit<CertificateView, 'id' | 'userId' | 'subjectId' | 'revokedReason' | 'pdfUrl'>

type CertificateRow = {
  id: string
  code: string
  kind: CertificateKind
  course_id: string | null
  program_id: string | null
  title: string
  description: string
  user_id: string
  learner_name: string
  issuer_name: string
  issued_at: Date
  minutes: number
  revoked_at: Date | null
  revoked_reason: string | null
}

const COLUMNS = `c.id, c.code, c.kind, c.course_id, c.program_id, c.title, c.description, c.user_id, c.learner_name,
  c.issuer_name, c.issued_at, c.minutes, c.revoked_at, c.revoked_reason`

/** Where a certificate's PDF is downloaded (its holder and the admin side). */
const pdfPath = (code: string) => `/certificates/${groupedCode(code)}/pdf`

function toView(row: CertificateRow): CertificateView {
  const { PUBLIC_URL } = getEnv()
  return {
    id: row.id,
    code: groupedCode(row.code),
    kind: row.kind,
    subjectId: row.course_id ?? row.program_id,
    title: row.title,
    userId: row.user_id,
    learnerName: row.learner_name,
    issuerName: row.issuer_name,
    issuedAt: new Date(row.issued_at).toISOString(),
    minutes: row.minutes,
    state: row.revoked_at ? 'revoked' : 'valid',
    revokedAt: row.revoked_at ? new Date(row.revoked_at).toISOString() : null,
    revokedReason: row.revoked_reason,
    verifyUrl: verifyUrl(PUBLIC_URL, row.code),
    pdfUrl: `${PUBLIC_URL}${pdfPath(row.code)}`,
  }
}

/**
 * Certificates, newest first. A learner's list is their own whatever they ask; the admin side's is
 * everyone's, narrowed by learner, course, program, state or a search of name, title and code.
 */
export async function listCertificates(actor: Actor, input: unknown = {}): Promise<CertificateView[]> {
  const query = CertificateListQuerySchema.parse(input)
  let userId = query.userId ?? null
  if (!can(actor, 'read:certificates')) {
    requirePermission(actor, 'read:certificates:own')
    // a learner asking for someone else's is refused, not quietly shown their own
    if (userId !== null && userId !== actor.id) requirePermission(actor, 'read:certificates')
    userId = actor.id
  }
  const code = query.q ? canonicalCode(query.q) : undefined
  const rows = await select<CertificateRow>(
    `SELECT ${COLUMNS} FROM certificates c
      WHERE ($1::uuid IS NULL OR c.user_id = $1)
        AND ($2::uuid IS NULL OR c.course_id = $2)
        AND ($3::uuid IS NULL OR c.program_id = $3)
        AND ($4::text IS NULL OR ($4 = 'valid') = (c.revoked_at IS NULL))
        AND ($5::text IS NULL OR c.learner_name ILIKE $5 OR c.title ILIKE $5 OR c.code = $6)
      ORDER BY c.issued_at DESC, c.id
      LIMIT $7`,
    [
      userId,
      query.courseId ?? null,
      query.programId ?? null,
      query.state ?? null,
      query.q ? `%${query.q.replace(/[\\%_]/g, '\\$&')}%` : null,
      code ?? null,
      query.limit,
    ],
  )
  return rows.map(toView)
}

async function rowByCode(typed: string): Promise<CertificateRow | undefined> {
  const code = canonicalCode(typed)
  if (!code) return undefined
  const [row] = await select<CertificateRow>(`SELECT ${COLUMNS} FROM certificates c WHERE c.code = $1`, [code])
  return row
}

const NO_SUCH_CERTIFICATE = 'No certificate has this code.'

/**
 * Codes that name no certificate, per client address: 30 in 15 minutes, counted in PostgreSQL for every
 * worker and instance. A code that names one costs nothing (employers and link previews open real links),
 * so an address past its allowance still sees real certificates; only its guessing stops.
 */
const missesPerAddress = () => rateLimiter({ keyPrefix: 'certificate-misses', points: 30, duration: 15 * 60 })

const TOO_MANY_MISSES = 'Too many codes that name no certificate came from your address; try again in a few minutes.'

/**
 * The verify page's answer: what the certificate states and whether it is valid. Anyone may ask; a code
 * that names none counts against the asker's address (`address`, unknown ones share one allowance).
 */
export async function publicCertificate(
  typedCode: string,
  asker: { address?: string } = {},
): Promise<PublicCertificate> {
  const row = await rowByCode(typedCode)
  if (!row) {
    try {
      await (await missesPerAddress()).consume(asker.address ?? 'unknown')
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes)
        throw new ServiceError(429, TOO_MANY_MISSES, undefined, {
          retryAfterSeconds: Math.ceil(refusal.msBeforeNext / 1000),
        })
      throw refusal
    }
    throw notFound(NO_SUCH_CERTIFICATE)
  }
  const { id: _id, userId: _u, subjectId: _s, revokedReason: _r, pdfUrl: _p, ...shown } = toView(row)
  return shown
}

/** One certificate for its holder or the admin side (its PDF, its credential); 404 for anyone else. */
export async function certificateFor(
  actor: Actor,
  typedCode: string,
): Promise<CertificateView & { description: string; credential: string; signatureKey: string | null }> {
  const row = await rowByCode(typedCode)
  const mine = row && actor.id === row.user_id && can(actor, 'read:certificates:own')
  if (!row || !(mine || can(actor, 'read:certificates'))) throw notFound(NO_SUCH_CERTIFICATE)
  // the signature it was issued with, not its course's or program's as it is now
  const [extra] = await select<{ credential: string; signature_key: string | null }>(
    `SELECT c.credential, c.signature_key FROM certificates c WHERE c.id = $1`,
    [row.id],
  )
  return {
    ...toView(row),
    description: row.description,
    credential: extra.credential,
    signatureKey: extra.signature_key,
  }
}

/** Revoke a valid certificate, with the reason kept for the admin side. */
export async function revokeCertificate(actor: Actor, typedCode: string, input: unknown): Promise<CertificateView> {
  requirePermission(actor, 'manage:certificates')
  const { reason } = RevokeSchema.parse(input)
  const code = canonicalCode(typedCode)
  if (!code) throw notFound(NO_SUCH_CERTIFICATE)
  const [row] = await select<CertificateRow>(
    `UPDATE certificates c SET revoked_at = now(), revoked_reason = $2, revoked_by = $3
      WHERE c.code = $1 AND c.revoked_at IS NULL RETURNING ${COLUMNS}`,
    [code, reason, actor.id],
  )
  if (row) return toView(row)
  if (await rowByCode(code)) throw conflict('This certificate is revoked already.')
  throw notFound(NO_SUCH_CERTIFICATE)
}

/**
 * Re-issue: a new certificate stating the learner's name as it is now (and the course's or program's
 * title and issuer), and the old one revoked as replaced by it, in one transaction. Completion is not asked
 * again: the admin vouches for it, as for the old one.
 */
export async function reissueCertificate(actor: Actor, typedCode: string): Promise<CertificateView> {
  requirePermission(actor, 'manage:certificates')
  const old = await rowByCode(typedCode)
  if (!old) throw notFound(NO_SUCH_CERTIFICATE)
  const subjectId = old.course_id ?? old.program_id
  if (!subjectId) throw conflict(`The ${old.kind} of this certificate was deleted: it cannot be re-issued.`)
  return transaction(async (tx) => {
    const [candidate] = await select<Candidate>(
      `SELECT $1::text AS kind, s.id AS subject_id, u.id AS user_id,
              btrim(u.first_name || ' ' || u.last_name) AS learner_name, u.email, s.title, s.description,
              CASE WHEN btrim(s.certificate_issuer) <> '' THEN s.certificate_issuer ELSE $4 END AS issuer_name,
              CASE WHEN btrim(s.certificate_issuer) <> '' THEN s.certificate_signature_key
                   ELSE (SELECT signature_key FROM certificates WHERE id = $6) END AS signature_key,
              $5::integer AS minutes
         FROM users u,
              (SELECT id, title, description, certificate_issuer, certificate_signature_key
                 FROM courses WHERE $1 = 'course' AND id = $2
               UNION ALL
               SELECT id, title, description, certificate_issuer, certificate_signature_key
                 FROM programs WHERE $1 = 'program' AND id = $2) s
        WHERE u.id = $3`,
      [old.kind, subjectId, old.user_id, old.issuer_name, old.minutes, old.id],
      tx,
    )
    if (!candidate) throw conflict(`The ${old.kind} of this certificate was deleted: it cannot be re-issued.`)
    await select(
      `UPDATE certificates SET revoked_at = COALESCE(revoked_at, now()),
              revoked_reason = COALESCE(revoked_reason, 'Re-issued.'), revoked_by = COALESCE(revoked_by, $2)
        WHERE id = $1 RETURNING id`,
      [old.id, actor.id],
      tx,
    )
    const [given] = await issueTo([candidate], tx, actor.id)
    if (!given) throw conflict('The learner holds another valid certificate for this; revoke it first.')
    await select(
      `UPDATE certificates SET revoked_reason = $2 WHERE id = $1 AND revoked_reason = 'Re-issued.' RETURNING id`,
      [old.id, `Re-issued as ${groupedCode(given.code)}.`],
      tx,
    )
    const [row] = await select<CertificateRow>(`SELECT ${COLUMNS} FROM certificates c WHERE c.id = $1`, [given.id], tx)
    return toView(row)
  })
}

/** A certificate as the Certificates page and its export show it: with the learner's email and name as they are now. */
export type StaffCertificateView = CertificateView & {
  learnerEmail: string
  /** the learner's name now: not the one the certificate states after a rename (a reason to re-issue) */
  currentName: string
}

type StaffRow = CertificateRow & { email: string; current_name: string }

const CURRENT_NAME = `btrim(u.first_name || ' ' || u.last_name)`
const STAFF_FROM = `FROM certificates c JOIN users u ON u.id = c.user_id`
const STAFF_COLUMNS = `${COLUMNS}, u.email, ${CURRENT_NAME} AS current_name`

const toStaffView = (row: StaffRow): StaffCertificateView => ({
  ...toView(row),
  learnerEmail: row.email,
  currentName: row.current_name,
})

/**
 * The Certificates page's filter (and its export's) as a WHERE clause with its values ($1 to $6): by learner,
 * course, program and state, and a search of the learner's name (as issued, or as it is now), email and the
 * title, in part and in any case, or of the code, typed in any grouping and case. The admin side only: a
 * learner is refused, not quietly shown their own.
 */
function staffFilter(actor: Actor, input: unknown): { where: string; values: unknown[] } {
  requirePermission(actor, 'read:certificates')
  const filter = CertificateFilterSchema.parse(input)
  const q = filter.q || null
  return {
    where: `($1::uuid IS NULL OR c.user_id = $1)
        AND ($2::uuid IS NULL OR c.course_id = $2)
        AND ($3::uuid IS NULL OR c.program_id = $3)
        AND ($4::text IS NULL OR ($4 = 'valid') = (c.revoked_at IS NULL))
        AND ($5::text IS NULL OR c.learner_name ILIKE $5 OR ${CURRENT_NAME} ILIKE $5 OR u.email ILIKE $5
             OR c.title ILIKE $5 OR c.code = $6::text)`,
    values: [
      filter.userId ?? null,
      filter.courseId ?? null,
      filter.programId ?? null,
      filter.state ?? null,
      q === null ? null : `%${q.replace(/[\\%_]/g, '\\$&')}%`,
      (q !== null && canonicalCode(q)) || null,
    ],
  }
}

/** One page of the Certificates page's list, newest first, and how many the filter finds in all. */
export async function staffCertificates(
  actor: Actor,
  input: unknown,
  page: { offset: number; limit: number },
): Promise<{ rows: StaffCertificateView[]; total: number }> {
  const { where, values } = staffFilter(actor, input)
  const [rows, [{ total }]] = await Promise.all([
    select<StaffRow>(
      `SELECT ${STAFF_COLUMNS} ${STAFF_FROM} WHERE ${where} ORDER BY c.issued_at DESC, c.id LIMIT $7 OFFSET $8`,
      [...values, page.limit, page.offset],
    ),
    select<{ total: number }>(`SELECT count(*)::int AS total ${STAFF_FROM} WHERE ${where}`, values),
  ])
  return { rows: rows.map(toStaffView), total }
}

/** Every certificate of the filter, newest first, read from a cursor (the Certificates page's export). */
export function staffCertificateStream(actor: Actor, input: unknown): RowStream {
  // a refused filter or actor is refused now, before anything is sent
  const { where, values } = staffFilter(actor, input)
  const statement = {
    text: `SELECT ${STAFF_COLUMNS} ${STAFF_FROM} WHERE ${where} ORDER BY c.issued_at DESC, c.id`,
    values,
  }
  return (sink, signal) => pipeQuery(statement, [mapRows(toStaffView), sink], { signal })
}

/** One certificate for the admin side (the Certificates page's Revoke and Re-issue ask about it). */
export async function staffCertificate(actor: Actor, typedCode: string): Promise<StaffCertificateView> {
  requirePermission(actor, 'read:certificates')
  const code = canonicalCode(typedCode)
  const [row] = code ? await select<StaffRow>(`SELECT ${STAFF_COLUMNS} ${STAFF_FROM} WHERE c.code = $1`, [code]) : []
  if (!row) throw notFound(NO_SUCH_CERTIFICATE)
  return toStaffView(row)
}

type CertificateSubject = { id: string; title: string; certificates: boolean; issued: number }

/**
 * The courses and programs, by title, for the Certificates page's filter: whether each gives certificates now,
 * and how many it has given.
 */
export async function certificateSubjects(
  actor: Actor,
): Promise<{ courses: CertificateSubject[]; programs: CertificateSubject[] }> {
  requirePermission(actor, 'read:certificates')
  const [courses, programs] = await Promise.all(
    (['course', 'program'] as const).map((kind) =>
      select<CertificateSubject>(
        `SELECT s.id, s.title, s.certificates,
                (SELECT count(*)::int FROM certificates c WHERE c.${kind}_id = s.id) AS issued
           FROM ${kind}s s ORDER BY lower(s.title), s.id`,
        [],
      ),
    ),
  )
  return { courses, programs }
}

type BackfillResult = {
  dryRun: boolean
  /** the learners who are (or would be) given one */
  issued: { userId: string; learnerName: string; title: string; code: string | null }[]
}

/**
 * Give the certificates a course's or program's complete learners lack: those who completed before
 * certificates were switched on. Certificates must be on. A dry run says who, and gives none.
 */
export async function backfillCertificates(actor: Actor, input: unknown): Promise<BackfillResult> {
  requirePermission(actor, 'manage:certificates')
  const { courseId, programId, dryRun } = BackfillSchema.parse(input)
  const table = courseId ? 'courses' : 'programs'
  const [subject] = await select<{ certificates: boolean }>(`SELECT certificates FROM ${table} WHERE id = $1`, [
    courseId ?? programId,
  ])
  if (!subject) throw notFound(courseId ? 'No course has this id.' : 'No program has this id.')
  if (!subject.certificates)
    throw conflict(`Certificates are off for this ${courseId ? 'course' : 'program'}: switch them on first.`)
  const work = [{ user_id: null, course_id: courseId ?? null, program_id: programId ?? null }]
  return transaction(async (tx) => {
    const candidates = await candidatesFor(work, tx)
    if (dryRun)
      return {
        dryRun,
        issued: candidates.map((c) => ({ userId: c.user_id, learnerName: c.learner_name, title: c.title, code: null })),
      }
    const given = await issueTo(candidates, tx, actor.id)
    const byId = new Map(given.map((g) => [g.id, g]))
    const rows = await select<{ id: string; user_id: string }>(
      `SELECT id, user_id FROM certificates WHERE id = ANY($1::uuid[])`,
      [[...byId.keys()]],
      tx,
    )
    return {
      dryRun,
      issued: rows.map((r) => {
        const g = byId.get(r.id)!
        return { userId: r.user_id, learnerName: g.learnerName, title: g.title, code: groupedCode(g.code) }
      }),
    }
  })
}

/** One's own certificate's signed credential (the admin side: anyone's), as the VC-JWT and decoded. */
export async function certificateCredential(actor: Actor, typedCode: string) {
  const { credential: jwt } = await certificateFor(actor, typedCode)
  const { iss: _iss, jti: _jti, sub: _sub, nbf: _nbf, ...credential } = decodeJwt(jwt)
  return { jwt, credential }
}

/** The longest credential taken for checking: the portal's are about 3 KB. */
const MAX_CREDENTIAL = 64 * 1024

type CredentialCheck =
  { result: 'valid' | 'revoked'; certificate: PublicCertificate } | { result: 'tampered' | 'unknown'; reason: string }

/**
 * Is this credential one the portal signed, and does its certificate still stand? `valid` and `revoked` come
 * with what the certificate states; `tampered` is text shaped like a VC-JWT that does not verify (its
 * signature, algorithm, header or claims); `unknown` one signed by a key the portal never used, or naming no
 * certificate of the portal's. Only what is not shaped like a VC-JWT at all is refused (400).
 */
export async function verifyCredential(input: unknown): Promise<CredentialCheck> {
  if (typeof input !== 'string' || input.trim() === '')
    throw invalid('Send the credential as the text of its VC-JWT (three parts joined by dots).', {
      credential: 'Enter the credential.',
    })
  if (input.length > MAX_CREDENTIAL) throw invalid('This credential is too long to be one of the portal’s.')
  const checked = await verifyCredentialJwt(input.trim(), await publishedKeySet())
  if (checked.result !== 'valid') {
    if (checked.result === 'malformed')
      throw invalid(`This is not a credential the portal can read: ${checked.reason}`, { credential: checked.reason })
    return { result: checked.result === 'tampered' ? 'tampered' : 'unknown', reason: checked.reason }
  }
  const code = canonicalCode(String(checked.credential.id).split('/').pop() ?? '')
  const row = code ? await rowByCode(code) : undefined
  if (!row) return { result: 'unknown', reason: 'The portal holds no certificate for this credential.' }
  const certificate = await publicCertificate(code!)
  return { result: certificate.state, certificate }
}

/** The most of a signature image read into a PDF: a signature is a few kilobytes; anything larger is left out. */
const MAX_SIGNATURE_BYTES = 2 * 1024 * 1024

async function signatureBytes(key: string | null): Promise<Uint8Array | undefined> {
  if (!key) return undefined
  const stored = await storage().get(key)
  if (!stored) return undefined
  if (stored.size > MAX_SIGNATURE_BYTES) {
    stored.body.destroy()
    return undefined
  }
  const parts: Buffer[] = []
  for await (const part of stored.body) parts.push(part as Buffer)
  return Buffer.concat(parts)
}

/** One's own certificate as a PDF (the admin side: anyone's), with its file name. */
export async function certificatePdf(
  actor: Actor,
  typedCode: string,
): Promise<{ bytes: Uint8Array; fileName: string }> {
  const c = await certificateFor(actor, typedCode)
  const bytes = await renderCertificatePdf({
    facts: {
      code: c.code.replaceAll('-', ''),
      kind: c.kind,
      title: c.title,
      learnerName: c.learnerName,
      issuedAt: new Date(c.issuedAt),
      minutes: c.minutes,
      issuerName: c.issuerName,
    },
    verifyUrl: c.verifyUrl,
    signature: await signatureBytes(c.signatureKey),
  })
  return { bytes, fileName: `Certificate ${c.code}.pdf` }
}

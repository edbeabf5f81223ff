import { randomUUID } from 'node:crypto'
import type { Transaction } from 'sequelize'
import { getEnv } from '#app/utils/env.server.ts'
import { select, transaction } from '#db/client.ts'
import { newCertificateCode, type CertificateFacts, type CertificateKind } from './facts.ts'
import { registeredSigningKey, signedCredential } from './signing.server.ts'

// Issuing: the job runner's side of certificates. Triggers (migration 0022) write a row of work into
// certificate_due wherever a learner may have completed a course or program that gives certificates; the
// `certificate-issue` job takes those rows a batch at a time, finds who is complete and holds no certificate
// for it yet, and gives each one, in the transaction that removes the rows: a worker killed part-way leaves
// the rows for the next one, and a learner never gets two (a unique index on valid certificates, and the
// insert gives way to one that beat it).

const BATCH = 200

/** Work of the triggers' kind: a learner (or everyone, null) and a course or a program. */
type DueWork = { user_id: string | null; course_id: string | null; program_id: string | null }

/** Someone complete, with what their certificate will state. */
export type Candidate = {
  kind: CertificateKind
  subject_id: string
  user_id: string
  learner_name: string
  email: string
  title: string
  description: string
  issuer_name: string
  /** the signature image the certificate is drawn with */
  signature_key: string | null
  minutes: number
}

// The learners complete for each piece of work, with no certificate (valid or revoked) for it: a revoked
// certificate is not given again by itself; an admin re-issues it. A course's completion is the tallies'
// (every visible video and lab done, the course assigned); a program's is each of its courses', for a learner
// assigned the program. Minutes: the visible videos' seconds and the visible labs' minutes.
const CANDIDATES = `
  WITH due AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS d(user_id uuid, course_id uuid, program_id uuid)),
  done_in_course AS (
    SELECT DISTINCT t.user_id, c.id AS course_id
      FROM due d
      JOIN courses c ON c.id = d.course_id AND c.certificates
      CROSS JOIN LATERAL (SELECT course_visible_videos(c.id) AS videos, course_visible_labs(c.id) AS labs) n
      JOIN course_completion_tallies t
        ON t.course_id = c.id AND t.assigned AND (d.user_id IS NULL OR t.user_id = d.user_id)
     WHERE course_done(t.completed_videos, t.completed_labs, n.videos, n.labs)
       AND NOT EXISTS (SELECT 1 FROM certificates x WHERE x.user_id = t.user_id AND x.course_id = c.id)
  ),
  done_in_program AS (
    SELECT DISTINCT pa.user_id, p.id AS program_id
      FROM due d
      JOIN programs p ON p.id = d.program_id AND p.certificates
      JOIN program_assignments pa ON pa.program_id = p.id AND (d.user_id IS NULL OR pa.user_id = d.user_id)
     WHERE EXISTS (SELECT 1 FROM program_courses pc WHERE pc.program_id = p.id)
       AND NOT EXISTS (
         SELECT 1 FROM program_courses pc
           LEFT JOIN course_completion_tallies t ON t.user_id = pa.user_id AND t.course_id = pc.course_id
          WHERE pc.program_id = p.id
            AND NOT COALESCE(t.assigned AND course_done(t.completed_videos, t.completed_labs,
                               course_visible_videos(pc.course_id), course_visible_labs(pc.course_id)), false))
       AND NOT EXISTS (SELECT 1 FROM certificates x WHERE x.user_id = pa.user_id AND x.program_id = p.id)
  ),
  -- the hours of only the courses certificates are given for here, and of those programs' courses
  course_minutes AS (
    SELECT c.id,
           (COALESCE((SELECT sum(e.duration) FROM content_entries e
                       WHERE e.course_id = c.id AND e.kind = 'video' AND e.visibility), 0) / 60
            + COALESCE((SELECT sum(l.minutes) FROM labs l WHERE l.course_id = c.id AND l.visibility), 0))::integer AS minutes
      FROM courses c
     WHERE c.id IN (SELECT course_id FROM done_in_course
                    UNION
                    SELECT pc.course_id FROM done_in_program w JOIN program_courses pc ON pc.program_id = w.program_id)
  )
  SELECT 'course' AS kind, c.id AS subject_id, u.id AS user_id, btrim(u.first_name || ' ' || u.last_name) AS learner_name,
         u.email, c.title, c.description, c.certificate_issuer AS issuer_name,
         c.certificate_signature_key AS signature_key, m.minutes
    FROM done_in_course w JOIN courses c ON c.id = w.course_id JOIN users u ON u.id = w.user_id
    JOIN course_minutes m ON m.id = c.id
  UNION ALL
  SELECT 'program', p.id, u.id, btrim(u.first_name || ' ' || u.last_name), u.email, p.title, p.description,
         p.certificate_issuer, p.certificate_signature_key,
         COALESCE((SELECT sum(m.minutes) FROM program_courses pc JOIN course_minutes m ON m.id = pc.course_id
                    WHERE pc.program_id = p.id), 0)::integer
    FROM done_in_program w JOIN programs p ON p.id = w.program_id JOIN users u ON u.id = w.user_id
   ORDER BY 1, 2, 3`

/** Who the work finds complete and without a certificate, as of `transaction`. */
export async function candidatesFor(work: DueWork[], transaction?: Transaction): Promise<Candidate[]> {
  if (work.length === 0) return []
  return select<Candidate>(CANDIDATES, [JSON.stringify(work)], transaction)
}

/**
 * An insert gives way only to a valid certificate of the same learner and course or program (the partial
 * unique indexes of migration 0022); any other refusal (a code or revocation-list place taken) is an error.
 */
const GIVES_WAY: Record<CertificateKind, string> = {
  course: 'ON CONFLICT (user_id, course_id) WHERE revoked_at IS NULL AND course_id IS NOT NULL DO NOTHING',
  program: 'ON CONFLICT (user_id, program_id) WHERE revoked_at IS NULL AND program_id IS NOT NULL DO NOTHING',
}

/**
 * Give each candidate a certificate in `transaction`: a new code, a place in the revocation list, the
 * credential signed. A candidate who meanwhile got one (another worker, a backfill) is passed over.
 * Returns the certificates given.
 */
export async function issueTo(
  candidates: Candidate[],
  transaction: Transaction,
  issuedBy: string | null = null,
): Promise<CertificateFacts[]> {
  if (candidates.length === 0) return []
  const indexes = await select<{ n: number }>(
    `SELECT nextval('certificate_status_index')::integer AS n FROM generate_series(1, $1)`,
    [candidates.length],
    transaction,
  )
  const { PUBLIC_URL } = getEnv()
  // one instant for the batch, to the second, as the credential states it
  const issuedAt = new Date(Math.floor(Date.now() / 1000) * 1000)
  const key = await registeredSigningKey(transaction)
  const given: CertificateFacts[] = []
  for (const [i, c] of candidates.entries()) {
    const facts: CertificateFacts = {
      id: randomUUID(),
      code: newCertificateCode(),
      kind: c.kind,
      subjectId: c.subject_id,
      title: c.title,
      description: c.description,
      learnerName: c.learner_name,
      learnerEmail: c.email,
      issuedAt,
      minutes: Number(c.minutes),
      issuerName: c.issuer_name,
      statusIndex: indexes[i].n,
    }
    const jwt = await signedCredential(facts, PUBLIC_URL, key)
    const inserted = await select<{ id: string }>(
      `INSERT INTO certificates (id, code, kind, user_id, course_id, program_id, title, description, learner_name,
                                 issuer_name, minutes, issued_at, issued_by, status_index, credential, key_id,
                                 signature_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
       ${GIVES_WAY[c.kind]} RETURNING id`,
      [
        facts.id,
        facts.code,
        facts.kind,
        c.user_id,
        c.kind === 'course' ? c.subject_id : null,
        c.kind === 'program' ? c.subject_id : null,
        facts.title,
        facts.description,
        facts.learnerName,
        facts.issuerName,
        facts.minutes,
        facts.issuedAt,
        issuedBy,
        facts.statusIndex,
        jwt,
        key.kid,
        c.signature_key,
      ],
      transaction,
    )
    if (inserted.length === 1) given.push(facts)
  }
  return given
}

/**
 * The job: take the triggers' work a batch at a time until none is left, issuing as it goes. Returns how
 * many certificates were given.
 */
export async function issueDueCertificates(signal?: AbortSignal): Promise<number> {
  let issued = 0
  for (;;) {
    if (signal?.aborted) break
    const done = await transaction(async (tx) => {
      // a row a completion still uncommitted has written is locked by it (migration 0023): passed over here,
      // it is taken on a later run, once that completion can be seen
      const work = await select<DueWork>(
        `DELETE FROM certificate_due
          WHERE ctid IN (SELECT ctid FROM certificate_due ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING user_id, course_id, program_id`,
        [BATCH],
        tx,
      )
      if (work.length === 0) return undefined
      // a learner's own rows and the same course's sweep ask the same question: each learner is asked once
      const given = await issueTo(await candidatesFor(work, tx), tx)
      return given.length
    })
    if (done === undefined) break
    issued += done
  }
  return issued
}

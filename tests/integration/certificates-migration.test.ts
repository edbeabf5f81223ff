import pg from 'pg'
import type { Sequelize } from 'sequelize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrateTables } from '#db/migrate.ts'
import * as certificateWork from '#db/migrations/0023-certificate-work-and-signatures.ts'
import { databaseAt } from '#tests/old-shape.ts'

// Migration 0023 on a database of the shape before it (migrations up to 0022), holding certificates of a course
// and of a program with a signature image, and of a course without one, and work waiting. Once migrated, each
// certificate names the signature its course or program has; a row of work touched by a completion not yet
// committed is kept locked from the job until it commits; taken down and up again, both hold.

let database: Awaited<ReturnType<typeof databaseAt>>
let old: Sequelize
const rows = <T extends object>(text: string, bind: unknown[] = []) => database.rows<T>(text, bind)
const one = async <T extends object>(text: string, bind: unknown[] = []) => (await rows<T>(text, bind))[0]
const migration = () => ({
  name: '0023-certificate-work-and-signatures',
  context: (text: string) => old.query(text),
})

const ids: Record<string, string> = {}

async function insertFile(name: string) {
  ids[name] = (
    await one<{ key: string }>(
      `INSERT INTO files (key, purpose, name, content_type, size) VALUES ($1, 'certificate_signature', $1, 'image/png', 10)
       RETURNING key`,
      [`${name}.png`],
    )
  ).key
}

let serial = 0
async function insertCertificate(title: string, kind: 'course' | 'program', subject: string) {
  serial++
  await rows(
    `INSERT INTO certificates (code, kind, user_id, course_id, program_id, title, learner_name, issuer_name, minutes,
                                 credential, key_id)
       VALUES ($1, $2, $3, $4, $5, $6, 'Ada Lovelace', 'Northwind', 60, 'x.y.z', 'old-key') RETURNING id`,
    [
      String(serial).padStart(26, '0'),
      kind,
      ids.learner,
      kind === 'course' ? ids[subject] : null,
      kind === 'program' ? ids[subject] : null,
      title,
    ],
  )
}

const signatures = async () =>
  Object.fromEntries(
    (await rows<{ title: string; signature_key: string | null }>(`SELECT title, signature_key FROM certificates`)).map(
      (r) => [r.title, r.signature_key],
    ),
  )

beforeAll(async () => {
  database = await databaseAt('0022-certificates')
  old = database.sequelize
  ids.learner = (
    await one<{ id: string }>(
      `INSERT INTO users (first_name, user_name, email, role_id) VALUES ('Ada', 'ada', 'ada@example.com', 2) RETURNING id`,
    )
  ).id
  await insertFile('course signature')
  await insertFile('program signature')
  for (const [name, signature] of [
    ['Signed course', 'course signature'],
    ['Unsigned course', null],
  ] as const)
    ids[name] = (
      await one<{ id: string }>(
        `INSERT INTO courses (title, certificates, certificate_issuer, certificate_signature_key)
         VALUES ($1, true, 'Northwind', $2) RETURNING id`,
        [name, signature && ids[signature]],
      )
    ).id
  ids['Signed program'] = (
    await one<{ id: string }>(
      `INSERT INTO programs (title, certificates, certificate_issuer, certificate_signature_key)
       VALUES ('Signed program', true, 'Northwind', $1) RETURNING id`,
      [ids['program signature']],
    )
  ).id
  await rows(`INSERT INTO certificate_keys (kid, public_jwk) VALUES ('old-key', '{}') RETURNING kid`)
  await insertCertificate('Signed course', 'course', 'Signed course')
  await insertCertificate('Unsigned course', 'course', 'Unsigned course')
  await insertCertificate('Signed program', 'program', 'Signed program')
}, 60_000)

afterAll(async () => {
  await database?.drop()
})

/**
 * Work for the learner and a course is waiting; a completion, its transaction still open, touches the same row
 * while the job takes its rows as issueDueCertificates does. Whether the job took (deleted) the row.
 */
async function jobTakesTouchedWork(): Promise<boolean> {
  await rows(`DELETE FROM certificate_due`)
  await rows(`SELECT certificate_due_add($1, $2, NULL)`, [ids.learner, ids['Unsigned course']])
  const completing = new pg.Client({ connectionString: database.url })
  await completing.connect()
  try {
    await completing.query('BEGIN')
    await completing.query('SELECT certificate_due_add($1, $2, NULL)', [ids.learner, ids['Unsigned course']])
    const taken = await rows(
      `DELETE FROM certificate_due
        WHERE ctid IN (SELECT ctid FROM certificate_due ORDER BY created_at LIMIT 200 FOR UPDATE SKIP LOCKED)
        RETURNING user_id`,
    )
    await completing.query('COMMIT')
    return taken.length > 0
  } finally {
    await completing.end()
  }
}

describe('migration 0023, certificates’ signatures and their work', () => {
  it('records each certificate’s signature, and keeps work a completion still open touched from the job', async () => {
    expect(await jobTakesTouchedWork()).toBe(true)

    await migrateTables(old, () => {}, '0023-certificate-work-and-signatures')
    expect(await signatures()).toEqual({
      'Signed course': ids['course signature'],
      'Unsigned course': null,
      'Signed program': ids['program signature'],
    })
    expect(await jobTakesTouchedWork()).toBe(false)
    // one row per learner and course, and one per course for everyone (no learner: NULLs conflict too)
    await rows(`SELECT certificate_due_add(NULL, $1, NULL)`, [ids['Signed course']])
    await rows(`SELECT certificate_due_add(NULL, $1, NULL)`, [ids['Signed course']])
    await rows(`SELECT certificate_due_add($1, NULL, $2)`, [ids.learner, ids['Signed program']])
    await rows(`SELECT certificate_due_add($1, NULL, $2)`, [ids.learner, ids['Signed program']])
    expect((await one<{ n: number }>(`SELECT count(*)::int AS n FROM certificate_due`)).n).toBe(3)

    // a file a certificate names is not removed with its row: the certificate lets go of it
    await rows(`DELETE FROM files WHERE key = $1 RETURNING key`, [ids['program signature']])
    expect((await signatures())['Signed program']).toBeNull()

    await certificateWork.down(migration())
    const [{ present }] = await rows<{ present: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM information_schema.columns
                       WHERE table_name = 'certificates' AND column_name = 'signature_key') AS present`,
    )
    expect(present).toBe(false)
    expect(await jobTakesTouchedWork()).toBe(true)

    await certificateWork.up(migration())
    expect(await signatures()).toEqual({
      'Signed course': ids['course signature'],
      'Unsigned course': null,
      'Signed program': null,
    })
    expect(await jobTakesTouchedWork()).toBe(false)
  })
})

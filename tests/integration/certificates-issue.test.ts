import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { ROLE, SYSTEM } from '#app/modules/auth/roles.ts'
import { issueDueCertificates } from '#app/modules/certificates/issue.server.ts'
import {
  backfillCertificates,
  certificateFor,
  listCertificates,
  publicCertificate,
  reissueCertificate,
  revokeCertificate,
} from '#app/modules/certificates/service.server.ts'
import { ServiceError } from '#app/modules/errors.ts'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { databaseUrl, db, disconnect, query, sql } from '#db/client.ts'
import {
  assignCourse,
  assignProgram,
  makeAdmin,
  makeCoach,
  makeCourse,
  makeLearner,
  makeProgram,
  recordWatched,
} from '#tests/factories.ts'
import { eventually, startWorkers, stopWorkers } from '#tests/jobs.ts'

// Certificates are issued by the job runner from the work the triggers leave (migration 0022): these tests
// complete courses and programs every way the portal knows and look at what was given.

afterAll(() => stopWorkers())

const ISSUER = 'Northwind Data Academy'

async function certificatesOn(courseId: string) {
  const { Course } = await db()
  await Course.update({ certificates: true, certificateIssuer: ISSUER }, { where: { id: courseId } })
}

async function programCertificatesOn(programId: string) {
  const { Program } = await db()
  await Program.update({ certificates: true, certificateIssuer: ISSUER }, { where: { id: programId } })
}

type Held = {
  code: string
  kind: string
  learner_name: string
  title: string
  minutes: number
  revoked_at: Date | null
}
const HELD = sql(
  `SELECT code, kind, learner_name, title, minutes, revoked_at FROM certificates
    WHERE user_id = :userId AND (course_id = :subjectId OR program_id = :subjectId) ORDER BY issued_at, code`,
)
const held = (userId: string, subjectId: string) => query<Held>(HELD, { userId, subjectId })
const DUE = sql(`SELECT count(*)::int AS n FROM certificate_due`)

/** A learner assigned a course of two 100-second videos that gives certificates. */
async function learnerInCourse({ on = true } = {}) {
  const course = await makeCourse({ videos: [{ duration: 100 }, { duration: 100 }] })
  if (on) await certificatesOn(course.id)
  const learner = await makeLearner()
  await assignCourse(learner.id, course.id)
  return { course, learner }
}

describe('issuing certificates', () => {
  it('gives one within seconds of the last video watched, stating the name, title, issuer and hours', async () => {
    await startWorkers(['certificate-issue'])
    const { course, learner } = await learnerInCourse()
    await recordWatched(learner.id, course.id, course.videos[0], 100)
    expect(await held(learner.id, course.id)).toEqual([])
    const started = Date.now()
    await recordWatched(learner.id, course.id, course.videos[1], 100)
    const [cert] = await eventually(async () => {
      const rows = await held(learner.id, course.id)
      return rows.length > 0 && rows
    }, 10_000)
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(cert).toMatchObject({ kind: 'course', title: course.title, minutes: 3, revoked_at: null })
    expect(cert.learner_name).toBe(`${learner.firstName} ${learner.lastName}`.trim())
    expect(cert.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/)
    const view = await certificateFor(learner, cert.code)
    expect(view).toMatchObject({ issuerName: ISSUER, state: 'valid', kind: 'course' })
    expect(view.credential.split('.')).toHaveLength(3)
    await stopWorkers()
  })

  it('gives none for a course whose certificates are off, and leaves no work behind', async () => {
    const { course, learner } = await learnerInCourse({ on: false })
    const [before] = await query<{ n: number }>(DUE, {})
    for (const video of course.videos) await recordWatched(learner.id, course.id, video, 100)
    const [after] = await query<{ n: number }>(DUE, {})
    expect(after.n).toBe(before.n)
    await issueDueCertificates()
    expect(await held(learner.id, course.id)).toEqual([])
  })

  it('gives one when a content change completes the course (a video hidden), and keeps it when the video is shown again', async () => {
    const { course, learner } = await learnerInCourse()
    await recordWatched(learner.id, course.id, course.videos[0], 100)
    await issueDueCertificates()
    expect(await held(learner.id, course.id)).toEqual([])
    const { ContentEntry } = await db()
    await ContentEntry.update({ visibility: false }, { where: { id: course.videos[1].id } })
    await issueDueCertificates()
    const [cert] = await held(learner.id, course.id)
    expect(cert).toMatchObject({ minutes: 1, revoked_at: null })
    // completion lost later does not take the certificate away
    await ContentEntry.update({ visibility: true }, { where: { id: course.videos[1].id } })
    await issueDueCertificates()
    expect(await held(learner.id, course.id)).toEqual([cert])
  })

  it('gives one when the course is assigned to a learner who had already watched it all', async () => {
    const course = await makeCourse({ videos: [{ duration: 120 }] })
    await certificatesOn(course.id)
    const learner = await makeLearner()
    await recordWatched(learner.id, course.id, course.videos[0], 120)
    await issueDueCertificates()
    expect(await held(learner.id, course.id)).toEqual([])
    await assignCourse(learner.id, course.id)
    await issueDueCertificates()
    expect(await held(learner.id, course.id)).toHaveLength(1)
  })

  it('gives a program’s certificate when its last course is complete, and none for a course that gives none', async () => {
    const a = await makeCourse({ videos: [{ duration: 600 }] })
    const b = await makeCourse({ videos: [{ duration: 1200 }] })
    const program = await makeProgram([a.id, b.id])
    await programCertificatesOn(program.id)
    const learner = await makeLearner()
    await assignProgram(learner.id, program.id)
    await recordWatched(learner.id, a.id, a.videos[0], 600)
    await issueDueCertificates()
    expect(await held(learner.id, program.id)).toEqual([])
    await recordWatched(learner.id, b.id, b.videos[0], 1200)
    await issueDueCertificates()
    const [cert] = await held(learner.id, program.id)
    expect(cert).toMatchObject({ kind: 'program', minutes: 30 })
    expect(await held(learner.id, a.id)).toEqual([])
  })

  it('gives a program’s certificate when a program is assigned to a learner who completed its courses', async () => {
    const a = await makeCourse({ videos: [{ duration: 60 }] })
    const learner = await makeLearner()
    await assignCourse(learner.id, a.id)
    await recordWatched(learner.id, a.id, a.videos[0], 60)
    const program = await makeProgram([a.id])
    await programCertificatesOn(program.id)
    await issueDueCertificates()
    expect(await held(learner.id, program.id)).toEqual([])
    await assignProgram(learner.id, program.id)
    await issueDueCertificates()
    expect(await held(learner.id, program.id)).toHaveLength(1)
  })

  it('gives one certificate when the same completion is issued twice at the same moment', async () => {
    const { course, learner } = await learnerInCourse()
    for (const video of course.videos) await recordWatched(learner.id, course.id, video, 100)
    await Promise.all([
      issueDueCertificates(),
      issueDueCertificates(),
      backfillCertificates(SYSTEM, { courseId: course.id }),
      backfillCertificates(SYSTEM, { courseId: course.id }),
    ])
    expect(await held(learner.id, course.id)).toHaveLength(1)
  })

  it('keeps the work of a completion still being committed while the job takes the row it touched', async () => {
    const { course, learner } = await learnerInCourse()
    await recordWatched(learner.id, course.id, course.videos[0], 100)
    // work already waiting for this learner and course (an earlier touch, committed)
    await query(sql(`SELECT certificate_due_add(:userId, :courseId, NULL)`), {
      userId: learner.id,
      courseId: course.id,
    })
    const completing = new pg.Client({ connectionString: await databaseUrl() })
    await completing.connect()
    try {
      await completing.query('BEGIN')
      await completing.query(
        `INSERT INTO video_progress (user_id, video_id, course_id, watched_seconds, last_position, completed)
         VALUES ($1, $2, $3, 100, 100, true)`,
        [learner.id, course.videos[1].id, course.id],
      )
      // the job runs while the completion is not committed: it cannot see it, and must not take its work
      await issueDueCertificates()
      await completing.query('COMMIT')
    } finally {
      await completing.end()
    }
    expect(await held(learner.id, course.id)).toEqual([])
    await issueDueCertificates()
    expect(await held(learner.id, course.id)).toHaveLength(1)
  })

  it('fails and keeps its work when a certificate is refused for anything but one already given', async () => {
    const earlier = await learnerInCourse()
    for (const video of earlier.course.videos) await recordWatched(earlier.learner.id, earlier.course.id, video, 100)
    await issueDueCertificates()
    const [{ status_index: taken }] = await query<{ status_index: number }>(
      sql(`SELECT status_index FROM certificates WHERE user_id = :userId`),
      { userId: earlier.learner.id },
    )
    // the revocation list's next place is one already given (as a sequence set back would leave it)
    const RESTART = sql(`SELECT setval('certificate_status_index', :n, :called)`)
    await query(RESTART, { n: taken, called: false })
    const { course, learner } = await learnerInCourse()
    for (const video of course.videos) await recordWatched(learner.id, course.id, video, 100)
    await expect(issueDueCertificates()).rejects.toMatchObject({
      parent: expect.objectContaining({ constraint: 'certificates_status_index_key' }),
    })
    expect(await held(learner.id, course.id)).toEqual([])
    const [{ n: due }] = await query<{ n: number }>(
      sql(`SELECT count(*)::int AS n FROM certificate_due WHERE user_id = :userId AND course_id = :courseId`),
      { userId: learner.id, courseId: course.id },
    )
    expect(due).toBe(1)
    await query(RESTART, {
      n: (await query<{ n: number }>(sql(`SELECT max(status_index) AS n FROM certificates`), {}))[0].n,
      called: true,
    })
    await issueDueCertificates()
    expect(await held(learner.id, course.id)).toHaveLength(1)
  })

  it('does not give a revoked certificate again by itself', async () => {
    const { course, learner } = await learnerInCourse()
    for (const video of course.videos) await recordWatched(learner.id, course.id, video, 100)
    await issueDueCertificates()
    const [cert] = await held(learner.id, course.id)
    await revokeCertificate(SYSTEM, cert.code, { reason: 'Shared an account.' })
    const { ContentEntry } = await db()
    await ContentEntry.update({ visibility: false }, { where: { id: course.videos[1].id } })
    await issueDueCertificates()
    const rows = await held(learner.id, course.id)
    expect(rows).toHaveLength(1)
    expect(rows[0].revoked_at).not.toBeNull()
  })
})

describe('the workers’ wake-up', () => {
  const LISTENER = sql(
    `SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'portal-jobs-wake' AND query LIKE 'LISTEN %'`,
  )
  const listener = async () => (await query<{ pid: number }>(LISTENER, {}))[0]?.pid

  /** Ends the listening backend from a connection of its own, as an operator or a restarting server would. */
  async function endListener(url: string) {
    const pid = await eventually(listener, 10_000)
    await terminate(url, pid)
    return pid
  }

  async function terminate(url: string, pid: number) {
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [pid])
    } finally {
      await admin.end()
    }
  }

  /** A learner completes a course; the certificate comes within seconds (the minute's schedule is far slower). */
  async function issuedWithinSeconds() {
    const { course, learner } = await learnerInCourse()
    const started = Date.now()
    for (const video of course.videos) await recordWatched(learner.id, course.id, video, 100)
    await eventually(async () => (await held(learner.id, course.id)).length === 1, 8_000)
    return Date.now() - started
  }

  it('listens again when its connection is ended, even when the database cannot be reached at first', async () => {
    const lines: string[] = []
    await startWorkers(['certificate-issue'], { lines })
    const url = await databaseUrl()
    const first = await endListener(url)
    const second = await eventually(async () => {
      const pid = await listener()
      return pid !== first && pid
    }, 10_000)
    expect(await issuedWithinSeconds()).toBeLessThan(8_000)

    // ended again while the database's address leads nowhere: the first tries fail, and it keeps trying
    // (the address is changed and the old connection let go before the listener is ended: however slowly the
    // pool closes, the listener's next try cannot find the old connection's address still at hand)
    const configured = process.env.DATABASE_URL
    const listening = await eventually(listener, 10_000)
    process.env.DATABASE_URL = 'postgres://nobody:nothing@127.0.0.1:1/nowhere'
    resetEnvCache()
    await disconnect()
    await terminate(url, listening)
    try {
      // a liveness wait, not a measure: the tries are spaced out and a busy machine runs them late
      await eventually(async () => lines.some((line) => line.includes('Cannot reach the database')), 30_000).catch(
        (error: Error) => {
          // what the workers said instead, to tell a listener that never lost its connection from one that hung
          throw new Error(`${error.message} The workers said:\n${lines.join('\n')}`)
        },
      )
    } finally {
      process.env.DATABASE_URL = configured
      resetEnvCache()
    }
    await eventually(async () => {
      const pid = await listener()
      return pid !== undefined && pid !== second && pid
    }, 30_000)
    expect(await issuedWithinSeconds()).toBeLessThan(8_000)
    await stopWorkers()
  }, 120_000)
})

describe('a backfill', () => {
  it('gives certificates to those who completed before they were switched on; a dry run gives none', async () => {
    const { course, learner } = await learnerInCourse({ on: false })
    for (const video of course.videos) await recordWatched(learner.id, course.id, video, 100)
    await expect(backfillCertificates(SYSTEM, { courseId: course.id })).rejects.toMatchObject({ status: 409 })
    await certificatesOn(course.id)
    await issueDueCertificates()
    expect(await held(learner.id, course.id)).toEqual([])
    const dry = await backfillCertificates(SYSTEM, { courseId: course.id, dryRun: true })
    expect(dry.issued).toEqual([expect.objectContaining({ userId: learner.id, code: null })])
    expect(await held(learner.id, course.id)).toEqual([])
    const real = await backfillCertificates(SYSTEM, { courseId: course.id })
    expect(real.issued).toEqual([expect.objectContaining({ userId: learner.id, code: expect.any(String) })])
    expect(await held(learner.id, course.id)).toHaveLength(1)
    expect((await backfillCertificates(SYSTEM, { courseId: course.id })).issued).toEqual([])
  })

  it('refuses to name both a course and a program, or neither', async () => {
    await expect(backfillCertificates(SYSTEM, {})).rejects.toThrow('Name one course or one program.')
  })
})

describe('what people see and do', () => {
  async function issued() {
    const { course, learner } = await learnerInCourse()
    for (const video of course.videos) await recordWatched(learner.id, course.id, video, 100)
    await issueDueCertificates()
    const [cert] = await held(learner.id, course.id)
    return { course, learner, code: cert.code }
  }

  it('shows anyone the certificate’s state, but neither the email nor why it was revoked', async () => {
    const { learner, code } = await issued()
    const shown = await publicCertificate(code.toLowerCase().replace(/(.{4})/g, '$1 '))
    expect(shown).toMatchObject({ state: 'valid', learnerName: expect.any(String), issuerName: ISSUER })
    expect(JSON.stringify(shown)).not.toContain(learner.email)
    await revokeCertificate(SYSTEM, code, { reason: 'A secret reason.' })
    const revoked = await publicCertificate(code)
    expect(revoked).toMatchObject({ state: 'revoked', revokedAt: expect.any(String) })
    expect(JSON.stringify(revoked)).not.toContain('A secret reason.')
    await expect(publicCertificate('0000-0000-0000-0000-0000-0000-00')).rejects.toMatchObject({ status: 404 })
    await expect(publicCertificate('not a code')).rejects.toMatchObject({ status: 404 })
  })

  it('lets a learner read only their own; coaches read; only admins revoke', async () => {
    const { learner, code } = await issued()
    const other = await makeLearner()
    const coach = await makeCoach()
    expect((await listCertificates(learner)).map((c) => c.code.replaceAll('-', ''))).toEqual([code])
    await expect(listCertificates(other, { userId: learner.id })).rejects.toMatchObject({ status: 403 })
    await expect(certificateFor(other, code)).rejects.toMatchObject({ status: 404 })
    expect((await certificateFor(coach, code)).state).toBe('valid')
    expect((await listCertificates(coach, { userId: learner.id })).length).toBe(1)
    await expect(revokeCertificate(coach, code, { reason: 'x' })).rejects.toBeInstanceOf(ServiceError)
    await expect(revokeCertificate(learner, code, { reason: 'x' })).rejects.toMatchObject({ status: 403 })
    await expect(revokeCertificate(await makeAdmin(), code, { reason: ' ' })).rejects.toThrow('Enter a reason.')
    await revokeCertificate(await makeAdmin(), code, { reason: 'Duplicate account.' })
    await expect(revokeCertificate(SYSTEM, code, { reason: 'again' })).rejects.toMatchObject({ status: 409 })
    expect((await listCertificates(SYSTEM, { userId: learner.id, state: 'revoked' }))[0].revokedReason).toBe(
      'Duplicate account.',
    )
  })

  it('re-issues under the learner’s new name, the old one revoked as replaced', async () => {
    const { learner, code } = await issued()
    const { User } = await db()
    await User.update({ firstName: 'Zoë', lastName: 'Renamed' }, { where: { id: learner.id } })
    expect((await publicCertificate(code)).learnerName).not.toBe('Zoë Renamed')
    const admin = await makeAdmin()
    const fresh = await reissueCertificate(admin, code)
    expect(fresh).toMatchObject({ learnerName: 'Zoë Renamed', state: 'valid' })
    const old = await certificateFor(SYSTEM, code)
    expect(old.state).toBe('revoked')
    expect(old.revokedReason).toBe(`Re-issued as ${fresh.code}.`)
    expect(learner.roleId).toBe(ROLE.learner)
  })
})

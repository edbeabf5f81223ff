import { beforeAll, describe, expect, it } from 'vitest'
import { SYSTEM, type Actor } from '#app/modules/auth/roles.ts'
import { issueDueCertificates } from '#app/modules/certificates/issue.server.ts'
import { backfillCertificates, certificatePdf, revokeCertificate } from '#app/modules/certificates/service.server.ts'
import { certificateSettings, editCertificateSettings } from '#app/modules/certificates/settings.server.ts'
import { editCourseDetails, getCourseDetail } from '#app/modules/courses/admin.server.ts'
import { ServiceError } from '#app/modules/errors.ts'
import { openFile, storeFile, sweepUnattachedFiles } from '#app/modules/files/service.server.ts'
import { storage } from '#app/modules/files/storage.server.ts'
import { deleteProgram, editProgram, getProgram } from '#app/modules/programs/service.server.ts'
import * as myCoursesPage from '#app/routes/_learner+/courses.tsx'
import * as coursePage from '#app/routes/admin+/course.$courseId.tsx'
import * as programPage from '#app/routes/admin+/program.$programId.tsx'
import * as addSignatureRoute from '#app/routes/api+/category.addCertificateSignature.ts'
import * as courseRoute from '#app/routes/api+/category.course_.$courseId.ts'
import * as editCourseRoute from '#app/routes/api+/category.editCourseDetails.ts'
import * as editProgramRoute from '#app/routes/api+/program.editProgram.$programId.ts'
import { db, query, sql } from '#db/client.ts'
import {
  assignCourse,
  makeCourse,
  makeLearner,
  makePeople,
  makeProgram,
  makeStoredFile,
  recordWatched,
} from '#tests/factories.ts'
import { gifBytes, jpegBytes, pngBytes } from '#tests/fixtures/files.ts'
import { body, call } from '#tests/requests.ts'
import { sessionCookieFor, toastOf } from '#tests/sessions.ts'

// A course's and a program's certificate settings: switched on and off by admins only (the page's form and
// the /api's edit calls), the issuer required while on, the signature image attached, replaced and removed
// without leaving files behind, kept from the upload sweep and shown to the admin side only; switching on
// gives nothing by itself unless the admin asks for those who already completed.

let as: Awaited<ReturnType<typeof makePeople<'learner' | 'coach' | 'admin'>>>
let cookies: { admin: string; coach: string }
beforeAll(async () => {
  as = await makePeople('learner', 'coach', 'admin')
  cookies = { admin: await sessionCookieFor(as.admin.userName), coach: await sessionCookieFor(as.coach.userName) }
})

const ISSUER = 'Northwind Data Academy'

/** A signature upload as addCertificateSignature leaves it: stored, attached to nothing. */
const uploadSignature = (bytes: Buffer = pngBytes({ width: 40, height: 12 }), name = 'signature.png') =>
  storeFile({
    purpose: 'certificate_signature',
    name,
    contentType: name.endsWith('.png') ? 'image/png' : 'image/jpeg',
    body: bytes,
    uploadedBy: as.admin.id,
  })

async function courseRow(id: string) {
  const { Course } = await db()
  const course = await Course.findByPk(id)
  if (!course) throw new Error('no course')
  return {
    certificates: course.certificates,
    certificateIssuer: course.certificateIssuer,
    certificateSignatureKey: course.certificateSignatureKey,
  }
}

/** Whether a stored file is gone: its row and its body. */
async function gone(key: string) {
  const { StoredFile } = await db()
  return (await StoredFile.findByPk(key)) === null && (await storage().get(key)) === undefined
}

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  if (!(error instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${String(error)}`)
  return error
}

const course = (id: string) => ({ kind: 'course' as const, id })
const program = (id: string) => ({ kind: 'program' as const, id })

/** A learner who watched the whole of a course of two 100-second videos. */
async function learnerWhoCompleted() {
  const made = await makeCourse({ videos: [{ duration: 100 }, { duration: 100 }] })
  const learner = await makeLearner()
  await assignCourse(learner.id, made.id)
  for (const video of made.videos) await recordWatched(learner.id, made.id, video, 100)
  return { course: made, learner }
}

const HELD = sql(`SELECT count(*)::int AS n FROM certificates WHERE course_id = :courseId AND revoked_at IS NULL`)
const held = async (courseId: string) => (await query<{ n: number }>(HELD, { courseId }))[0].n

/** A form as a browser posts it, files and all. */
const form = (entries: Record<string, string | File>) => {
  const data = new FormData()
  for (const [name, value] of Object.entries(entries)) data.append(name, value)
  return data
}
/** A signature picked in a file input. */
const png = () => new File([new Uint8Array(pngBytes({ width: 40, height: 12 }))], 'sig.png', { type: 'image/png' })

describe('switching certificates on and off', () => {
  it('an admin switches them on with an issuer and off again; the issuer stays for next time', async () => {
    const { id } = await makeCourse()
    expect(await certificateSettings(as.admin, course(id))).toEqual({
      certificates: false,
      issuer: '',
      signature: null,
      issued: { valid: 0, revoked: 0 },
    })
    await editCertificateSettings(as.admin, course(id), { certificates: 'true', certificateIssuer: `  ${ISSUER} ` })
    expect(await courseRow(id)).toEqual({
      certificates: true,
      certificateIssuer: ISSUER,
      certificateSignatureKey: null,
    })
    await editCertificateSettings(as.admin, course(id), { certificates: 'false', certificateIssuer: ISSUER })
    expect(await courseRow(id)).toMatchObject({ certificates: false, certificateIssuer: ISSUER })
  })

  it('refuses certificates on without an issuer, or with one that is not one line, and changes nothing', async () => {
    const { id } = await makeCourse()
    await expect(
      editCertificateSettings(as.admin, course(id), { certificates: 'true', certificateIssuer: '   ' }),
    ).rejects.toMatchObject({
      issues: [expect.objectContaining({ path: ['certificateIssuer'], message: expect.stringMatching(/issuer/) })],
    })
    await expect(
      editCertificateSettings(as.admin, course(id), { certificates: 'true', certificateIssuer: 'Data\nAcademy' }),
    ).rejects.toMatchObject({
      issues: [expect.objectContaining({ message: 'The issuer’s name is one line of text.' })],
    })
    await expect(
      editCertificateSettings(as.admin, course(id), { certificates: 'true', certificateIssuer: 'x'.repeat(201) }),
    ).rejects.toMatchObject({ issues: [expect.objectContaining({ path: ['certificateIssuer'] })] })
    // the /api's call keeps what it leaves out: on with no issuer stored is refused by the service
    const { Course } = await db()
    const row = (await Course.findByPk(id))!
    const refused = await refusal(
      editCourseDetails(as.admin, {
        courseId: id,
        title: row.title,
        description: row.description,
        courseImage: (await makeStoredFile('course_image')).key,
        certificates: true,
      }),
    )
    expect(refused).toMatchObject({ status: 400, errors: { certificateIssuer: expect.stringMatching(/issuer/) } })
    expect(await courseRow(id)).toEqual({ certificates: false, certificateIssuer: '', certificateSignatureKey: null })
  })

  it('is for admins: a coach reads the settings but may not change them, a learner does neither', async () => {
    const { id } = await makeCourse()
    const on = { certificates: 'true', certificateIssuer: ISSUER }
    expect(await refusal(editCertificateSettings(as.coach, course(id), on))).toMatchObject({ status: 403 })
    expect(await refusal(editCertificateSettings(as.learner, course(id), on))).toMatchObject({ status: 403 })
    expect(await refusal(certificateSettings(as.learner, course(id)))).toMatchObject({ status: 403 })
    expect((await certificateSettings(as.coach, course(id))).certificates).toBe(false)
    const { Course } = await db()
    const row = (await Course.findByPk(id))!
    const viaApi = { courseId: id, title: row.title, description: row.description, courseImage: 'x', ...on }
    expect(await refusal(editCourseDetails(as.coach, viaApi))).toMatchObject({ status: 403 })
    expect(await courseRow(id)).toMatchObject({ certificates: false, certificateIssuer: '' })
  })

  it('an unknown course or program is a 404', async () => {
    const on = { certificates: 'true', certificateIssuer: ISSUER }
    const missing = '00000000-0000-4000-8000-000000000000'
    expect(await refusal(editCertificateSettings(as.admin, course(missing), on))).toMatchObject({ status: 404 })
    expect(await refusal(editCertificateSettings(as.admin, program('nope'), on))).toMatchObject({ status: 404 })
  })
})

describe('learners who completed before certificates were switched on', () => {
  it('get none by switching on; the issue box queues theirs for the job, which gives them', async () => {
    const { course: made, learner } = await learnerWhoCompleted()
    await editCertificateSettings(as.admin, course(made.id), { certificates: 'true', certificateIssuer: ISSUER })
    await issueDueCertificates()
    expect(await held(made.id)).toBe(0)

    const saved = await editCertificateSettings(as.admin, course(made.id), {
      certificates: 'true',
      certificateIssuer: ISSUER,
      issueToCompleted: 'on',
    })
    expect(saved).toEqual({ certificates: true, queued: true })
    // nothing given in the admin's request: the job gives it
    expect(await held(made.id)).toBe(0)
    expect(await issueDueCertificates()).toBe(1)
    expect(await held(made.id)).toBe(1)
    const [given] = await query<{ user_id: string; issuer_name: string }>(
      sql(`SELECT user_id, issuer_name FROM certificates WHERE course_id = :courseId`),
      { courseId: made.id },
    )
    expect(given).toEqual({ user_id: learner.id, issuer_name: ISSUER })
    expect((await certificateSettings(as.admin, course(made.id))).issued).toEqual({ valid: 1, revoked: 0 })
  })

  it('the issue box needs certificates on', async () => {
    const { course: made } = await learnerWhoCompleted()
    const refused = await refusal(
      editCertificateSettings(as.admin, course(made.id), {
        certificates: 'false',
        certificateIssuer: ISSUER,
        issueToCompleted: 'on',
      }),
    )
    expect(refused).toMatchObject({ status: 400, errors: { issueToCompleted: expect.stringMatching(/Switch/) } })
    expect(await courseRow(made.id)).toMatchObject({ certificates: false })
    const [{ n }] = await query<{ n: number }>(sql(`SELECT count(*)::int AS n FROM certificate_due`), {})
    expect(n).toBe(0)
  })

  it('switching off gives no more, and leaves those given valid', async () => {
    const { course: made } = await learnerWhoCompleted()
    await editCertificateSettings(as.admin, course(made.id), { certificates: 'true', certificateIssuer: ISSUER })
    await backfillCertificates(SYSTEM, { courseId: made.id })
    await editCertificateSettings(as.admin, course(made.id), { certificates: 'false', certificateIssuer: ISSUER })
    const later = await makeLearner()
    await assignCourse(later.id, made.id)
    for (const video of made.videos) await recordWatched(later.id, made.id, video, 100)
    await issueDueCertificates()
    expect((await certificateSettings(as.coach, course(made.id))).issued).toEqual({ valid: 1, revoked: 0 })
  })
})

describe('the signature image', () => {
  it('is attached, replaced and removed, and a replaced or removed one leaves no file behind', async () => {
    const { id } = await makeCourse()
    const first = await uploadSignature()
    const on = { certificates: 'true', certificateIssuer: ISSUER }
    await editCertificateSettings(as.admin, course(id), { ...on, certificateSignature: JSON.stringify(first) })
    expect((await courseRow(id)).certificateSignatureKey).toBe(first.key)
    expect((await certificateSettings(as.admin, course(id))).signature).toEqual({
      key: first.key,
      link: first.link,
      name: 'signature.png',
    })

    // the current one posted back (the form's hidden field) keeps it
    await editCertificateSettings(as.admin, course(id), { ...on, certificateSignature: JSON.stringify(first) })
    expect((await courseRow(id)).certificateSignatureKey).toBe(first.key)
    expect(await gone(first.key)).toBe(false)

    const second = await uploadSignature(pngBytes({ width: 60, height: 20 }), 'new.png')
    // a new file wins over the remove box
    await editCertificateSettings(as.admin, course(id), {
      ...on,
      certificateSignature: second.key,
      removeCertificateSignature: 'on',
    })
    expect((await courseRow(id)).certificateSignatureKey).toBe(second.key)
    expect(await gone(first.key)).toBe(true)

    await editCertificateSettings(as.admin, course(id), {
      ...on,
      certificateSignature: JSON.stringify(second),
      removeCertificateSignature: 'on',
    })
    expect((await courseRow(id)).certificateSignatureKey).toBeNull()
    expect(await gone(second.key)).toBe(true)
  })

  it('a replaced or removed signature that issued certificates show is kept for them, then freed with the last', async () => {
    const on = { certificates: 'true', certificateIssuer: ISSUER }
    const { course: made } = await learnerWhoCompleted()
    const first = await uploadSignature()
    await editCertificateSettings(as.admin, course(made.id), {
      ...on,
      certificateSignature: JSON.stringify(first),
      issueToCompleted: 'on',
    })
    expect(await issueDueCertificates()).toBe(1)
    const second = await uploadSignature()
    await editCertificateSettings(as.admin, course(made.id), { ...on, certificateSignature: JSON.stringify(second) })
    expect((await courseRow(made.id)).certificateSignatureKey).toBe(second.key)
    // the certificate still draws the signature it was issued with
    expect(await gone(first.key)).toBe(false)
    const [kept] = await query<{ signature_key: string | null }>(
      sql(`SELECT signature_key FROM certificates WHERE course_id = :courseId`),
      { courseId: made.id },
    )
    expect(kept.signature_key).toBe(first.key)
    // the new one, no certificate's yet, goes when removed
    await editCertificateSettings(as.admin, course(made.id), { ...on, removeCertificateSignature: 'on' })
    expect(await gone(second.key)).toBe(true)
    expect(await gone(first.key)).toBe(false)
  })

  it('through the /api: null removes it, left out keeps it', async () => {
    const { id } = await makeCourse()
    const { Course } = await db()
    const image = await makeStoredFile('course_image')
    const fields = async () => {
      const row = (await Course.findByPk(id))!
      return { courseId: id, title: row.title, description: row.description, courseImage: image.key }
    }
    const signature = await uploadSignature()
    const edited = await editCourseDetails(as.admin, {
      ...(await fields()),
      certificates: true,
      certificateIssuer: ISSUER,
      certificateSignature: signature.key,
    })
    expect(edited).toMatchObject({
      certificates: true,
      certificateIssuer: ISSUER,
      certificateSignature: { key: signature.key, name: 'signature.png' },
    })
    await editCourseDetails(as.admin, { ...(await fields()), title: 'Renamed' })
    expect(await courseRow(id)).toEqual({
      certificates: true,
      certificateIssuer: ISSUER,
      certificateSignatureKey: signature.key,
    })
    const removed = await editCourseDetails(as.admin, { ...(await fields()), certificateSignature: null })
    expect(removed.certificateSignature).toBeNull()
    expect(await gone(signature.key)).toBe(true)
  })

  it('refuses a file that is no signature upload, another course’s signature, and an image the PDF cannot draw', async () => {
    const { id } = await makeCourse()
    const other = await makeCourse()
    const on = { certificates: 'true', certificateIssuer: ISSUER }
    const image = await makeStoredFile('course_image')
    expect(
      await refusal(editCertificateSettings(as.admin, course(id), { ...on, certificateSignature: image.key })),
    ).toMatchObject({ status: 400, errors: { certificateSignature: 'Choose a signature image.' } })

    const taken = await uploadSignature()
    await editCertificateSettings(as.admin, course(other.id), { ...on, certificateSignature: taken.key })
    expect(
      await refusal(editCertificateSettings(as.admin, course(id), { ...on, certificateSignature: taken.key })),
    ).toMatchObject({ status: 409, errors: { certificateSignature: expect.stringMatching(/another course/) } })

    // a JPEG's head with no picture in it: its type checks out, but nothing can be drawn
    const broken = await uploadSignature(jpegBytes(), 'broken.jpg')
    expect(
      await refusal(editCertificateSettings(as.admin, course(id), { ...on, certificateSignature: broken.key })),
    ).toMatchObject({ status: 400, errors: { certificateSignature: expect.stringMatching(/cannot be read/) } })
    expect(await courseRow(id)).toEqual({ certificates: false, certificateIssuer: '', certificateSignatureKey: null })
  })

  it('is kept by the sweep of unattached uploads while a course or program has it', async () => {
    const { id } = await makeCourse()
    const programId = (await makeProgram([id])).id
    const on = { certificates: 'true', certificateIssuer: ISSUER }
    const forCourse = await uploadSignature()
    const forProgram = await uploadSignature()
    const loose = await uploadSignature()
    await editCertificateSettings(as.admin, course(id), { ...on, certificateSignature: forCourse.key })
    await editCertificateSettings(as.admin, program(programId), { ...on, certificateSignature: forProgram.key })
    // every file older than a cutoff a minute ahead: only what nothing uses goes
    await sweepUnattachedFiles({ olderThanMs: -60_000 })
    expect(await gone(loose.key)).toBe(true)
    expect(await gone(forCourse.key)).toBe(false)
    expect(await gone(forProgram.key)).toBe(false)
  })

  it('opens for the admin side only, and is drawn into the certificate’s PDF for its learner', async () => {
    const { course: made, learner } = await learnerWhoCompleted()
    const signature = await uploadSignature(pngBytes({ width: 80, height: 30, noise: true }))
    await editCertificateSettings(as.admin, course(made.id), {
      certificates: 'true',
      certificateIssuer: ISSUER,
      certificateSignature: signature.key,
    })
    for (const actor of [as.admin, as.coach]) {
      const opened = await openFile(actor, signature.key)
      opened.body.destroy()
      expect(opened.contentType).toBe('image/png')
    }
    for (const actor of [as.learner, learner, undefined] as (Actor | undefined)[])
      expect(await refusal(openFile(actor, signature.key))).toMatchObject({ status: 404 })

    const [given] = (await backfillCertificates(SYSTEM, { courseId: made.id })).issued
    const withSignature = await certificatePdf(learner, given.code!)
    await editCertificateSettings(as.admin, course(made.id), {
      certificates: 'true',
      certificateIssuer: ISSUER,
      removeCertificateSignature: 'on',
    })
    // the certificate keeps the signature it was issued with; one issued after the removal has none
    expect((await certificatePdf(learner, given.code!)).bytes).toEqual(withSignature.bytes)
    const later = await makeLearner()
    await assignCourse(later.id, made.id)
    for (const video of made.videos) await recordWatched(later.id, made.id, video, 100)
    const [laterGiven] = (await backfillCertificates(SYSTEM, { courseId: made.id })).issued
    const without = await certificatePdf(later, laterGiven.code!)
    // the image's bytes make the difference
    expect(withSignature.bytes.length).toBeGreaterThan(without.bytes.length + 1000)
  })
})

describe('programs', () => {
  it('are switched on the same way, through the page’s form and the /api’s edit call', async () => {
    const courseId = (await makeCourse()).id
    const { id } = await makeProgram([courseId])
    await editCertificateSettings(as.admin, program(id), { certificates: 'true', certificateIssuer: ISSUER })
    expect(await getProgram(as.coach, id)).toMatchObject({ certificates: true, certificateIssuer: ISSUER })

    const signature = await uploadSignature()
    const current = await getProgram(as.admin, id)
    const edited = await editProgram(as.admin, {
      programId: id,
      title: current.title,
      path: 'Data',
      learningPath: 'Engineering',
      duration: '4 weeks',
      description: 'A program.',
      price: 10,
      courses: [courseId],
      certificateIssuer: 'Contoso Learning',
      certificateSignature: signature.key,
    })
    expect(edited).toMatchObject({
      certificates: true,
      certificateIssuer: 'Contoso Learning',
      certificateSignature: { key: signature.key },
    })
    const refused = await refusal(
      editProgram(as.admin, {
        programId: id,
        title: current.title,
        path: 'Data',
        learningPath: 'Engineering',
        duration: '4 weeks',
        description: 'A program.',
        price: 10,
        courses: [courseId],
        certificateIssuer: '',
      }),
    )
    expect(refused).toMatchObject({ status: 400, errors: { certificateIssuer: expect.stringMatching(/issuer/) } })
  })

  it('a program deleted takes its signature file with it', async () => {
    const { id } = await makeProgram([(await makeCourse()).id])
    const signature = await uploadSignature()
    await editCertificateSettings(as.admin, program(id), {
      certificates: 'true',
      certificateIssuer: ISSUER,
      certificateSignature: signature.key,
    })
    await deleteProgram(as.admin, { programId: id })
    expect(await gone(signature.key)).toBe(true)
  })
})

describe('the /api', () => {
  it('the /api takes a signature upload from admins only, PNG or JPEG', async () => {
    const upload = (file: File, token?: string) =>
      call(addSignatureRoute.action as never, '/api/category/addCertificateSignature', {
        method: 'POST',
        body: form({ certificateSignature: file }),
        token,
      })
    const accepted = await upload(png(), as.admin.token)
    expect(accepted.status).toBe(200)
    const { fileInfo } = await body<{ fileInfo: { key: string; name: string } }>(accepted)
    const { StoredFile } = await db()
    expect((await StoredFile.findByPk(fileInfo.key))?.purpose).toBe('certificate_signature')
    const gif = new File([new Uint8Array(gifBytes())], 'sig.gif', { type: 'image/gif' })
    expect((await upload(gif, as.admin.token)).status).toBe(415)
    expect((await upload(png(), as.coach.token)).status).toBe(403)
    expect((await upload(png(), as.learner.token)).status).toBe(403)
  })

  it('the /api’s edit calls take the settings; the admin side reads them, a learner does not', async () => {
    const { id } = await makeCourse()
    await assignCourse(as.learner.id, id)
    const image = await makeStoredFile('course_image')
    const edited = await call(editCourseRoute.action as never, '/api/category/editCourseDetails', {
      method: 'PUT',
      json: {
        courseId: id,
        title: 'Certified Course',
        description: 'With certificates.',
        courseImage: image.key,
        certificates: true,
        certificateIssuer: ISSUER,
      },
      token: as.admin.token,
    })
    expect(edited.status).toBe(200)
    expect((await body<{ course: object }>(edited)).course).toMatchObject({
      certificates: true,
      certificateIssuer: ISSUER,
      certificateSignature: null,
    })
    const asLearner = await body<{ message: Record<string, unknown> }>(
      await call(courseRoute.loader as never, `/api/category/course/${id}`, {
        params: { courseId: id },
        token: as.learner.token,
      }),
    )
    expect(asLearner.message).not.toHaveProperty('certificates')
    expect(asLearner.message).not.toHaveProperty('certificateIssuer')
    expect((await getCourseDetail(as.coach, id)).certificateIssuer).toBe(ISSUER)

    const programId = (await makeProgram([id])).id
    const refused = await call(editProgramRoute.action as never, `/api/program/editProgram/${programId}`, {
      method: 'PUT',
      json: {
        title: 'P',
        path: 'p',
        learningPath: 'l',
        duration: 'd',
        description: 'x',
        price: 1,
        courses: [id],
        certificates: true,
      },
      params: { programId },
      token: as.admin.token,
    })
    expect(refused.status).toBe(400)
    expect(await body(refused)).toMatchObject({ errors: { certificateIssuer: expect.stringMatching(/issuer/) } })
  })
})

describe('the admin pages, without JavaScript', () => {
  it('the course page’s form switches them on with a signature posted with it, without JavaScript', async () => {
    const { id } = await makeCourse()
    const path = `/admin/course/${id}?tab=videos&edit=certificates&intent=certificates`
    const saved = await call(coursePage.action as never, path, {
      method: 'POST',
      body: form({ certificates: 'true', certificateIssuer: ISSUER, certificateSignature: png() }),
      params: { courseId: id },
      headers: { Cookie: cookies.admin },
    })
    expect(saved.status).toBe(302)
    expect(saved.headers.get('Location')).toBe(`/admin/course/${id}?tab=videos`)
    expect(await toastOf(saved)).toMatchObject({ message: 'Certificate settings saved: certificates are on.' })
    const row = await courseRow(id)
    expect(row).toMatchObject({ certificates: true, certificateIssuer: ISSUER })
    expect(row.certificateSignatureKey).toMatch(/\.png$/)

    const loaded = await call(coursePage.loader as never, `/admin/course/${id}`, {
      params: { courseId: id },
      headers: { Cookie: cookies.coach },
    })
    expect(await body(loaded)).toMatchObject({
      canEdit: false,
      certificates: { certificates: true, issuer: ISSUER, issued: { valid: 0, revoked: 0 } },
    })
  })

  it('the form’s refusals come back beside their fields, and leave no uploaded file behind', async () => {
    const { id } = await makeCourse()
    const { StoredFile } = await db()
    const files = await StoredFile.count()
    const path = `/admin/course/${id}?edit=certificates&intent=certificates`
    const refused = await call(coursePage.action as never, path, {
      method: 'POST',
      body: form({ certificates: 'true', certificateIssuer: '', certificateSignature: png() }),
      params: { courseId: id },
      headers: { Cookie: cookies.admin },
    })
    expect(refused.status).toBe(400)
    const reply = await body<{ result: { error: Record<string, string[]> } }>(refused)
    expect(reply.result.error.certificateIssuer).toEqual(['Enter the issuer’s name: every certificate states it.'])
    const gif = new File([new Uint8Array(gifBytes())], 'sig.gif', { type: 'image/gif' })
    const wrongType = await call(coursePage.action as never, path, {
      method: 'POST',
      body: form({ certificates: 'true', certificateIssuer: ISSUER, certificateSignature: gif }),
      params: { courseId: id },
      headers: { Cookie: cookies.admin },
    })
    expect(wrongType.status).toBe(415)
    expect(await StoredFile.count()).toBe(files)
    expect(await courseRow(id)).toMatchObject({ certificates: false })
  })

  it('a coach posting the course’s or program’s form changes nothing', async () => {
    const { id } = await makeCourse()
    const programId = (await makeProgram([id])).id
    for (const [page, url, params] of [
      [coursePage, `/admin/course/${id}?intent=certificates`, { courseId: id }],
      [programPage, `/admin/program/${programId}?intent=certificates`, { programId }],
    ] as const) {
      const response = await call(page.action as never, url, {
        method: 'POST',
        body: form({ certificates: 'true', certificateIssuer: ISSUER }),
        params,
        headers: { Cookie: cookies.coach },
      })
      expect(response.status).toBe(302)
      expect(await toastOf(response)).toMatchObject({ type: 'error' })
    }
    expect(await courseRow(id)).toMatchObject({ certificates: false })
    expect(await getProgram(as.admin, programId)).toMatchObject({ certificates: false })
  })

  it('the program page’s form switches them on and queues those who completed', async () => {
    const { id } = await makeProgram([(await makeCourse()).id])
    const saved = await call(
      programPage.action as never,
      `/admin/program/${id}?edit=certificates&intent=certificates`,
      {
        method: 'POST',
        body: form({ certificates: 'true', certificateIssuer: ISSUER, issueToCompleted: 'on' }),
        params: { programId: id },
        headers: { Cookie: cookies.admin },
      },
    )
    expect(saved.headers.get('Location')).toBe(`/admin/program/${id}`)
    expect(await toastOf(saved)).toMatchObject({ message: expect.stringMatching(/in the background/) })
    const due = await query<{ program_id: string }>(sql(`SELECT program_id FROM certificate_due`), {})
    expect(due).toContainEqual({ program_id: id })
    await issueDueCertificates()
  })
})

describe('My Courses', () => {
  it('links a course card to the learner’s valid certificate, and not once it is revoked', async () => {
    const { course: made, learner } = await learnerWhoCompleted()
    const other = await makeCourse({ videos: [{ duration: 100 }] })
    await assignCourse(learner.id, other.id)
    await editCertificateSettings(as.admin, course(made.id), { certificates: 'true', certificateIssuer: ISSUER })
    const [given] = (await backfillCertificates(SYSTEM, { courseId: made.id })).issued
    const cookie = await sessionCookieFor(learner.userName)
    const load = async () =>
      (await body<{ certified: Record<string, string> }>(
        await call(myCoursesPage.loader as never, '/courses', { headers: { Cookie: cookie } }),
      ))!.certified
    expect(await load()).toEqual({ [made.id]: given.code })
    await revokeCertificate(SYSTEM, given.code!, { reason: 'Issued by mistake.' })
    expect(await load()).toEqual({})
  })
})

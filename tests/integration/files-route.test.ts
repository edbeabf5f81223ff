import contentDisposition from 'content-disposition'
import { beforeAll, describe, expect, it } from 'vitest'
import * as fileRoute from '#app/routes/files.$key.ts'
import { db } from '#db/client.ts'
import {
  assignCourse,
  makeAdmin,
  makeCoach,
  makeCourse,
  makeDocument,
  makeLearner,
  makeStoredFile,
} from '#tests/factories.ts'
import { call } from '#tests/requests.ts'
import { sessionCookieFor } from '#tests/sessions.ts'

// GET /files/{key} (docs/product.md#uploads-and-assessments): who may fetch a stored file, by cookie session or Bearer
// token, and the headers it is served with.

type Learner = Awaited<ReturnType<typeof makeLearner>>

const fetchFile = (key: string, auth: { cookie?: string; token?: string } = {}) =>
  call(fileRoute.loader as never, `/files/${key}`, {
    params: { key },
    headers: auth.cookie ? { Cookie: auth.cookie } : {},
    token: auth.token,
  })

/** Refused the way every refusal looks: a 404 that says nothing about the file. */
async function expectMissing(response: Response, what: string) {
  expect(response.status, what).toBe(404)
  expect(await response.json(), what).toEqual({ message: 'File not found.' })
  expect(response.headers.get('Content-Disposition'), what).toBeNull()
}

let learner: Learner
let learnerCookie: string
let assignedCourse: string
let documentKey: string
let otherDocumentKey: string

beforeAll(async () => {
  learner = await makeLearner()
  learnerCookie = await sessionCookieFor(learner.userName)
  assignedCourse = (await makeCourse()).id
  await assignCourse(learner.id, assignedCourse)
  documentKey = (await makeDocument(assignedCourse, { name: 'assigned-notes.pdf' })).fileKey
  otherDocumentKey = (await makeDocument((await makeCourse()).id, { name: 'other-notes.pdf' })).fileKey
})

/** A learner's assessment upload registered against a scenario of their course. */
async function makeAssessment(owner: Learner, courseId: string) {
  const scenario = await makeDocument(courseId, { kind: 'scenario' })
  const file = await makeStoredFile('assessment', { uploadedBy: owner.id, name: 'my-answer.pdf' })
  const { AssessmentUpload } = await db()
  await AssessmentUpload.create({ userId: owner.id, courseId, scenarioId: scenario.id, fileKey: file.key })
  return file
}

describe('GET /files/{key}', () => {
  it('refuses anonymous callers a course document, and a token that is not one', async () => {
    await expectMissing(await fetchFile(documentKey), 'anonymous')
    await expectMissing(await fetchFile(documentKey, { token: 'not-a-token' }), 'bad token')
    // course images are public: the refusal is the document's
    const image = await makeStoredFile('course_image')
    const served = await fetchFile(image.key)
    expect(served.status).toBe(200)
    expect(served.headers.get('Content-Type')).toBe('image/png')
  })

  it('gives a learner the document of an assigned course, and not of another course', async () => {
    const response = await fetchFile(documentKey, { cookie: learnerCookie })
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('application/pdf')
    const bytes = Buffer.from(await response.arrayBuffer())
    expect(bytes.toString()).toMatch(/^%PDF-/)
    expect(response.headers.get('Content-Length')).toBe(String(bytes.length))

    await expectMissing(await fetchFile(otherDocumentKey, { cookie: learnerCookie }), 'unassigned course')
    // the admin side reads any course's documents
    const coach = await makeCoach()
    expect((await fetchFile(otherDocumentKey, { token: coach.token })).status).toBe(200)
  })

  it('gives a learner their own assessment upload but not another learner’s', async () => {
    const owner = await makeLearner()
    await assignCourse(owner.id, assignedCourse)
    const upload = await makeAssessment(owner, assignedCourse)
    const mine = await fetchFile(upload.key, { cookie: await sessionCookieFor(owner.userName) })
    expect(mine.status).toBe(200)
    expect(contentDisposition.parse(mine.headers.get('Content-Disposition') ?? '').parameters.filename).toBe(
      'my-answer.pdf',
    )
    // same course, still not theirs
    await expectMissing(await fetchFile(upload.key, { cookie: learnerCookie }), 'another learner, cookie')
    await expectMissing(await fetchFile(upload.key, { token: learner.token }), 'another learner, token')
    expect((await fetchFile(upload.key, { token: (await makeAdmin()).token })).status).toBe(200)
  })

  it('serves with nosniff and a Content-Disposition naming the file: inline for a PDF, attachment otherwise', async () => {
    const pdf = await fetchFile(documentKey, { cookie: learnerCookie })
    expect(pdf.headers.get('X-Content-Type-Options')).toBe('nosniff')
    expect(contentDisposition.parse(pdf.headers.get('Content-Disposition') ?? '')).toEqual({
      type: 'inline',
      parameters: { filename: 'assigned-notes.pdf' },
    })

    // a type a browser would run or render is never shown inline
    const html = await makeStoredFile('document', { name: 'page "one".html', contentType: 'text/html' })
    const { ContentEntry } = await db()
    await ContentEntry.create({
      courseId: assignedCourse,
      kind: 'document',
      orderId: 5,
      title: html.name,
      fileKey: html.key,
      visibility: true,
    })
    const served = await fetchFile(html.key, { cookie: learnerCookie })
    expect(served.status).toBe(200)
    expect(served.headers.get('X-Content-Type-Options')).toBe('nosniff')
    expect(contentDisposition.parse(served.headers.get('Content-Disposition') ?? '')).toEqual({
      type: 'attachment',
      parameters: { filename: 'page "one".html' },
    })
  })

  it('accepts a Bearer token as the cookie session (and a bare token)', async () => {
    const byToken = await fetchFile(documentKey, { token: learner.token })
    expect(byToken.status).toBe(200)
    expect(Buffer.from(await byToken.arrayBuffer()).toString()).toMatch(/^%PDF-/)
    const bare = await call(fileRoute.loader as never, `/files/${documentKey}`, {
      params: { key: documentKey },
      headers: { Authorization: learner.token },
    })
    expect(bare.status).toBe(200)
    await expectMissing(await fetchFile(otherDocumentKey, { token: learner.token }), 'unassigned course, token')
  })
})

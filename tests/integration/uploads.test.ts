import { mkdtemp, readdir, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SYSTEM, type Actor } from '#app/modules/auth/roles.ts'
import { ServiceError } from '#app/modules/errors.ts'
import { s3Storage } from '#app/modules/files/s3-storage.server.ts'
import {
  openFile,
  removeStoredFile,
  storeFile,
  sweepUnattachedFiles,
  type FileInfo,
} from '#app/modules/files/service.server.ts'
import { storage } from '#app/modules/files/storage.server.ts'
import { receiveUpload, type ReceiveUploadOptions } from '#app/modules/files/upload.server.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { db, sequelize } from '#db/client.ts'
import { useEnv } from '#tests/env.ts'
import { assignCourse, makeAdmin, makeCoach, makeCourse, makeLearner, makeProgram } from '#tests/factories.ts'
import { docxBytes, elfBytes, pdfBytes, plainZipBytes, pngBytes, readBody, useS3rver } from '#tests/fixtures/files.ts'
import { multipartRequest } from '#tests/requests.ts'

const URL = 'http://portal.test/api/category/addCourseImage'
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'

// Temporary upload files go to os.tmpdir(); this file gets a folder of its own so that "nothing was
// left behind" can be checked without seeing other test files' uploads.
let tmpDir: string
const savedTmpDir = process.env.TMPDIR
let admin: Actor
let learner: Actor

beforeAll(async () => {
  tmpDir = await mkdtemp(path.join(os.tmpdir(), 'portal-uploads-tmp-'))
  process.env.TMPDIR = tmpDir
  admin = await makeAdmin()
  learner = await makeLearner()
})

afterAll(async () => {
  if (savedTmpDir === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = savedTmpDir
  await rm(tmpDir, { recursive: true, force: true })
})

function formRequest(parts: Record<string, string | File>) {
  const form = new FormData()
  for (const [name, value] of Object.entries(parts)) form.append(name, value)
  return multipartRequest(URL, form)
}

const file = (bytes: Uint8Array, name: string, type = 'application/octet-stream') =>
  new File([new Uint8Array(bytes)], name, { type })

/**
 * The same request, its body delivered in 16 KiB pieces as a socket would (an in-memory FormData
 * comes out in very large chunks) and counted: how far did the server read?
 */
function counting(request: Request) {
  const reader = request.body!.getReader()
  const counter = { bytes: 0 }
  let pending = new Uint8Array(0)
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending.length === 0) {
        const { done, value } = await reader.read()
        if (done) return controller.close()
        pending = value
      }
      const piece = pending.subarray(0, 16 * 1024)
      pending = pending.subarray(piece.length)
      counter.bytes += piece.byteLength
      controller.enqueue(piece)
    },
  })
  const init = { method: 'POST', headers: request.headers, body, duplex: 'half' }
  return { request: new Request(URL, init as RequestInit), counter }
}

const imageUpload = (actor: Actor = admin): ReceiveUploadOptions => ({
  kind: 'courseImage',
  fileFields: ['courseImage', 'courseDocument'],
  actor,
})

async function refusal(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ServiceError)
  return error as ServiceError
}

/** What an upload can leave behind: rows, bodies on disk, temporary files. */
async function leftovers() {
  const { StoredFile } = await db()
  const list = (dir: string) => readdir(dir).catch(() => [] as string[])
  return {
    rows: await StoredFile.count(),
    bodies: (await list(path.join(getEnv().DATA_DIR, 'uploads'))).length,
    temporary: await list(tmpDir),
  }
}

async function expectNothingStored(before: Awaited<ReturnType<typeof leftovers>>) {
  const after = await leftovers()
  expect(after.rows).toBe(before.rows)
  expect(after.bodies).toBe(before.bodies)
  expect(after.temporary).toEqual([])
}

async function storedBody(info: FileInfo) {
  const stored = await storage().get(info.key)
  expect(stored).toBeDefined()
  return readBody(stored!.body)
}

describe('receiveUpload', () => {
  test('an accepted image is stored (row and body) and described, with the text fields', async () => {
    const png = pngBytes({ width: 30, height: 20 })
    const { file: info, fields } = await receiveUpload(
      formRequest({ title: 'SQL basics', courseImage: file(png, 'cover.png', 'image/png'), note: 'ünïcode' }),
      imageUpload(),
    )
    expect(info.name).toBe('cover.png')
    expect(info.key).toMatch(/^[0-9a-f-]{36}\.png$/)
    expect(info.link).toBe(`/files/${info.key}`)
    expect(fields).toEqual({ title: 'SQL basics', note: 'ünïcode' })

    const { StoredFile } = await db()
    const row = await StoredFile.findByPk(info.key)
    expect(row).toMatchObject({
      name: 'cover.png',
      contentType: 'image/png',
      size: png.length,
      purpose: 'course_image',
      uploadedBy: admin.id,
    })
    expect((await storedBody(info)).equals(png)).toBe(true)
    expect(await readdir(tmpDir)).toEqual([])
  })

  test('any file name is accepted and kept as sent: `=`, `;`, quotes, non-ASCII, a path', async () => {
    const pdf = await pdfBytes()
    const names = {
      'Q1; report.pdf': 'Q1; report.pdf',
      'a=b; c=d.pdf': 'a=b; c=d.pdf',
      'budget "final".pdf': 'budget "final".pdf',
      "l'été à Zürich — 第1章.pdf": "l'été à Zürich — 第1章.pdf",
      'C:\\Users\\me\\notes.pdf': 'notes.pdf',
      'two\nlines.pdf': 'two lines.pdf',
      'emoji 📊 100%.pdf': 'emoji 📊 100%.pdf',
      'invoice\u202efdp.exe.pdf': 'invoicefdp.exe.pdf',
    }
    for (const [sent, kept] of Object.entries(names)) {
      const { file: info } = await receiveUpload(formRequest({ courseDocument: file(pdf, sent) }), {
        kind: 'document',
        fileFields: ['courseDocument'],
        actor: admin,
      })
      expect(info.name, sent).toBe(kept)
      const { StoredFile } = await db()
      expect((await StoredFile.findByPk(info.key))?.name, sent).toBe(kept)
      expect(info.key, sent).toMatch(/^[0-9a-f-]{36}\.pdf$/)
    }
  })

  test('a file name given as RFC 5987 filename* (UTF-8) is read as such', async () => {
    const pdf = await pdfBytes()
    const boundary = 'rfc5987'
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="courseDocument"; filename="fallback.pdf"; ` +
          `filename*=UTF-8''Q1%3B%20r%C3%A9sum%C3%A9.pdf\r\nContent-Type: application/pdf\r\n\r\n`,
      ),
      pdf,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ])
    const request = new Request(URL, {
      method: 'POST',
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body,
    })
    const { file: info } = await receiveUpload(request, {
      kind: 'document',
      fileFields: ['courseDocument'],
      actor: admin,
    })
    expect(info.name).toBe('Q1; résumé.pdf')
  })

  test('the type stored is the one the content shows, not the one the browser claimed', async () => {
    const pdf = await pdfBytes()
    const { file: info } = await receiveUpload(formRequest({ courseDocument: file(pdf, 'notes.pdf', 'image/png') }), {
      kind: 'document',
      fileFields: ['courseDocument'],
      actor: admin,
    })
    const { StoredFile } = await db()
    expect(await StoredFile.findByPk(info.key)).toMatchObject({ contentType: 'application/pdf', purpose: 'document' })
  })

  test('the second reading of the image field (courseDocument) is accepted too', async () => {
    const png = pngBytes()
    const { file: info } = await receiveUpload(formRequest({ courseDocument: file(png, 'cover.png') }), imageUpload())
    expect((await storedBody(info)).equals(png)).toBe(true)
  })

  test('only the first file is kept; a file under another field is ignored', async () => {
    const first = pngBytes({ width: 3, height: 3 })
    const before = await leftovers()
    const { file: info } = await receiveUpload(
      formRequest({
        other: file(elfBytes(), 'other.png'),
        courseImage: file(first, 'first.png'),
        courseDocument: file(pngBytes({ width: 5, height: 5 }), 'second.png'),
      }),
      imageUpload(),
    )
    expect(info.name).toBe('first.png')
    expect((await storedBody(info)).equals(first)).toBe(true)
    expect((await leftovers()).rows).toBe(before.rows + 1)
  })

  test('a docx whose telling parts lie beyond the first bytes is checked whole and accepted', async () => {
    const docx = docxBytes({ leadingBytes: 50_000 })
    const { file: info } = await receiveUpload(formRequest({ doc: file(docx, 'brief.docx') }), {
      kind: 'assessment',
      fileFields: ['doc'],
      actor: learner,
    })
    const { StoredFile } = await db()
    expect(await StoredFile.findByPk(info.key)).toMatchObject({ contentType: DOCX, purpose: 'assessment' })
    expect((await storedBody(info)).equals(docx)).toBe(true)
  })

  test('a zip renamed .docx is refused after the whole-file check, and nothing is left', async () => {
    const before = await leftovers()
    const zip = Buffer.concat([plainZipBytes(), Buffer.alloc(20_000)])
    const error = await refusal(
      receiveUpload(formRequest({ doc: file(zip, 'fake.docx') }), {
        kind: 'document',
        fileFields: ['doc'],
        actor: admin,
      }),
    )
    expect(error.status).toBe(415)
    await expectNothingStored(before)
  })

  test('a wrong type is refused with 415 before the rest is read, and nothing is stored', async () => {
    const before = await leftovers()
    const disguised = Buffer.concat([elfBytes(), Buffer.alloc(2 * 1024 * 1024, 0x90)])
    const { request, counter } = counting(formRequest({ courseImage: file(disguised, 'cat.png', 'image/png') }))
    const error = await refusal(receiveUpload(request, imageUpload()))
    expect(error.status).toBe(415)
    expect(error.message).toBe('Only png, gif and jpeg images are accepted.')
    expect(counter.bytes).toBeLessThan(256 * 1024) // of about 2 MB
    await expectNothingStored(before)
  })

  test('a document of the wrong type names the accepted types', async () => {
    const error = await refusal(
      receiveUpload(formRequest({ courseDocument: file(pngBytes(), 'picture.pdf') }), {
        kind: 'document',
        fileFields: ['courseDocument'],
        actor: admin,
      }),
    )
    expect(error.status).toBe(415)
    expect(error.message).toBe('Only csv, pdf, docx, ppt and pptx files are accepted.')
  })

  describe('with a small image limit', () => {
    useEnv({ UPLOAD_MAX_IMAGE_MB: '0.05' }) // 52,428 bytes

    test('an image over the limit is refused with 413 as soon as it passes it, and nothing is stored', async () => {
      const before = await leftovers()
      const big = pngBytes({ width: 700, height: 700, noise: true }) // about 2 MB, incompressible
      expect(big.length).toBeGreaterThan(1024 * 1024)
      const { request, counter } = counting(formRequest({ courseImage: file(big, 'big.png', 'image/png') }))
      const error = await refusal(receiveUpload(request, imageUpload()))
      expect(error.status).toBe(413)
      expect(error.message).toBe('The file is larger than 0.05 MB.')
      expect(counter.bytes).toBeLessThan(256 * 1024) // of about 2 MB
      await expectNothingStored(before)
    })

    test('an image just under the limit is accepted', async () => {
      const png = pngBytes({ width: 100, height: 100, noise: true }) // about 40 KB
      expect(png.length).toBeLessThan(0.05 * 1024 * 1024)
      const { file: info } = await receiveUpload(formRequest({ courseImage: file(png, 'ok.png') }), imageUpload())
      expect((await storedBody(info)).equals(png)).toBe(true)
    })

    test('a Content-Length over the limit is refused before the body is read', async () => {
      let pulls = 0
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulls++
          if (pulls > 1) throw new Error('the body was read past its first chunk')
          controller.enqueue(new TextEncoder().encode('--boundary\r\n'))
        },
      })
      const init = {
        method: 'POST',
        headers: {
          'Content-Type': 'multipart/form-data; boundary=boundary',
          'Content-Length': String(10 * 1024 * 1024),
        },
        body,
        duplex: 'half',
      }
      const error = await refusal(receiveUpload(new Request(URL, init as RequestInit), imageUpload()))
      expect(error.status).toBe(413)
      expect(pulls).toBeLessThanOrEqual(1)
    })

    test('a body over the limit is refused even without a Content-Length (a long text field)', async () => {
      const before = await leftovers()
      const error = await refusal(
        receiveUpload(
          formRequest({ padding: 'x'.repeat(200_000), courseImage: file(pngBytes(), 'cover.png') }),
          imageUpload(),
        ),
      )
      expect(error.status).toBe(413)
      await expectNothingStored(before)
    })
  })

  test('a form without its file is a 400 with the field error, for images and documents', async () => {
    const image = await refusal(receiveUpload(formRequest({ title: 'No image' }), imageUpload()))
    expect(image.status).toBe(400)
    expect(image.message).toBe('Please Upload the Image.')
    expect(image.errors).toEqual({ courseImage: 'Please Upload the Image.' })

    const document = await refusal(
      receiveUpload(formRequest({ courseDocument: file(new Uint8Array(0), '') }), {
        kind: 'assessment',
        fileFields: ['courseDocument'],
        actor: learner,
      }),
    )
    expect(document.status).toBe(400)
    expect(document.errors).toEqual({ courseDocument: 'Please Upload a document' })
  })

  test('an empty file is a 400', async () => {
    const before = await leftovers()
    const error = await refusal(
      receiveUpload(formRequest({ courseImage: file(new Uint8Array(0), 'a.png') }), imageUpload()),
    )
    expect(error.status).toBe(400)
    expect(error.errors).toEqual({ courseImage: 'The file is empty.' })
    await expectNothingStored(before)
  })

  test('a request that is not multipart is a 400', async () => {
    const request = new Request(URL, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"courseImage":"x"}',
    })
    const error = await refusal(receiveUpload(request, imageUpload()))
    expect(error.status).toBe(400)
    expect(error.message).toMatch(/multipart\/form-data/)
  })

  test('a malformed multipart body is a 400 and leaves nothing', async () => {
    const before = await leftovers()
    const request = new Request(URL, {
      method: 'POST',
      headers: { 'Content-Type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="courseImage"; filename="a.png"\r\n\r\n\x89PNG',
    })
    const error = await refusal(receiveUpload(request, imageUpload()))
    expect(error.status).toBe(400)
    await expectNothingStored(before)
  })

  test('only the admin side that may edit uploads images and documents; assessments only a learner', async () => {
    const learnerImage = await refusal(
      receiveUpload(formRequest({ courseImage: file(pngBytes(), 'a.png') }), imageUpload(learner)),
    )
    expect(learnerImage.status).toBe(403)
    const coach = await makeCoach()
    const coachDocument = await refusal(
      receiveUpload(formRequest({ doc: file(await pdfBytes(), 'a.pdf') }), {
        kind: 'document',
        fileFields: ['doc'],
        actor: coach,
      }),
    )
    expect(coachDocument.status).toBe(403)
    const nobody = await refusal(
      receiveUpload(formRequest({ doc: file(await pdfBytes(), 'a.pdf') }), {
        kind: 'assessment',
        fileFields: ['doc'],
        actor: SYSTEM,
      }),
    )
    expect(nobody.status).toBe(403)
    // the admin side hands in no assessments: refused before a byte is stored
    const before = await leftovers()
    for (const actor of [coach, admin]) {
      const staffAssessment = await refusal(
        receiveUpload(formRequest({ doc: file(await pdfBytes(), 'a.pdf') }), {
          kind: 'assessment',
          fileFields: ['doc'],
          actor,
        }),
      )
      expect(staffAssessment.status).toBe(403)
    }
    await expectNothingStored(before)
  })
})

describe('the quota of unattached uploads (UPLOAD_UNATTACHED_MAX_MB)', () => {
  useEnv({ UPLOAD_UNATTACHED_MAX_MB: '0.1' }) // 104,857 bytes

  /** A real PDF of about `size` bytes (padding after its end, as some writers leave). */
  const paddedPdf = async (size: number) => {
    const pdf = await pdfBytes()
    return Buffer.concat([pdf, Buffer.alloc(size - pdf.length, 0x20)])
  }
  const assessment = (actor: Actor): ReceiveUploadOptions => ({ kind: 'assessment', fileFields: ['doc'], actor })
  const QUOTA_MESSAGE =
    'Your uploads that are not used anywhere yet would come to more than 0.1 MB. ' +
    'Use them first (save the form they are for), or try again tomorrow: unused uploads are removed after a day.'

  test('an upload past it is refused with 429, leaving nothing; using an upload makes room again', async () => {
    const owner = await makeLearner()
    const first = await receiveUpload(formRequest({ doc: file(await paddedPdf(40_000), 'a.pdf') }), assessment(owner))
    await receiveUpload(formRequest({ doc: file(await paddedPdf(40_000), 'b.pdf') }), assessment(owner))

    const before = await leftovers()
    const error = await refusal(
      receiveUpload(formRequest({ doc: file(await paddedPdf(40_000), 'c.pdf') }), assessment(owner)),
    )
    expect(error.status).toBe(429)
    expect(error.message).toBe(QUOTA_MESSAGE)
    expect(error.errors).toEqual({ doc: QUOTA_MESSAGE })
    await expectNothingStored(before)

    // someone else's allowance is their own
    await receiveUpload(formRequest({ doc: file(await paddedPdf(40_000), 'd.pdf') }), assessment(await makeLearner()))

    // handed in, the first one no longer counts
    const course = await makeCourse()
    const scenario = await attachEntry(course.id, (await store('document')).key, { kind: 'scenario' })
    const { AssessmentUpload } = await db()
    await AssessmentUpload.create({
      userId: owner.id,
      courseId: course.id,
      scenarioId: scenario.id,
      fileKey: first.file.key,
    })
    await receiveUpload(formRequest({ doc: file(await paddedPdf(40_000), 'c.pdf') }), assessment(owner))
  })

  test('two uploads at once that fit only one at a time: one is stored, the other refused', async () => {
    const owner = await makeLearner()
    const before = await leftovers()
    const results = await Promise.allSettled([
      receiveUpload(formRequest({ doc: file(await paddedPdf(60_000), 'one.pdf') }), assessment(owner)),
      receiveUpload(formRequest({ doc: file(await paddedPdf(60_000), 'two.pdf') }), assessment(owner)),
    ])
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
    const rejected = results.find((r) => r.status === 'rejected')!
    expect((rejected.reason as ServiceError).status).toBe(429)
    const after = await leftovers()
    expect(after.rows).toBe(before.rows + 1)
    expect(after.bodies).toBe(before.bodies + 1)
    expect(after.temporary).toEqual([])
  })

  test('a user at the quota is refused before the body is read', async () => {
    const owner = await makeLearner()
    await receiveUpload(
      formRequest({ doc: file(await paddedPdf(Math.floor(0.1 * 1024 * 1024)), 'full.pdf') }),
      assessment(owner),
    )
    const { request, counter } = counting(
      formRequest({ doc: file(Buffer.concat([await pdfBytes(), Buffer.alloc(2 * 1024 * 1024)]), 'more.pdf') }),
    )
    const error = await refusal(receiveUpload(request, assessment(owner)))
    expect(error.status).toBe(429)
    expect(counter.bytes).toBeLessThanOrEqual(16 * 1024)
  })

  test('the error file of an import, which the portal writes, does not count', async () => {
    const owner = await makeAdmin()
    await storeFile({
      purpose: 'import_errors',
      name: 'import-errors.csv',
      contentType: 'text/csv',
      body: Buffer.alloc(200_000, 0x41),
      uploadedBy: owner.id,
    })
    const { file: info } = await receiveUpload(formRequest({ courseImage: file(pngBytes(), 'cover.png') }), {
      kind: 'courseImage',
      fileFields: ['courseImage'],
      actor: owner,
    })
    expect(info.name).toBe('cover.png')
  })
})

describe('uploads to S3', () => {
  const running = useS3rver()

  test('an accepted upload lands in the bucket and opens through openFile', async () => {
    const before = await leftovers()
    const pdf = await pdfBytes('Stored in a bucket')
    const { file: info } = await receiveUpload(formRequest({ doc: file(pdf, 'bucket.pdf') }), {
      kind: 'assessment',
      fileFields: ['doc'],
      actor: learner,
    })
    const direct = s3Storage(running().options)
    try {
      const object = await direct.get(info.key)
      expect(object?.size).toBe(pdf.length)
      expect((await readBody(object!.body)).equals(pdf)).toBe(true)
    } finally {
      direct.close?.()
    }
    expect((await leftovers()).bodies).toBe(before.bodies) // nothing on the local disk
    const opened = await openFile(learner, info.key)
    expect((await readBody(opened.body)).equals(pdf)).toBe(true)
  })
})

/** Make a stored file look as if it had been uploaded `hours` ago. */
async function age(key: string, hours: number) {
  await (
    await sequelize()
  ).query(`UPDATE files SET created_at = now() - make_interval(hours => :hours) WHERE key = :key`, {
    replacements: { key, hours },
  })
}

const store = async (purpose: 'course_image' | 'program_image' | 'document' | 'assessment', uploadedBy?: string) =>
  storeFile({
    purpose,
    name: purpose === 'assessment' || purpose === 'document' ? 'file.pdf' : 'image.png',
    contentType: purpose === 'assessment' || purpose === 'document' ? 'application/pdf' : 'image/png',
    body: Buffer.from(`body of a ${purpose}`),
    uploadedBy: uploadedBy ?? null,
  })

async function attachEntry(
  courseId: string,
  fileKey: string,
  options: { kind?: 'document' | 'scenario'; visibility?: boolean } = {},
) {
  const { ContentEntry } = await db()
  return ContentEntry.create({
    courseId,
    kind: options.kind ?? 'document',
    title: 'Attached',
    fileKey,
    visibility: options.visibility ?? true,
  })
}

describe('sweepUnattachedFiles', () => {
  test('removes old files nothing refers to, row and body, and keeps attached and fresh ones', async () => {
    const { Course, Program, StoredFile, AssessmentUpload } = await db()
    const course = await makeCourse()
    const program = await makeProgram([course.id])
    const owner = await makeLearner()

    const orphan = await store('document')
    const courseImage = await store('course_image')
    const programImage = await store('program_image')
    const document = await store('document')
    const scenario = await store('document')
    const assessment = await store('assessment', owner.id)
    const fresh = await store('document')

    await Course.update({ imageKey: courseImage.key }, { where: { id: course.id } })
    await Program.update({ imageKey: programImage.key }, { where: { id: program.id } })
    await attachEntry(course.id, document.key)
    const scenarioEntry = await attachEntry(course.id, scenario.key, { kind: 'scenario' })
    await AssessmentUpload.create({
      userId: owner.id,
      courseId: course.id,
      scenarioId: scenarioEntry.id,
      fileKey: assessment.key,
    })
    for (const file of [orphan, courseImage, programImage, document, scenario, assessment]) await age(file.key, 48)
    await age(fresh.key, 1)

    expect(await sweepUnattachedFiles({ olderThanMs: 24 * 3600_000 })).toBe(1)
    expect(await StoredFile.findByPk(orphan.key)).toBeNull()
    expect(await storage().get(orphan.key)).toBeUndefined()
    for (const kept of [courseImage, programImage, document, scenario, assessment, fresh]) {
      expect(await StoredFile.findByPk(kept.key)).not.toBeNull()
      expect(await storage().get(kept.key)).toBeDefined()
    }

    // the fresh one goes once it is old enough
    await age(fresh.key, 30)
    expect(await sweepUnattachedFiles({ olderThanMs: 24 * 3600_000 })).toBe(1)
    expect(await StoredFile.findByPk(fresh.key)).toBeNull()
  })
})

describe('storeFile', () => {
  test('keeps any name safely: no NUL or control character, no folder, at most 255 characters', async () => {
    const { StoredFile } = await db()
    const long = `${'ä'.repeat(300)}.pdf`
    const names = {
      'nul\u0000byte.pdf': 'nul byte.pdf',
      '../../etc/passwd': 'passwd',
      '..': 'file',
      [long]: `${'ä'.repeat(251)}.pdf`,
    }
    for (const [sent, kept] of Object.entries(names)) {
      const info = await storeFile({
        purpose: 'document',
        name: sent,
        contentType: 'application/pdf',
        body: Buffer.from('%PDF-1.4'),
        uploadedBy: admin.id,
      })
      expect((await StoredFile.findByPk(info.key))?.name, sent).toBe(kept)
    }
  })
})

describe('removeStoredFile', () => {
  test('removes the row and the body', async () => {
    const { StoredFile } = await db()
    const info = await store('document')
    await removeStoredFile(info.key)
    expect(await StoredFile.findByPk(info.key)).toBeNull()
    expect(await storage().get(info.key)).toBeUndefined()
  })

  test('a file still attached to an entry is not removed', async () => {
    const { StoredFile } = await db()
    const course = await makeCourse()
    const info = await store('document')
    await attachEntry(course.id, info.key)
    // the database refuses it: the entry's file key refers to the row, and a reference restricts deletes
    await expect(removeStoredFile(info.key)).rejects.toMatchObject({
      name: 'SequelizeDatabaseError',
      message: expect.stringMatching(
        /^update or delete on table "files" violates RESTRICT setting of foreign key constraint "content_entries_file_key_fkey" on table "content_entries"$/,
      ),
      parent: { code: '23001' }, // PostgreSQL's restrict_violation
    })
    expect(await StoredFile.findByPk(info.key)).not.toBeNull()
    expect(await storage().get(info.key)).toBeDefined()
  })
})

describe('openFile', () => {
  let coach: Actor
  let assigned: Actor
  let unassigned: Actor
  let courseId: string

  beforeAll(async () => {
    coach = await makeCoach()
    assigned = await makeLearner()
    unassigned = await makeLearner()
    courseId = (await makeCourse()).id
    await assignCourse(assigned.id!, courseId)
  })

  const opens = async (actor: Actor | undefined, info: FileInfo) => {
    try {
      const opened = await openFile(actor, info.key)
      expect((await readBody(opened.body)).length).toBe(opened.size)
      return true
    } catch (error) {
      // every refusal looks like a missing file
      expect(error).toBeInstanceOf(ServiceError)
      expect((error as ServiceError).status).toBe(404)
      return false
    }
  }

  test('course and program images are public', async () => {
    const courseImage = await store('course_image')
    const programImage = await store('program_image')
    for (const info of [courseImage, programImage]) {
      expect(await opens(undefined, info)).toBe(true)
      expect(await opens(unassigned, info)).toBe(true)
    }
    const opened = await openFile(undefined, courseImage.key)
    expect(opened).toMatchObject({ name: 'image.png', contentType: 'image/png', inline: true })
  })

  test('a document of a visible entry: the admin side and learners the course is assigned to', async () => {
    const info = await store('document')
    await attachEntry(courseId, info.key)
    expect(await opens(undefined, info)).toBe(false)
    expect(await opens(unassigned, info)).toBe(false)
    expect(await opens(assigned, info)).toBe(true)
    expect(await opens(admin, info)).toBe(true)
    expect(await opens(coach, info)).toBe(true)
    expect(await opens(SYSTEM, info)).toBe(true)
  })

  test('a scenario reached through an assigned program opens for its learner', async () => {
    const course = await makeCourse()
    const program = await makeProgram([course.id])
    const viaProgram = await makeLearner()
    const { ProgramAssignment } = await db()
    await ProgramAssignment.create({ userId: viaProgram.id, programId: program.id })
    const info = await store('document')
    await attachEntry(course.id, info.key, { kind: 'scenario' })
    expect(await opens(viaProgram, info)).toBe(true)
    expect(await opens(assigned, info)).toBe(false)
  })

  test('a document of a hidden entry: the admin side only', async () => {
    const info = await store('document')
    await attachEntry(courseId, info.key, { visibility: false })
    expect(await opens(assigned, info)).toBe(false)
    expect(await opens(admin, info)).toBe(true)
    expect(await opens(coach, info)).toBe(true)
  })

  test('a document not attached to any entry yet: the admin side only', async () => {
    const info = await store('document', admin.id!)
    expect(await opens(undefined, info)).toBe(false)
    expect(await opens(assigned, info)).toBe(false)
    expect(await opens(admin, info)).toBe(true)
    expect(await opens(coach, info)).toBe(true)
  })

  test('an assessment upload: its owner and the admin side', async () => {
    const owner = await makeLearner()
    await assignCourse(owner.id, courseId)
    const info = await store('assessment', owner.id)
    expect(await opens(owner, info)).toBe(true)
    expect(await opens(assigned, info)).toBe(false)
    expect(await opens(undefined, info)).toBe(false)
    expect(await opens(admin, info)).toBe(true)
    expect(await opens(coach, info)).toBe(true)
  })

  test('an assessment registered to a learner opens for that learner, whoever stored it', async () => {
    const owner = await makeLearner()
    const info = await store('assessment')
    const scenarioFile = await store('document')
    const scenario = await attachEntry(courseId, scenarioFile.key, { kind: 'scenario' })
    const { AssessmentUpload } = await db()
    await AssessmentUpload.create({ userId: owner.id, courseId, scenarioId: scenario.id, fileKey: info.key })
    expect(await opens(owner, info)).toBe(true)
    expect(await opens(assigned, info)).toBe(false)
  })

  test('an unknown key, or a row whose body is gone, is a 404', async () => {
    expect(await opens(admin, { key: 'no-such-file.pdf', link: '', name: '' })).toBe(false)
    const info = await store('course_image')
    await storage().remove(info.key)
    expect(await opens(undefined, info)).toBe(false)
  })
})

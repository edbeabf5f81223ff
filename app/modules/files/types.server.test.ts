import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { resetEnvCache } from '#app/utils/env.server.ts'
import {
  cfbBytes,
  csvBytes,
  docxBytes,
  elfBytes,
  gifBytes,
  jpegBytes,
  pdfBytes,
  plainZipBytes,
  pngBytes,
  pptxBytes,
} from '#tests/fixtures/files.ts'
import { ServiceError } from '../errors.ts'
import {
  accepts,
  checkFileType,
  confirmFileType,
  looksLikeText,
  SNIFF_BYTES,
  sniffFileType,
  uploadLimit,
  uploadRules,
  fileTooLarge,
  type UploadKind,
} from './types.server.ts'

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation'

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ServiceError)
  return error as ServiceError
}

describe('accepted by content and extension', () => {
  test.each([
    ['courseImage', 'photo.png', () => pngBytes(), 'image/png'],
    ['courseImage', 'banner.PNG', () => pngBytes({ width: 40, height: 20 }), 'image/png'],
    ['courseImage', 'anim.gif', gifBytes, 'image/gif'],
    ['courseImage', 'shot.jpg', jpegBytes, 'image/jpeg'],
    ['courseImage', 'shot.jpeg', jpegBytes, 'image/jpeg'],
    ['document', 'notes.pdf', pdfBytes, 'application/pdf'],
    ['document', 'table.csv', () => csvBytes(), 'text/csv'],
    ['document', 'brief.docx', () => docxBytes(), DOCX],
    ['document', 'slides.pptx', () => pptxBytes(), PPTX],
    ['document', 'old-slides.ppt', cfbBytes, 'application/vnd.ms-powerpoint'],
    ['documentEdit', 'brief.docx', () => docxBytes(), DOCX],
    ['documentEdit', 'notes.pdf', pdfBytes, 'application/pdf'],
    ['assessment', 'answer.pdf', pdfBytes, 'application/pdf'],
    ['assessment', 'answer.csv', () => csvBytes(), 'text/csv'],
    ['assessment', 'answer.pptx', () => pptxBytes(), PPTX],
    ['certificateSignature', 'signature.png', () => pngBytes(), 'image/png'],
    ['certificateSignature', 'signature.jpeg', jpegBytes, 'image/jpeg'],
  ] as const)('%s accepts %s as %s', async (kind, name, build, contentType) => {
    const checked = await checkFileType(kind, name, await build())
    expect(checked.contentType).toBe(contentType)
    expect(checked.needsWholeFile).toBe(false)
  })
})

describe('refused', () => {
  test.each([
    ['document', 'setup.pdf', elfBytes, 'Only csv, pdf, docx, ppt and pptx files are accepted.'],
    ['document', 'picture.pdf', () => pngBytes(), 'Only csv, pdf, docx, ppt and pptx files are accepted.'],
    ['document', 'letter.docx', () => Buffer.from('Dear learner,\nthis is plain text.\n'), 'Only csv'],
    ['document', 'binary.csv', () => Buffer.from('id,name\n1,a\u0000b\n', 'utf8'), 'Only csv'],
    ['document', 'latin1.csv', () => Buffer.from([0x69, 0x64, 0x0a, 0xe9, 0x74, 0xe9, 0x0a]), 'Only csv'],
    ['document', 'archive.docx', plainZipBytes, 'Only csv'],
    ['document', 'slides.docx', () => pptxBytes(), 'Only csv'],
    ['document', 'brief.pptx', () => docxBytes(), 'Only csv'],
    ['document', 'word97.doc', cfbBytes, 'Only csv'],
    ['document', 'old.pdf', cfbBytes, 'Only csv'],
    ['document', 'notes', pdfBytes, 'Only csv'],
    ['document', 'empty.pdf', () => Buffer.alloc(0), 'Only csv'],
    ['documentEdit', 'slides.pptx', () => pptxBytes(), 'Only csv, pdf and docx files are accepted.'],
    ['documentEdit', 'old-slides.ppt', cfbBytes, 'Only csv, pdf and docx files are accepted.'],
    ['courseImage', 'photo.pdf', pdfBytes, 'Only png, gif and jpeg images are accepted.'],
    ['courseImage', 'photo.png', pdfBytes, 'Only png, gif and jpeg images are accepted.'],
    ['courseImage', 'photo.png', gifBytes, 'Only png'],
    ['courseImage', 'photo.jpg', () => pngBytes(), 'Only png'],
    ['courseImage', 'photo.svg', () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'Only png'],
    // the certificate's PDF draws PNG and JPEG only
    ['certificateSignature', 'signature.gif', gifBytes, 'Only png and jpeg images are accepted.'],
    ['certificateSignature', 'signature.png', jpegBytes, 'Only png and jpeg images are accepted.'],
    ['assessment', 'run.exe.pdf', elfBytes, 'Only csv, pdf, docx, ppt and pptx files are accepted.'],
  ] as const)('%s refuses %s', async (kind, name, build, message) => {
    const error = await refusal(checkFileType(kind, name, await build()))
    expect(error.status).toBe(415)
    expect(error.message).toContain(message)
  })
})

describe('a sample cut from a longer file', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'portal-types-test-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  test('a docx whose telling parts lie beyond the sample is confirmed from the whole file', async () => {
    const whole = docxBytes({ leadingBytes: 3 * SNIFF_BYTES })
    const sniffed = await sniffFileType('document', 'brief.docx', whole.subarray(0, SNIFF_BYTES), { complete: false })
    expect(sniffed).toMatchObject({ contentType: DOCX, needsWholeFile: true })

    const file = path.join(dir, 'brief.docx')
    await writeFile(file, whole)
    await expect(confirmFileType('document', 'brief.docx', file)).resolves.toMatchObject({ contentType: DOCX })
  })

  test('a plain zip renamed .docx passes the sample but not the whole-file check', async () => {
    const whole = plainZipBytes()
    const sniffed = await sniffFileType('document', 'fake.docx', whole, { complete: false })
    expect(sniffed.needsWholeFile).toBe(true)
    const file = path.join(dir, 'fake.docx')
    await writeFile(file, whole)
    const error = await refusal(confirmFileType('document', 'fake.docx', file))
    expect(error.status).toBe(415)
  })

  test('a complete sample never defers: a bare zip is refused at once', async () => {
    const error = await refusal(sniffFileType('document', 'fake.pptx', plainZipBytes(), { complete: true }))
    expect(error.status).toBe(415)
  })

  test('a multi-byte character cut at the end of a CSV sample is not held against it', () => {
    const text = Buffer.from('city\nZürich\n', 'utf8')
    const cut = text.subarray(0, text.indexOf(0xc3) + 1) // ends after the first byte of "ü"
    expect(looksLikeText(cut, { complete: false })).toBe(true)
    expect(looksLikeText(cut, { complete: true })).toBe(false)
    expect(looksLikeText(Buffer.from([0x61, 0xff, 0x62]), { complete: false })).toBe(false)
  })
})

describe('size limits', () => {
  const saved = process.env.UPLOAD_MAX_IMAGE_MB
  afterEach(() => {
    if (saved === undefined) delete process.env.UPLOAD_MAX_IMAGE_MB
    else process.env.UPLOAD_MAX_IMAGE_MB = saved
    resetEnvCache()
  })

  test.each([
    ['courseImage', 5],
    ['document', 50],
    ['documentEdit', 50],
    ['assessment', 25],
  ] as [UploadKind, number][])('%s defaults to %i MB', (kind, megabytes) => {
    expect(uploadLimit(kind)).toEqual({ megabytes, bytes: megabytes * 1024 * 1024 })
  })

  test('the limit and its message follow the environment', () => {
    process.env.UPLOAD_MAX_IMAGE_MB = '2'
    resetEnvCache()
    expect(uploadLimit('courseImage').bytes).toBe(2 * 1024 * 1024)
    const error = fileTooLarge('courseImage')
    expect(error.status).toBe(413)
    expect(error.message).toBe('The file is larger than 2 MB.')
    // the file picker's hint says the same limit
    expect(uploadRules('courseImage').hint).toBe('png, gif or jpeg, up to 2 MB')
  })

  test('a signature takes no more than the 2 MB the certificate reads, however large images may be', () => {
    expect(uploadLimit('certificateSignature').megabytes).toBe(2)
    expect(uploadRules('certificateSignature')).toEqual({ accept: '.png,.jpg,.jpeg', hint: 'png or jpeg, up to 2 MB' })
    process.env.UPLOAD_MAX_IMAGE_MB = '1'
    resetEnvCache()
    expect(uploadLimit('certificateSignature').bytes).toBe(1024 * 1024)
  })

  test('a stored file is accepted by its content type, as its upload would have been', () => {
    expect(accepts('documentEdit', DOCX)).toBe(true)
    expect(accepts('documentEdit', 'text/csv')).toBe(true)
    expect(accepts('documentEdit', PPTX)).toBe(false)
    expect(accepts('document', PPTX)).toBe(true)
    expect(accepts('courseImage', 'application/pdf')).toBe(false)
  })

  test('the file pickers offer the extensions the server accepts', () => {
    expect(uploadRules('courseImage').accept).toBe('.png,.gif,.jpg,.jpeg')
    expect(uploadRules('documentEdit')).toEqual({ accept: '.csv,.pdf,.docx', hint: 'csv, pdf or docx, up to 50 MB' })
    expect(uploadRules('assessment').hint).toBe('csv, pdf, docx, ppt or pptx, up to 25 MB')
  })
})

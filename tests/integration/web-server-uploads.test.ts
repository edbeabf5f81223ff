import { randomBytes } from 'node:crypto'
import http from 'node:http'
import contentDisposition from 'content-disposition'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as newCourse from '#app/routes/admin+/newCourse.tsx'
import * as addCourseDocument from '#app/routes/api+/category.addCourseDocument.ts'
import * as addCourseImage from '#app/routes/api+/category.addCourseImage.ts'
import * as editProfile from '#app/routes/api+/user.editProfile.ts'
import * as fileRoute from '#app/routes/files.$key.ts'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { makeAdmin, makeCoach } from '#tests/factories.ts'
import { pdfBytes, pngBytes } from '#tests/fixtures/files.ts'
import { sessionCookieFor } from '#tests/sessions.ts'
import { bareBuild, serve } from '#tests/stand-in-build.ts'

// Every refusal of a request with a body reaches the client, over a real socket, however much of the
// body the client is still sending: the web server of server/web-server.js on a port in this
// process, with the real upload, JSON and page routes on this file's database. A browser sends the
// whole body before it reads the answer, and reports a connection reset as "Failed to fetch".

const DISCARD_LIMIT = 24 * 1024 * 1024
process.env.UPLOAD_MAX_IMAGE_MB = '1'
process.env.DISCARD_BODY_MAX_MB = String(DISCARD_LIMIT / 1024 / 1024)
resetEnvCache()

let admin: Awaited<ReturnType<typeof makeAdmin>>
let coach: Awaited<ReturnType<typeof makeCoach>>
let adminCookie: string
let server: Awaited<ReturnType<typeof serve>>
let port: number

beforeAll(async () => {
  admin = await makeAdmin()
  coach = await makeCoach()
  adminCookie = await sessionCookieFor(admin.userName)
  const build = await bareBuild({
    'routes/api+/category.addCourseDocument': addCourseDocument,
    'routes/api+/category.addCourseImage': addCourseImage,
    'routes/api+/user.editProfile': editProfile,
    'routes/admin+/newCourse': newCourse,
    'routes/files.$key': fileRoute,
  })
  server = await serve(build)
  port = server.port
})

afterAll(async () => {
  await server.close()
  delete process.env.UPLOAD_MAX_IMAGE_MB
  delete process.env.DISCARD_BODY_MAX_MB
  resetEnvCache()
})

type Sent = {
  status?: number
  headers?: http.IncomingHttpHeaders
  text: string
  /** a socket error while the body was still being sent (ECONNRESET, EPIPE) */
  error?: string
  /** how much of the body went out before the answer was complete or the socket failed */
  written: number
}

/**
 * A POST as a browser makes it: the whole body written as fast as the socket takes it, the answer
 * read as it comes. Resolves once the body is sent (or the socket failed) and the answer has ended.
 */
function send(
  path: string,
  body: Buffer,
  {
    headers = {},
    chunked = false,
    method = 'POST',
  }: { headers?: Record<string, string>; chunked?: boolean; method?: string } = {},
) {
  return new Promise<Sent>((resolve) => {
    const sent: Sent = { text: '', written: 0 }
    let answered = false
    let bodyDone = false
    const settle = () => answered && bodyDone && resolve(sent)
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent: false,
        headers: chunked ? headers : { ...headers, 'Content-Length': String(body.length) },
      },
      (response) => {
        sent.status = response.statusCode
        sent.headers = response.headers
        response.setEncoding('utf8')
        response.on('data', (text: string) => (sent.text += text))
        response.on('end', () => {
          answered = true
          settle()
        })
        response.on('error', () => undefined)
      },
    )
    request.on('error', (error: NodeJS.ErrnoException) => {
      sent.error ??= error.code ?? error.message
      answered = bodyDone = true
      settle()
    })
    request.on('finish', () => {
      bodyDone = true
      settle()
    })
    const piece = 64 * 1024
    const write = () => {
      while (sent.written < body.length) {
        const chunk = body.subarray(sent.written, sent.written + piece)
        sent.written += chunk.length
        if (!request.write(chunk)) return void request.once('drain', write)
      }
      request.end()
    }
    write()
  })
}

const BOUNDARY = '----portal-test-boundary'
const multipartType = { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` }

/** A multipart body: text fields, then one file part whose content is `bytes`. */
function multipart(fields: Record<string, string>, file: { field: string; name: string; bytes: Buffer }) {
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  )
  return Buffer.concat([
    Buffer.from(parts.join('')),
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    file.bytes,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ])
}

/** A picture that grows to `size` bytes: a PNG's head, then bytes that never compress. */
const bigPicture = (size: number) => Buffer.concat([pngBytes(), randomBytes(size)])

const MB = 1024 * 1024

describe('an upload refused while the client is still sending', () => {
  it('a 16 MB PNG named .pdf: the client gets the 415 and its message, not a reset', async () => {
    const body = multipart({}, { field: 'courseDocument', name: 'x.pdf', bytes: bigPicture(16 * MB) })
    const sent = await send('/api/category/addCourseDocument', body, {
      headers: { ...multipartType, Authorization: `Bearer ${admin.token}` },
    })
    expect(sent.error).toBeUndefined()
    expect(sent.status).toBe(415)
    expect(JSON.parse(sent.text)).toEqual({
      message: 'Only csv, pdf, docx, ppt and pptx files are accepted.',
      errors: { courseDocument: 'Only csv, pdf, docx, ppt and pptx files are accepted.' },
    })
    expect(sent.written).toBe(body.length)
  })

  it('too large by its Content-Length: 413, refused before reading and still answered', async () => {
    const body = multipart({}, { field: 'courseImage', name: 'big.png', bytes: bigPicture(16 * MB) })
    const sent = await send('/api/category/addCourseImage', body, {
      headers: { ...multipartType, Authorization: `Bearer ${admin.token}` },
    })
    expect(sent.error).toBeUndefined()
    expect(sent.status).toBe(413)
    expect(JSON.parse(sent.text)).toMatchObject({ message: 'The file is larger than 1 MB.' })
  })

  it('too large as it arrives (no Content-Length): 413 and its message', async () => {
    const body = multipart({}, { field: 'courseImage', name: 'big.png', bytes: bigPicture(16 * MB) })
    const sent = await send('/api/category/addCourseImage', body, {
      headers: { ...multipartType, Authorization: `Bearer ${admin.token}` },
      chunked: true,
    })
    expect(sent.error).toBeUndefined()
    expect(sent.status).toBe(413)
    expect(JSON.parse(sent.text)).toMatchObject({ message: 'The file is larger than 1 MB.' })
  })

  it('not signed in: 401, the body never read by the app', async () => {
    const body = multipart({}, { field: 'courseDocument', name: 'notes.pdf', bytes: await bigPdf(16 * MB) })
    const sent = await send('/api/category/addCourseDocument', body, {
      headers: { ...multipartType, Authorization: 'Bearer not-a-token-at-all-0123456789' },
    })
    expect(sent.error).toBeUndefined()
    expect(sent.status).toBe(401)
    expect(JSON.parse(sent.text)).toMatchObject({ message: expect.stringMatching(/sign in again/) })
  })

  it('forbidden (a coach uploading a document): 403', async () => {
    const body = multipart({}, { field: 'courseDocument', name: 'notes.pdf', bytes: await bigPdf(16 * MB) })
    const sent = await send('/api/category/addCourseImage', body, {
      headers: { ...multipartType, Authorization: `Bearer ${coach.token}` },
    })
    expect(sent.error).toBeUndefined()
    expect(sent.status).toBe(403)
    expect(JSON.parse(sent.text)).toMatchObject({ message: expect.any(String) })
  })

  it('a JSON body over its limit: 413', async () => {
    const body = Buffer.from(JSON.stringify({ firstName: 'x'.repeat(16 * MB) }))
    const sent = await send('/api/user/editProfile', body, {
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${admin.token}` },
      chunked: true,
      method: 'PUT',
    })
    expect(sent.error).toBeUndefined()
    expect(sent.status).toBe(413)
    expect(JSON.parse(sent.text)).toEqual({ message: 'The request body is too large.' })
  })

  it("a page's form (no JavaScript) with a picture too large: the form's message beside the field", async () => {
    const body = multipart(
      { title: 'Warehousing', description: 'Star schemas' },
      { field: 'courseImage', name: 'big.png', bytes: bigPicture(16 * MB) },
    )
    const sent = await send('/admin/newCourse?_data=routes%2Fadmin%2B%2FnewCourse', body, {
      headers: { ...multipartType, Cookie: adminCookie },
      chunked: true,
    })
    expect(sent.error).toBeUndefined()
    expect(sent.status).toBe(413)
    const { result } = JSON.parse(sent.text) as { result: { error: Record<string, string[]> } }
    expect(result.error.courseImage).toEqual(['The file is larger than 1 MB.'])
  })

  it('keeps the connection for the next request once the refused body is read', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const ask = (body: Buffer) =>
        new Promise<{ status?: number; socket: unknown }>((resolve, reject) => {
          const request = http.request(
            {
              host: '127.0.0.1',
              port,
              path: '/api/category/addCourseDocument',
              method: 'POST',
              agent,
              headers: { ...multipartType, Authorization: `Bearer ${admin.token}` },
            },
            (response) => {
              response.resume()
              response.on('end', () => resolve({ status: response.statusCode, socket: request.socket }))
            },
          )
          request.on('error', reject)
          request.end(body)
        })
      const first = await ask(multipart({}, { field: 'courseDocument', name: 'x.pdf', bytes: bigPicture(4 * MB) }))
      const second = await ask(multipart({}, { field: 'courseDocument', name: 'y.pdf', bytes: bigPicture(4 * MB) }))
      expect([first.status, second.status]).toEqual([415, 415])
      expect(second.socket).toBe(first.socket)
    } finally {
      agent.destroy()
    }
  })
})

describe('a refused body larger than DISCARD_BODY_MAX_MB', () => {
  it('is read no further than that: the server closes the connection', { timeout: 60_000 }, async () => {
    const body = multipart({}, { field: 'courseDocument', name: 'x.pdf', bytes: bigPicture(128 * MB) })
    const sent = await send('/api/category/addCourseDocument', body, {
      headers: { ...multipartType, Authorization: `Bearer ${admin.token}` },
      chunked: true,
    })
    // the socket buffers on both sides hold a few megabytes more than the server read
    expect(sent.written).toBeLessThan(body.length / 2)
    expect(sent.error).toMatch(/ECONNRESET|EPIPE/)
    // what the client did read of the answer, if anything, was the refusal
    if (sent.status !== undefined) expect(sent.status).toBe(415)
    expect(sent.headers?.connection ?? 'close').toBe('close')
  })
})

describe('a file name with `;`, `=`, quotes and non-ASCII', () => {
  it('is accepted, and served back under the same name', async () => {
    const name = 'Q1; report=final "v2" été 第1章.pdf'
    const pdf = await pdfBytes()
    // as a browser writes it (HTML's multipart/form-data encoding): UTF-8, `"` as %22
    const sent = await send(
      '/api/category/addCourseDocument',
      multipart({}, { field: 'courseDocument', name: name.replaceAll('"', '%22'), bytes: pdf }),
      { headers: { ...multipartType, Authorization: `Bearer ${admin.token}` } },
    )
    expect(sent.status).toBe(200)
    const { fileInfo } = JSON.parse(sent.text) as { fileInfo: { key: string; link: string; name: string } }
    expect(fileInfo.name).toBe(name)

    const served = await fetch(`http://127.0.0.1:${port}${fileInfo.link}`, {
      headers: { Authorization: `Bearer ${admin.token}` },
    })
    expect(served.status).toBe(200)
    expect(Buffer.from(await served.arrayBuffer()).equals(pdf)).toBe(true)
    const disposition = served.headers.get('Content-Disposition') ?? ''
    // RFC 6266: a quoted ASCII fallback and the exact name as RFC 5987 UTF-8
    expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, escape)}`)
    expect(contentDisposition.parse(disposition)).toEqual({
      type: 'inline',
      parameters: { filename: name },
    })
  })
})

/** A real PDF followed by `size` bytes of padding: a document that passes the type check. */
async function bigPdf(size: number) {
  return Buffer.concat([await pdfBytes(), Buffer.alloc(size, 0x20)])
}

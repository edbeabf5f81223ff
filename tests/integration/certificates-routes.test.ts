import { execFile } from 'node:child_process'
import { createHmac, createPublicKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import Ajv2019 from 'ajv/dist/2019'
import addFormats from 'ajv-formats'
import { decodeProtectedHeader, importJWK, jwtVerify, SignJWT, type JWK } from 'jose'
import QRCode from 'qrcode'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { isRevokedInStatusList } from '#app/modules/certificates/credential.server.ts'
import { issueDueCertificates } from '#app/modules/certificates/issue.server.ts'
import { revokeCertificate } from '#app/modules/certificates/service.server.ts'
import { storeFile, sweepUnattachedFiles } from '#app/modules/files/service.server.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { db, query, sql } from '#db/client.ts'
import { assignCourse, makeAdmin, makeCoach, makeCourse, makeLearner, recordWatched } from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'
import { sessionCookieFor } from '#tests/sessions.ts'
import * as myCertificates from '../../app/routes/_learner+/certificates.tsx'
import * as verifyPage from '../../app/routes/_public+/verify.$code.tsx'
import * as verifyForm from '../../app/routes/_public+/verify._index.tsx'
import * as listApi from '../../app/routes/api+/certificates.ts'
import * as verifyApi from '../../app/routes/api+/certificates.verify.ts'
import * as credentialApi from '../../app/routes/api+/certificates_.$code_.credential.ts'
import * as credentialFile from '../../app/routes/certificates.$code.credential.ts'
import * as pdfFile from '../../app/routes/certificates.$code.pdf.ts'
import * as jwks from '../../app/routes/issuer.jwks[.]json.ts'
import * as keyRoute from '../../app/routes/issuer.keys.$kid.ts'
import * as statusRoute from '../../app/routes/issuer.status.$list.ts'

// Certificates from outside: the PDF read back as a person reads it (its text, its QR code), the public
// verify page it leads to, the credential checked by a JOSE library against the published keys and by the
// Open Badges 3.0 schema, the revocation list, and the /api calls.

const run = promisify(execFile)
const SCHEMA = JSON.parse(
  readFileSync(
    new URL('../../app/modules/certificates/schema/ob_v3p0_achievementcredential_schema.json', import.meta.url),
    'utf8',
  ),
) as object

let folder: string
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'certificate-'))
})
afterAll(async () => {
  await rm(folder, { recursive: true, force: true })
})

/** A learner with a certificate for a course of one video, titled with accents. */
async function certified(name = { firstName: 'Zoë', lastName: 'Ångström' }) {
  const course = await makeCourse({
    title: `Données et entrepôts ${Math.random().toString(36).slice(2, 7)}`,
    videos: [{ duration: 5400 }],
  })
  const { Course, User } = await db()
  await Course.update({ certificates: true, certificateIssuer: 'Northwind Data Academy' }, { where: { id: course.id } })
  const learner = await makeLearner()
  await User.update(name, { where: { id: learner.id } })
  await assignCourse(learner.id, course.id)
  await recordWatched(learner.id, course.id, course.videos[0], 5400)
  await issueDueCertificates()
  const listed = await body<{ data: { code: string; verifyUrl: string; pdfUrl: string; state: string }[] }>(
    await call(listApi.loader, '/api/certificates', { token: learner.token }),
  )
  expect(listed.data).toHaveLength(1)
  return { course, learner, certificate: listed.data[0] }
}

const pathOf = (url: string) => new URL(url).pathname

async function verifyPageFor(url: string) {
  const code = pathOf(url).split('/').pop()!
  return call(verifyPage.loader, pathOf(url), { params: { code } })
}

describe('a certificate’s PDF', () => {
  it('holds the name, course and code as text, and a QR code of the verify page, which answers valid, then revoked', async () => {
    const { course, learner, certificate } = await certified()
    const code = certificate.code
    const response = await call(pdfFile.loader, pathOf(certificate.pdfUrl), { token: learner.token, params: { code } })
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('application/pdf')
    const file = path.join(folder, `${code}.pdf`)
    await writeFile(file, Buffer.from(await response.arrayBuffer()))
    const { stdout: text } = await run('pdftotext', ['-layout', file, '-'])
    expect(text).toContain('Zoë Ångström')
    expect(text).toContain(course.title)
    expect(text).toContain(code)
    expect(text).toContain('1.5 hours')
    await run('pdftoppm', ['-png', '-r', '150', '-singlefile', file, path.join(folder, code)])
    const { stdout: decoded } = await run('zbarimg', ['-q', '--raw', path.join(folder, `${code}.png`)])
    expect(decoded.trim()).toBe(certificate.verifyUrl)
    expect(certificate.verifyUrl.startsWith(getEnv().PUBLIC_URL)).toBe(true)

    const valid = await verifyPageFor(decoded.trim())
    expect(valid.status).toBe(200)
    expect(valid.headers.get('X-Robots-Tag')).toContain('noindex')
    const shown = await body<{ certificate: Record<string, unknown> }>(valid)
    expect(shown.certificate).toMatchObject({ state: 'valid', learnerName: 'Zoë Ångström', title: course.title })
    expect(JSON.stringify(shown)).not.toContain(learner.email)

    await revokeCertificate(SYSTEM, code, { reason: 'Issued in error.' })
    const revoked = await body<{ certificate: Record<string, unknown> }>(await verifyPageFor(decoded.trim()))
    expect(revoked.certificate).toMatchObject({ state: 'revoked' })
    expect(JSON.stringify(revoked)).not.toContain('Issued in error.')
  })

  it('is for its holder and the admin side only', async () => {
    const { certificate } = await certified()
    const params = { code: certificate.code }
    const other = await makeLearner()
    expect((await call(pdfFile.loader, pathOf(certificate.pdfUrl), { token: other.token, params })).status).toBe(404)
    expect((await call(pdfFile.loader, pathOf(certificate.pdfUrl), { params })).status).toBe(401)
    const admin = await makeAdmin()
    expect((await call(pdfFile.loader, pathOf(certificate.pdfUrl), { token: admin.token, params })).status).toBe(200)
  })
})

describe('the lists of certificates', () => {
  it('are the caller’s own, staff included; staff name a learner to see theirs; a learner cannot', async () => {
    const { learner, certificate } = await certified()
    // a coach who completed a course too
    const coach = await makeCoach()
    const course = await makeCourse({ videos: [{ duration: 60 }] })
    const { Course } = await db()
    await Course.update(
      { certificates: true, certificateIssuer: 'Northwind Data Academy' },
      { where: { id: course.id } },
    )
    await assignCourse(coach.id, course.id)
    await recordWatched(coach.id, course.id, course.videos[0], 60)
    await issueDueCertificates()

    const page = await body<{ certificates: { code: string; title: string }[] }>(
      await call(myCertificates.loader, '/certificates', {
        headers: { Cookie: await sessionCookieFor(coach.userName) },
      }),
    )
    expect(page.certificates.map((c) => c.title)).toEqual([course.title])

    const listed = async (token: string, query = '') => {
      const response = await call(listApi.loader, `/api/certificates${query}`, { token })
      return { status: response.status, answer: await body<{ data?: { code: string }[]; message?: string }>(response) }
    }
    const own = await listed(coach.token)
    expect(own.answer.data).toHaveLength(1)
    expect(own.answer.data![0].code).not.toBe(certificate.code)
    expect((await listed(coach.token, `?userId=${learner.id}`)).answer.data!.map((c) => c.code)).toEqual([
      certificate.code,
    ])
    expect((await listed(learner.token, `?userId=${learner.id}`)).answer.data!.map((c) => c.code)).toEqual([
      certificate.code,
    ])
    const other = await makeLearner()
    const refused = await listed(other.token, `?userId=${learner.id}`)
    expect(refused.status).toBe(403)
    expect(refused.answer.message).toBeTruthy()
    expect((await listed(other.token)).answer.data).toEqual([])
  })
})

describe('a certificate’s signature', () => {
  /** A signature image (a real PNG: a QR code of the text), stored as an admin's upload is. */
  async function signature(text: string) {
    const body = await QRCode.toBuffer(text, { type: 'png' })
    return (
      await storeFile({
        purpose: 'certificate_signature',
        name: 'signature.png',
        contentType: 'image/png',
        body,
        uploadedBy: null,
      })
    ).key
  }
  const pdfOf = async (certificate: { code: string; pdfUrl: string }, token: string) => {
    const response = await call(pdfFile.loader, pathOf(certificate.pdfUrl), {
      token,
      params: { code: certificate.code },
    })
    expect(response.status).toBe(200)
    return Buffer.from(await response.arrayBuffer())
  }
  const signatureOf = async (code: string) =>
    (
      await query<{ signature_key: string | null }>(sql(`SELECT signature_key FROM certificates WHERE code = :code`), {
        code: code.replaceAll('-', ''),
      })
    )[0].signature_key

  it('stays the one it was issued with when the course’s is replaced, and the old image is not swept away', async () => {
    const first = await signature('first signature')
    const { Course } = await db()
    const course = await makeCourse({ videos: [{ duration: 600 }] })
    await Course.update(
      { certificates: true, certificateIssuer: 'Northwind Data Academy', certificateSignatureKey: first },
      { where: { id: course.id } },
    )
    const learner = await makeLearner()
    await assignCourse(learner.id, course.id)
    await recordWatched(learner.id, course.id, course.videos[0], 600)
    await issueDueCertificates()
    const [certificate] = (
      await body<{ data: { code: string; pdfUrl: string }[] }>(
        await call(listApi.loader, '/api/certificates', { token: learner.token }),
      )
    ).data
    const before = await pdfOf(certificate, learner.token)
    expect(await signatureOf(certificate.code)).toBe(first)

    // the course gets a new signature and issuer; the old upload is a day and more old
    const second = await signature('second signature')
    await Course.update(
      { certificateIssuer: 'Contoso Training', certificateSignatureKey: second },
      { where: { id: course.id } },
    )
    await query(sql(`UPDATE files SET created_at = now() - interval '2 days' WHERE key = :key RETURNING key`), {
      key: first,
    })
    await sweepUnattachedFiles({ olderThanMs: 24 * 3600_000 })
    const [kept] = await query<{ key: string }>(sql(`SELECT key FROM files WHERE key = :key`), { key: first })
    expect(kept).toEqual({ key: first })

    // the same certificate gives the same bytes: its signature and issuer as they were when issued
    expect((await pdfOf(certificate, learner.token)).equals(before)).toBe(true)

    // one issued now states the course as it is now
    const next = await makeLearner()
    await assignCourse(next.id, course.id)
    await recordWatched(next.id, course.id, course.videos[0], 600)
    await issueDueCertificates()
    const [fresh] = (
      await body<{ data: { code: string; pdfUrl: string }[] }>(
        await call(listApi.loader, '/api/certificates', { token: next.token }),
      )
    ).data
    expect(await signatureOf(fresh.code)).toBe(second)
  })
})

describe('the verify pages', () => {
  it('answer a plain 404 for a code that names nothing, and send a typed code to its page', async () => {
    const { certificate } = await certified()
    const missing = await call(verifyPage.loader, '/verify/0000-0000-0000-0000-0000-0000-00', {
      params: { code: '0000-0000-0000-0000-0000-0000-00' },
      headers: { 'X-Forwarded-For': '203.0.113.9' },
    })
    expect(missing.status).toBe(404)
    const typed = certificate.code.toLowerCase().replaceAll('-', ' ')
    const sent = await call(verifyForm.loader, `/verify?code=${encodeURIComponent(typed)}`)
    expect(sent.status).toBe(302)
    expect(sent.headers.get('Location')).toBe(`/verify/${certificate.code}`)
    const wrong = await body<{ error: string }>(await call(verifyForm.loader, '/verify?code=12345'))
    expect(wrong.error).toMatch(/26 letters and digits/)
  })
})

describe('the credential', () => {
  it('verifies with a JOSE library from the published key, and meets the Open Badges 3.0 schema', async () => {
    const { learner, certificate } = await certified()
    const answer = await body<{ data: { jwt: string; credential: Record<string, unknown> } }>(
      await call(credentialApi.loader, `/api/certificates/${certificate.code}/credential`, {
        token: learner.token,
        params: { code: certificate.code },
      }),
    )
    const { jwt, credential } = answer.data
    const header = decodeProtectedHeader(jwt)
    expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT' })
    // the header's kid is the key's URL under the issuer: open it as a verifier would
    const kidPath = pathOf(String(header.kid))
    const jwk = await body<JWK>(await call(keyRoute.loader, kidPath, { params: { kid: kidPath.split('/').pop()! } }))
    expect(Object.keys(jwk).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use'])
    const { payload } = await jwtVerify(jwt, await importJWK(jwk, 'RS256'), { issuer: `${getEnv().PUBLIC_URL}/issuer` })
    expect(payload.jti).toBe(certificate.verifyUrl)
    const set = await body<{ keys: JWK[] }>(await call(jwks.loader, '/issuer/jwks.json'))
    expect(set.keys.map((k) => k.kid)).toContain(jwk.kid)

    const ajv = new Ajv2019({ strict: true, strictTuples: false, allErrors: true })
    addFormats(ajv)
    const validate = ajv.compile(SCHEMA)
    expect(validate(credential), JSON.stringify(validate.errors)).toBe(true)
    expect(JSON.stringify(credential)).not.toContain(learner.email)

    const file = await call(credentialFile.loader, `/certificates/${certificate.code}/credential`, {
      token: learner.token,
      params: { code: certificate.code },
    })
    expect(await file.text()).toBe(jwt)
  })

  it('is checked by the verify call: valid, revoked, tampered, signed by another key, not one at all', async () => {
    const { certificate, learner } = await certified()
    const { data } = await body<{ data: { jwt: string } }>(
      await call(credentialApi.loader, `/api/certificates/${certificate.code}/credential`, {
        token: learner.token,
        params: { code: certificate.code },
      }),
    )
    const check = async (credential: unknown) => {
      const response = await call(verifyApi.action, '/api/certificates/verify', {
        method: 'POST',
        json: { credential },
      })
      return { status: response.status, answer: await body<{ data?: { result: string }; message?: string }>(response) }
    }
    expect((await check(data.jwt)).answer.data).toMatchObject({ result: 'valid', certificate: { state: 'valid' } })

    const [head, payload, signature] = data.jwt.split('.')
    const edited = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { name: string }
    edited.name = 'A course never taken'
    const forged = `${head}.${Buffer.from(JSON.stringify(edited)).toString('base64url')}.${signature}`
    expect((await check(forged)).answer.data).toMatchObject({ result: 'tampered' })

    const { generateKeyPair } = await import('jose')
    const other = await generateKeyPair('RS256')
    const stranger = await new SignJWT(
      JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>,
    )
      .setProtectedHeader({ alg: 'RS256', kid: 'https://elsewhere.example/issuer/keys/abc', typ: 'JWT' })
      .sign(other.privateKey)
    expect((await check(stranger)).answer.data).toMatchObject({ result: 'unknown' })

    const notOne = await check('hello')
    expect(notOne.status).toBe(400)
    expect(notOne.answer.message).toBeTruthy()
    expect((await check(42)).status).toBe(400)
    expect((await check(undefined)).status).toBe(400)
    expect((await check({ jwt: data.jwt })).status).toBe(400)
    const notAnObject = await call(verifyApi.action, '/api/certificates/verify', { method: 'POST', json: [data.jwt] })
    expect(notAnObject.status).toBe(400)

    await revokeCertificate(SYSTEM, certificate.code, { reason: 'Revoked by a test.' })
    expect((await check(data.jwt)).answer.data).toMatchObject({ result: 'revoked', certificate: { state: 'revoked' } })
  })

  it('answers tampered, never a 400, for any text shaped as a signed credential that does not verify', async () => {
    const { certificate, learner } = await certified()
    const { data } = await body<{ data: { jwt: string } }>(
      await call(credentialApi.loader, `/api/certificates/${certificate.code}/credential`, {
        token: learner.token,
        params: { code: certificate.code },
      }),
    )
    const [head, payload, signature] = data.jwt.split('.')
    const header = decodeProtectedHeader(data.jwt) as Record<string, unknown>
    const encode = (value: unknown) =>
      Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>
    // the published key, as an attacker would use it for the HS256 confusion
    const { keys } = await body<{ keys: JWK[] }>(await call(jwks.loader, '/issuer/jwks.json'))
    const publicPem = createPublicKey({ key: keys[0] as Record<string, string>, format: 'jwk' })
      .export({ type: 'spki', format: 'pem' })
      .toString()
    const hs256Head = encode({ ...header, alg: 'HS256' })
    const hs256 = `${hs256Head}.${payload}.${createHmac('sha256', publicPem).update(`${hs256Head}.${payload}`).digest('base64url')}`

    const corpus: Record<string, string> = {
      'alg none, no signature': `${encode({ ...header, alg: 'none' })}.${payload}.`,
      'alg none, the old signature': `${encode({ ...header, alg: 'none' })}.${payload}.${signature}`,
      'alg HS256 keyed with the public key': hs256,
      'alg RS512': `${encode({ ...header, alg: 'RS512' })}.${payload}.${signature}`,
      'no alg': `${encode({ kid: header.kid, typ: 'JWT' })}.${payload}.${signature}`,
      'no kid': `${encode({ alg: 'RS256', typ: 'JWT' })}.${payload}.${signature}`,
      'a kid that is not text': `${encode({ ...header, kid: 42 })}.${payload}.${signature}`,
      'a header that is not JSON': `${encode('{"alg":"RS256",')}.${payload}.${signature}`,
      'a header that is not base64url JSON at all': `a.${payload}.${signature}`,
      'a header that is a JSON list': `${encode([header])}.${payload}.${signature}`,
      'the signature cut short': `${head}.${payload}.${signature.slice(0, -12)}`,
      'the signature one character short': `${head}.${payload}.${signature.slice(0, -1)}`,
      'no signature': `${head}.${payload}.`,
      'the payload edited': `${head}.${encode({ ...claims, name: 'A course never taken' })}.${signature}`,
      'the payload not JSON': `${head}.${encode('not json')}.${signature}`,
      'the payload a JSON list': `${head}.${encode([claims])}.${signature}`,
      'the payload cut short': `${head}.${payload.slice(0, -8)}.${signature}`,
      'a signature of another credential': `${head}.${payload}.${signature.split('').reverse().join('')}`,
    }
    for (const [name, credential] of Object.entries(corpus)) {
      const response = await call(verifyApi.action, '/api/certificates/verify', {
        method: 'POST',
        json: { credential },
      })
      expect(response.status, name).toBe(200)
      const answer = await body<{ data: { result: string; reason: string } }>(response)
      expect(answer.data.result, name).toBe('tampered')
      expect(answer.data.reason, name).toBeTruthy()
    }

    // a kid naming a key the portal never had: signed by someone else, as far as anyone can tell
    const otherKid = `${encode({ ...header, kid: `${getEnv().PUBLIC_URL}/issuer/keys/${'A'.repeat(43)}` })}.${payload}.${signature}`
    const unknown = await call(verifyApi.action, '/api/certificates/verify', {
      method: 'POST',
      json: { credential: otherKid },
    })
    expect(unknown.status).toBe(200)
    expect(await body(unknown)).toMatchObject({ data: { result: 'unknown' } })
    // and the credential itself, untouched, still verifies
    const valid = await call(verifyApi.action, '/api/certificates/verify', {
      method: 'POST',
      json: { credential: ` ${data.jwt}\n` },
    })
    expect(await body(valid)).toMatchObject({ data: { result: 'valid' } })
  })

  it('is named in the revocation list once revoked', async () => {
    const { certificate, learner } = await certified()
    const { data } = await body<{ data: { credential: { credentialStatus: { statusListIndex: string } } } }>(
      await call(credentialApi.loader, `/api/certificates/${certificate.code}/credential`, {
        token: learner.token,
        params: { code: certificate.code },
      }),
    )
    const index = Number(data.credential.credentialStatus.statusListIndex)
    const listed = async () => {
      const jwt = await (await call(statusRoute.loader, '/issuer/status/1', { params: { list: '1' } })).text()
      const payload = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as {
        credentialSubject: { encodedList: string }
      }
      return isRevokedInStatusList(payload.credentialSubject.encodedList, index)
    }
    expect(await listed()).toBe(false)
    await revokeCertificate(SYSTEM, certificate.code, { reason: 'Revoked by a test.' })
    expect(await listed()).toBe(true)
    expect((await call(statusRoute.loader, '/issuer/status/2', { params: { list: '2' } })).status).toBe(404)
  })
})

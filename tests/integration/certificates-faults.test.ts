import { generateKeyPairSync } from 'node:crypto'
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose'
import { afterEach, describe, expect, it } from 'vitest'
import { groupedCode } from '#app/modules/certificates/facts.ts'
import { issueDueCertificates } from '#app/modules/certificates/issue.server.ts'
import { getEnv, resetEnvCache } from '#app/utils/env.server.ts'
import { db } from '#db/client.ts'
import { assignCourse, makeCourse, makeLearner, recordWatched } from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'
import * as verifyPage from '../../app/routes/_public+/verify.$code.tsx'
import * as listApi from '../../app/routes/api+/certificates.ts'
import * as verifyApi from '../../app/routes/api+/certificates.verify.ts'
import * as credentialApi from '../../app/routes/api+/certificates_.$code_.credential.ts'
import * as jwks from '../../app/routes/issuer.jwks[.]json.ts'

// The faults a certificate must stand: a code typed with one character wrong, someone guessing codes, a learner
// renamed after the issue, and the signing key rotated (credentials signed by the old key still verify against
// the published key set).

/** A learner with a certificate for a course of one video. */
async function certified() {
  const course = await makeCourse({
    title: `Faults ${Math.random().toString(36).slice(2, 7)}`,
    videos: [{ duration: 600 }],
  })
  const { Course } = await db()
  await Course.update({ certificates: true, certificateIssuer: 'Northwind Data Academy' }, { where: { id: course.id } })
  const learner = await makeLearner()
  await assignCourse(learner.id, course.id)
  await recordWatched(learner.id, course.id, course.videos[0], 600)
  await issueDueCertificates()
  const listed = await body<{ data: { code: string }[] }>(
    await call(listApi.loader, '/api/certificates', { token: learner.token }),
  )
  expect(listed.data).toHaveLength(1)
  return { course, learner, code: listed.data[0].code }
}

/** The verify page's answer for a code as typed, from an address. */
const verify = (typed: string, address = '198.51.100.7') =>
  call(verifyPage.loader, `/verify/${encodeURIComponent(typed)}`, {
    params: { code: typed },
    headers: { 'X-Portal-Client-Address': address },
  })

async function credentialOf(learner: { token: string }, code: string) {
  const { data } = await body<{ data: { jwt: string } }>(
    await call(credentialApi.loader, `/api/certificates/${code}/credential`, {
      token: learner.token,
      params: { code },
    }),
  )
  return data.jwt
}

async function checked(jwt: string) {
  const response = await call(verifyApi.action, '/api/certificates/verify', {
    method: 'POST',
    json: { credential: jwt },
  })
  expect(response.status).toBe(200)
  return (await body<{ data: { result: string } }>(response)).data.result
}

/** One character of a code changed to another of the alphabet that does not read as it. */
function mistyped(code: string, at: number) {
  const plain = code.replaceAll('-', '')
  const other = plain[at] === 'X' ? 'Y' : 'X'
  return groupedCode(plain.slice(0, at) + other + plain.slice(at + 1))
}

describe('a code typed by hand', () => {
  it('with one character wrong names no certificate (a plain 404), wherever the slip is', async () => {
    const { code } = await certified()
    expect((await verify(code)).status).toBe(200)
    for (const at of [0, 7, 13, 25]) {
      const typo = mistyped(code, at)
      expect(typo).not.toBe(code)
      const answer = await verify(typo, `198.51.100.${at + 20}`)
      expect(answer.status, typo).toBe(404)
    }
    // what a person may type for the same code still finds it: lower case, spaces for hyphens, O for 0
    const loose = code.toLowerCase().replaceAll('-', ' ').replaceAll('0', 'o')
    expect((await verify(loose)).status).toBe(200)
  })
})

describe('guessing codes', () => {
  it('is held back after 30 misses from one address, whose real codes still answer; other addresses go on', async () => {
    const { code } = await certified()
    const guesser = '203.0.113.9'
    const guess = (i: number) =>
      groupedCode(
        i
          .toString(32)
          .toUpperCase()
          .padStart(26, '0')
          .replace(/[ILOU]/g, 'Z'),
      )
    for (let i = 1; i <= 30; i++) expect((await verify(guess(i), guesser)).status).toBe(404)
    const held = await verify(guess(31), guesser)
    expect(held.status).toBe(429)
    expect(JSON.stringify(await body(held))).toMatch(/Too many codes/)
    expect(Number(held.headers.get('Retry-After'))).toBeGreaterThan(0)
    // a real certificate still answers for the same address, and another address still gets its 404
    expect((await verify(code, guesser)).status).toBe(200)
    expect((await verify(guess(32), '203.0.113.10')).status).toBe(404)
  })
})

describe('a learner renamed after the issue', () => {
  it('keeps the name the certificate was issued to, on the verify page and in the credential', async () => {
    const { learner, code } = await certified()
    const { User } = await db()
    const before = (await User.findByPk(learner.id))!
    const issuedTo = `${before.firstName} ${before.lastName}`
    await User.update({ firstName: 'Renamed', lastName: 'Person' }, { where: { id: learner.id } })
    const shown = await body<{ certificate: { learnerName: string; state: string } }>(await verify(code))
    expect(shown.certificate).toEqual(expect.objectContaining({ learnerName: issuedTo, state: 'valid' }))
    expect(await checked(await credentialOf(learner, code))).toBe('valid')
  })
})

describe('the signing key rotated', () => {
  const configured = process.env.CERTIFICATE_SIGNING_KEY
  afterEach(() => {
    if (configured === undefined) delete process.env.CERTIFICATE_SIGNING_KEY
    else process.env.CERTIFICATE_SIGNING_KEY = configured
    resetEnvCache()
  })

  const newKey = () =>
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

  it('leaves credentials signed by the old key valid: both keys are published, and a JOSE key set resolves each', async () => {
    process.env.CERTIFICATE_SIGNING_KEY = newKey()
    resetEnvCache()
    const old = await certified()
    const oldJwt = await credentialOf(old.learner, old.code)

    process.env.CERTIFICATE_SIGNING_KEY = newKey()
    resetEnvCache()
    const current = await certified()
    const newJwt = await credentialOf(current.learner, current.code)

    const kidOf = (jwt: string) =>
      (JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString()) as { kid: string }).kid
    expect(kidOf(newJwt)).not.toBe(kidOf(oldJwt))

    // as a verifier does: the issuer's published key set, the key picked by the credential's kid
    const set = await body<{ keys: JWK[] }>(await call(jwks.loader, '/issuer/jwks.json'))
    expect(set.keys.map((k) => k.kid)).toEqual(expect.arrayContaining([kidOf(oldJwt), kidOf(newJwt)]))
    const keySet = createLocalJWKSet(set)
    const issuer = `${getEnv().PUBLIC_URL}/issuer`
    for (const jwt of [oldJwt, newJwt]) {
      const { protectedHeader } = await jwtVerify(jwt, keySet, { issuer, algorithms: ['RS256'] })
      expect(protectedHeader.kid).toBe(kidOf(jwt))
    }
    // and the portal's own check agrees
    expect(await checked(oldJwt)).toBe('valid')
    expect(await checked(newJwt)).toBe('valid')
  })
})

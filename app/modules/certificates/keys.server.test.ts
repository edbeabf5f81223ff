import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { getSecrets, resetEnvCache } from '#app/utils/env.server.ts'
import { keySet, publicJwkOf, signingKey, signingKeyFromPem } from './keys.server.ts'

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi']

const pemOf = (modulusLength: number) =>
  generateKeyPairSync('rsa', { modulusLength }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

let dataDir: string
const saved = { DATA_DIR: process.env.DATA_DIR, CERTIFICATE_SIGNING_KEY: process.env.CERTIFICATE_SIGNING_KEY }
const secretsFile = () => path.join(dataDir, 'secrets.json')
const stored = () => JSON.parse(readFileSync(secretsFile(), 'utf8')) as Record<string, string>

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'portal-keys-'))
  process.env.DATA_DIR = dataDir
  delete process.env.CERTIFICATE_SIGNING_KEY
  resetEnvCache()
})

afterEach(() => {
  for (const [name, value] of Object.entries(saved))
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  resetEnvCache()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('the certificate signing key', () => {
  it('is made once into secrets.json (mode 600) beside the other secrets, and the same on the next read', async () => {
    const key = await signingKey()
    expect(statSync(secretsFile()).mode & 0o777).toBe(0o600)
    expect(stored().certificateSigningKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----$/)
    expect(Object.keys(stored())).toEqual(expect.arrayContaining(['sessionSecret', 'jwtSecret', 'databasePassword']))
    expect(key.kid).toMatch(/^[\w-]{43}$/)
    expect(key.privateKey.asymmetricKeyDetails?.modulusLength).toBe(2048)

    resetEnvCache()
    expect((await signingKey()).kid).toBe(key.kid)
  })

  it('stays in secrets.json when the other secrets are written again', async () => {
    const { kid } = await signingKey()
    const { sessionSecret: _gone, ...rest } = stored()
    writeFileSync(secretsFile(), JSON.stringify(rest), { mode: 0o600 })
    resetEnvCache()
    getSecrets()
    expect(stored().sessionSecret).toBeTruthy()
    resetEnvCache()
    expect((await signingKey()).kid).toBe(kid)
  })

  it('is CERTIFICATE_SIGNING_KEY when set, written on one line or several, and then not kept on disk', async () => {
    const pem = pemOf(2048)
    const { kid } = await signingKeyFromPem(pem)
    process.env.CERTIFICATE_SIGNING_KEY = pem
    resetEnvCache()
    expect((await signingKey()).kid).toBe(kid)
    process.env.CERTIFICATE_SIGNING_KEY = pem.trim().replace(/\n/g, '\\n')
    resetEnvCache()
    expect((await signingKey()).kid).toBe(kid)
    expect(() => readFileSync(secretsFile(), 'utf8')).toThrow()
  })

  it('refuses a key that is not a PKCS#8 PEM, or an RSA key under 2048 bits', async () => {
    process.env.CERTIFICATE_SIGNING_KEY = 'not a key'
    resetEnvCache()
    expect(() => signingKey()).toThrow(/CERTIFICATE_SIGNING_KEY/)
    await expect(signingKeyFromPem(pemOf(1024))).rejects.toThrow(/2048/)
  })

  it('is published without any private member', async () => {
    const key = await signingKeyFromPem(pemOf(2048))
    const published = publicJwkOf(key)
    expect(published).toEqual({ kty: 'RSA', n: expect.any(String), e: 'AQAB', kid: key.kid, alg: 'RS256', use: 'sig' })
    // even a private JWK handed to the key set comes out public
    const privateJwk = { ...key.privateKey.export({ format: 'jwk' }), kid: key.kid }
    expect(Object.keys(privateJwk)).toEqual(expect.arrayContaining(PRIVATE_MEMBERS))
    for (const jwk of [published, key.publicJwk, ...keySet([published, privateJwk]).keys])
      for (const member of PRIVATE_MEMBERS) expect(jwk, member).not.toHaveProperty(member)
  })
})

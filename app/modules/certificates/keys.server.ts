import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto'
import { calculateJwkThumbprint, type JSONWebKeySet, type JWK } from 'jose'
import { getCertificateSigningKey } from '#app/utils/env.server.ts'

// The key pair that signs certificates' Open Badges credentials (RS256, the one algorithm Open Badges 3.0
// requires every verifier to support). The private key never leaves this module's callers; what is published
// is the public half, named by its RFC 7638 thumbprint, so a key is named the same wherever it is computed.

export type SigningKey = {
  /** the RFC 7638 thumbprint of the public key */
  kid: string
  privateKey: KeyObject
  /** the public key as published: kty, n, e, kid, alg, use */
  publicJwk: JWK
}

/** Only these members of an RSA public key are ever published: a private member must never slip through. */
const PUBLIC_MEMBERS = ['kty', 'n', 'e'] as const

/** The signing key of a PEM private key (PKCS#8); an RSA key shorter than 2048 bits is refused. */
export async function signingKeyFromPem(pem: string): Promise<SigningKey> {
  const privateKey = createPrivateKey(pem)
  const modulusLength = privateKey.asymmetricKeyDetails?.modulusLength ?? 0
  if (privateKey.asymmetricKeyType !== 'rsa' || modulusLength < 2048)
    throw new Error('The certificate signing key must be an RSA key of at least 2048 bits.')
  const exported = createPublicKey(privateKey).export({ format: 'jwk' })
  const bare: JWK = { kty: exported.kty, n: exported.n, e: exported.e }
  const kid = await calculateJwkThumbprint(bare, 'sha256')
  return { kid, privateKey, publicJwk: { ...bare, kid, alg: 'RS256', use: 'sig' } }
}

let cached: { pem: string; key: Promise<SigningKey> } | undefined

/** The portal's signing key, from CERTIFICATE_SIGNING_KEY or $DATA_DIR/secrets.json (made there once). */
export function signingKey(): Promise<SigningKey> {
  const pem = getCertificateSigningKey()
  if (cached?.pem !== pem) cached = { pem, key: signingKeyFromPem(pem) }
  return cached.key
}

function publicOnly(jwk: JWK): JWK {
  if (!jwk.kid) throw new Error('A published key needs its kid.')
  const bare: JWK = {}
  for (const member of PUBLIC_MEMBERS) if (jwk[member] !== undefined) bare[member] = jwk[member]
  return { ...bare, kid: jwk.kid, alg: 'RS256', use: 'sig' }
}

/** The public JWK of a signing key, as the database keeps it and as it is published. */
export const publicJwkOf = (key: SigningKey): JWK => publicOnly(key.publicJwk)

/** Every key ever used, as a JWK Set: what credentials signed before a rotation verify against. */
export const keySet = (jwks: JWK[]): JSONWebKeySet => ({ keys: jwks.map(publicOnly) })

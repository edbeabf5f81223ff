import type { JSONWebKeySet, JWK } from 'jose'
import type { Transaction } from 'sequelize'
import { getEnv } from '#app/utils/env.server.ts'
import { select } from '#db/client.ts'
import { buildCredential, signCredential, statusListCredential } from './credential.server.ts'
import type { CertificateFacts } from './facts.ts'
import { keySet, publicJwkOf, signingKey, type SigningKey } from './keys.server.ts'

// The database's side of signing: every key a credential was signed with is kept (certificate_keys) before
// its first credential is, so the published key set always holds the key of every credential given, across a
// key change and across instances with keys of their own.

/** The signing key, its public half recorded in `transaction` (a no-op after the first time). */
export async function registeredSigningKey(transaction?: Transaction): Promise<SigningKey> {
  const key = await signingKey()
  await select(
    `INSERT INTO certificate_keys (kid, public_jwk) VALUES ($1, $2::jsonb) ON CONFLICT (kid) DO NOTHING RETURNING kid`,
    [key.kid, JSON.stringify(publicJwkOf(key))],
    transaction,
  )
  return key
}

/**
 * A certificate's credential, signed. The salt of the email's hash is published beside the hash in the
 * credential; it only has to differ from one certificate to the next, so it is derived from the certificate's
 * id under the key's name.
 */
export async function signedCredential(facts: CertificateFacts, publicUrl: string, key: SigningKey): Promise<string> {
  return signCredential(buildCredential(facts, { publicUrl }, `certificate-salt:${key.kid}`), key)
}

/**
 * Every key credentials were signed with, and the one the next will be, as a JWK Set (the issuer's
 * `jwks.json`). Reading it writes nothing: a key is recorded when it first signs.
 */
export async function publishedKeySet(): Promise<JSONWebKeySet> {
  const current = publicJwkOf(await signingKey())
  const rows = await select<{ public_jwk: JWK }>(`SELECT public_jwk FROM certificate_keys ORDER BY created_at, kid`, [])
  const keys = rows.map((r) => r.public_jwk)
  if (!keys.some((k) => k.kid === current.kid)) keys.push(current)
  return keySet(keys)
}

/** One published key by its thumbprint (what a credential's `kid` URL opens); undefined when there is none. */
export async function publishedKey(kid: string): Promise<JWK | undefined> {
  const { keys } = await publishedKeySet()
  return keys.find((k) => k.kid === kid)
}

/** The revocation list every credential points at, signed now: the revoked certificates' places set. */
export async function revocationList(): Promise<string> {
  // the current key is in the published set whether or not it has signed a certificate yet
  const key = await signingKey()
  const rows = await select<{ status_index: number }>(
    `SELECT status_index FROM certificates WHERE revoked_at IS NOT NULL ORDER BY status_index`,
    [],
  )
  return statusListCredential(
    rows.map((r) => r.status_index),
    { publicUrl: getEnv().PUBLIC_URL },
    key,
  )
}

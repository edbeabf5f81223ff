import type { JSONWebKeySet, JWK } from 'jose'
import type { Transaction } from 'sequelize'
import { getEnv } from '#app/utils/env.server.ts'
import { select } from '#db/client.ts'
import { buildCredential, publishedKeyId, signCredential, statusListCredential } from './credential.server.ts'
import type { CertificateFacts } from './facts.ts'
import { keySet, publicJwkOf, signingKey, type SigningKey } from './keys.server.ts'

// The database's side of signing: every key a credential was signed with is kept (certificate_keys) before
// its first credential is, so the published key set always holds the key of every credential given, across a
// key change and across instances with keys of their own.

/** The key this process has recorded, outside any transaction: recorded once per key and process. */
let recorded: { kid: string; done: Promise<unknown> } | undefined

/**
 * The signing key, its public half recorded (a no-op when it is already). In `transaction`, recorded there,
 * every time: what the transaction signs must not outlive a rollback of the record. Without one, once per
 * process: a failed record is tried again by the next call.
 */
export async function registeredSigningKey(transaction?: Transaction): Promise<SigningKey> {
  const key = await signingKey()
  const record = () =>
    select(
      `INSERT INTO certificate_keys (kid, public_jwk) VALUES ($1, $2::jsonb) ON CONFLICT (kid) DO NOTHING RETURNING kid`,
      [key.kid, JSON.stringify(publicJwkOf(key))],
      transaction,
    )
  if (transaction) {
    await record()
    return key
  }
  if (recorded?.kid !== key.kid) {
    const done = record().catch((error: unknown) => {
      if (recorded?.done === done) recorded = undefined
      throw error
    })
    recorded = { kid: key.kid, done }
  }
  await recorded.done
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

/**
 * The key set as a verifier reads it (GET /issuer/jwks.json, /issuer/keys/…): each key's `kid` is the URL a
 * credential's header names it by, so a JOSE library picks the key for a credential by its header alone.
 */
export function forVerifiers(key: JWK): JWK {
  return { ...key, kid: publishedKeyId(getEnv().PUBLIC_URL, key.kid ?? '') }
}

/** One published key by its thumbprint (what a credential's `kid` URL opens); undefined when there is none. */
export async function publishedKey(kid: string): Promise<JWK | undefined> {
  const { keys } = await publishedKeySet()
  return keys.find((k) => k.kid === kid)
}

/**
 * The revocation list every credential points at, signed now: the revoked certificates' places set. Its key
 * is recorded first (once per process), so every instance's key set holds the key it was signed with, even
 * one that has signed no certificate yet.
 */
export async function revocationList(): Promise<string> {
  const key = await registeredSigningKey()
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

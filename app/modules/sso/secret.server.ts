import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { getIdentitySecretsKey } from '#app/utils/env.server.ts'

// Client secrets are kept sealed (AES-256-GCM) under a key outside the database: `v1.<iv>.<tag>.<ciphertext>`,
// base64url. The provider's id is the additional data, so a sealed secret copied to another provider's row
// does not open there.

const VERSION = 'v1'

export function sealSecret(secret: string, providerId: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', getIdentitySecretsKey(), iv)
  cipher.setAAD(Buffer.from(providerId))
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  return [VERSION, iv, cipher.getAuthTag(), sealed]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.')
}

/** The secret, or undefined when it cannot be opened (the key was replaced or lost). */
export function openSecret(sealed: string, providerId: string): string | undefined {
  const [version, iv, tag, data] = sealed.split('.')
  if (version !== VERSION || !iv || !tag || data === undefined) return undefined
  try {
    const decipher = createDecipheriv('aes-256-gcm', getIdentitySecretsKey(), Buffer.from(iv, 'base64url'))
    decipher.setAAD(Buffer.from(providerId))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8')
  } catch {
    return undefined
  }
}

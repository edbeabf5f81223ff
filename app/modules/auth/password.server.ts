import argon2 from 'argon2'

// argon2id with the library's defaults (64 MiB, 3 passes).
export function hashPassword(password: string) {
  return argon2.hash(password, { type: argon2.argon2id })
}

export async function verifyPassword(hash: string | null, password: string) {
  if (!hash) {
    // Spend the same time for an account without a password as for a wrong one.
    await argon2.hash(password, { type: argon2.argon2id })
    return false
  }
  try {
    return await argon2.verify(hash, password)
  } catch {
    return false
  }
}

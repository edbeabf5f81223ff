import type { Readable } from 'node:stream'

// What every storage driver is and checks: the disk driver (storage.server.ts) and the S3 driver
// (s3-storage.server.ts, loaded only when S3 is configured) both build on it.

/**
 * A body to keep: bytes in memory (seeds, small files), or a file on local disk with its size
 * (a streamed upload, so a large body never sits in memory and S3 gets a known length).
 */
export type StorageBody = Buffer | { file: string; size: number }

/**
 * Where file bodies live. The disk driver is the default; the S3 driver joins it behind the same
 * interface (ADR 006), chosen by S3_BUCKET. Keys are random and never come from a user's file name.
 */
export interface StorageDriver {
  put(key: string, body: StorageBody, contentType: string): Promise<void>
  /** undefined when there is no such object */
  get(key: string): Promise<{ body: Readable; size: number } | undefined>
  /** removing a key that does not exist is not an error */
  remove(key: string): Promise<void>
  /** let go of connections (S3); the driver is not used afterwards */
  close?(): void
}

const KEY = /^[a-z0-9][a-z0-9._-]{0,200}$/

export function assertKey(key: string) {
  if (!KEY.test(key) || key.includes('..')) throw new Error(`Invalid storage key: ${key}`)
}

export const bodySize = (body: StorageBody) => (Buffer.isBuffer(body) ? body.length : body.size)

import { randomUUID } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { copyFile, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { getEnv } from '#app/utils/env.server.ts'
import type { S3StorageOptions } from './s3-storage.server.ts'
import { assertKey, type StorageDriver } from './storage-driver.ts'

export { bodySize, type StorageBody, type StorageDriver } from './storage-driver.ts'

export function diskStorage(root: string): StorageDriver {
  const fileFor = (key: string) => {
    assertKey(key)
    return path.join(root, key)
  }
  return {
    async put(key, body) {
      const target = fileFor(key)
      await mkdir(root, { recursive: true })
      // write then rename, so a reader never sees half a file; a leading dot is never a valid key
      const partial = path.join(root, `.partial-${randomUUID()}`)
      try {
        if (Buffer.isBuffer(body)) await writeFile(partial, body, { mode: 0o640 })
        else await copyFile(body.file, partial)
        await rename(partial, target)
      } catch (error) {
        await rm(partial, { force: true })
        throw error
      }
    },
    async get(key) {
      const file = fileFor(key)
      try {
        const info = await stat(file)
        if (!info.isFile()) return undefined
        return { body: createReadStream(file), size: info.size }
      } catch {
        return undefined
      }
    },
    async remove(key) {
      await rm(fileFor(key), { force: true })
    },
  }
}

let driver: StorageDriver | undefined

/** S3 (or an S3-compatible server) when S3_BUCKET is set, else `$DATA_DIR/uploads`. */
export function storage(): StorageDriver {
  if (driver) return driver
  const env = getEnv()
  driver = env.S3_BUCKET
    ? lazyS3Storage({ bucket: env.S3_BUCKET, ...s3Settings() })
    : diskStorage(path.join(env.DATA_DIR, 'uploads'))
  return driver
}

/** Where S3 is and how to sign in to it (S3_ENDPOINT, S3_REGION …), for any bucket. */
export function s3Settings(): Omit<S3StorageOptions, 'bucket'> {
  const env = getEnv()
  return {
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    forcePathStyle: env.S3_FORCE_PATH_STYLE,
    credentials:
      env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
        : undefined,
  }
}

/** Forget the chosen driver (tests that change the environment). */
export function resetStorage() {
  driver?.close?.()
  driver = undefined
}

// The AWS SDK takes a noticeable while to load; a portal on local disk (and every CLI command)
// should not pay for it, so the S3 driver is loaded on first use.
function lazyS3Storage(options: S3StorageOptions): StorageDriver {
  let loaded: Promise<StorageDriver> | undefined
  let closed = false
  const load = () =>
    (loaded ??= import('./s3-storage.server.ts').then(({ s3Storage }) => {
      const s3 = s3Storage(options)
      if (closed) s3.close?.()
      return s3
    }))
  return {
    put: async (key, body, contentType) => (await load()).put(key, body, contentType),
    get: async (key) => (await load()).get(key),
    remove: async (key) => (await load()).remove(key),
    close() {
      closed = true
      void loaded?.then((s3) => s3.close?.()).catch(() => undefined)
    },
  }
}

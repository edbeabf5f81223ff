import { createReadStream } from 'node:fs'
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { getEnv } from '#app/utils/env.server.ts'

/**
 * Where file bodies live. The disk driver is the default; an S3 driver joins it behind the same
 * interface (DESIGN.md §7). Keys are random and never come from a user's file name.
 */
export interface StorageDriver {
  put(key: string, body: Buffer, contentType: string): Promise<void>
  /** undefined when there is no such object */
  get(key: string): Promise<{ body: Readable; size: number } | undefined>
  remove(key: string): Promise<void>
}

const KEY = /^[a-z0-9][a-z0-9._-]{0,200}$/

export function assertKey(key: string) {
  if (!KEY.test(key) || key.includes('..')) throw new Error(`Invalid storage key: ${key}`)
}

export function diskStorage(root: string): StorageDriver {
  const fileFor = (key: string) => {
    assertKey(key)
    return path.join(root, key)
  }
  return {
    async put(key, body) {
      const target = fileFor(key)
      await mkdir(root, { recursive: true })
      // write then rename, so a reader never sees half a file
      const partial = `${target}.partial`
      await writeFile(partial, body, { mode: 0o640 })
      await rename(partial, target)
    },
    async get(key) {
      const file = fileFor(key)
      try {
        const info = await stat(file)
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

export function storage(): StorageDriver {
  driver ??= diskStorage(path.join(getEnv().DATA_DIR, 'uploads'))
  return driver
}

import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { s3Storage } from '#app/modules/files/s3-storage.server.ts'
import { diskStorage, resetStorage, storage, type StorageDriver } from '#app/modules/files/storage.server.ts'
import { getEnv, resetEnvCache } from '#app/utils/env.server.ts'
import { readBody, startS3rver, type RunningS3rver } from '#tests/fixtures/files.ts'

// One suite of driver tests, run against the disk driver and against the S3 driver talking to a
// real S3-compatible server (s3rver) on loopback.

let s3: RunningS3rver
let diskRoot: string
const drivers: StorageDriver[] = []

beforeAll(async () => {
  s3 = await startS3rver()
  diskRoot = await mkdtemp(path.join(os.tmpdir(), 'portal-disk-test-'))
})

afterAll(async () => {
  for (const driver of drivers) driver.close?.()
  await s3?.close()
  await rm(diskRoot, { recursive: true, force: true })
})

const key = (extension = '.bin') => `${randomBytes(8).toString('hex')}${extension}`

describe.each([
  { name: 'disk', make: () => diskStorage(diskRoot) },
  { name: 's3', make: () => s3Storage(s3.options) },
])('$name driver', ({ make }) => {
  let driver: StorageDriver
  beforeAll(() => {
    driver = make()
    drivers.push(driver)
  })

  test('a body comes back byte for byte, with its size', async () => {
    // every byte value, and more than one network or disk chunk
    const body = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(300_000)])
    const k = key()
    await driver.put(k, body, 'application/octet-stream')
    const stored = await driver.get(k)
    expect(stored?.size).toBe(body.length)
    expect((await readBody(stored!.body)).equals(body)).toBe(true)
  })

  test('a body can come from a file on disk with its size', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-source-test-'))
    try {
      const body = randomBytes(70_000)
      const file = path.join(dir, 'upload')
      await writeFile(file, body)
      const k = key('.pdf')
      await driver.put(k, { file, size: body.length }, 'application/pdf')
      const stored = await driver.get(k)
      expect(stored?.size).toBe(body.length)
      expect((await readBody(stored!.body)).equals(body)).toBe(true)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  test('an empty body is kept as empty', async () => {
    const k = key()
    await driver.put(k, Buffer.alloc(0), 'text/csv')
    const stored = await driver.get(k)
    expect(stored?.size).toBe(0)
    expect((await readBody(stored!.body)).length).toBe(0)
  })

  test('putting the same key again replaces the body', async () => {
    const k = key('.csv')
    await driver.put(k, Buffer.from('first version, longer than the second\n'), 'text/csv')
    await driver.put(k, Buffer.from('second\n'), 'text/csv')
    const stored = await driver.get(k)
    expect(stored?.size).toBe(7)
    expect((await readBody(stored!.body)).toString()).toBe('second\n')
  })

  test('a removed body is gone', async () => {
    const k = key()
    await driver.put(k, Buffer.from('to be removed'), 'text/plain')
    await driver.remove(k)
    expect(await driver.get(k)).toBeUndefined()
  })

  test('removing a key that does not exist is fine', async () => {
    await expect(driver.remove(key())).resolves.toBeUndefined()
  })

  test('getting a key that does not exist gives undefined', async () => {
    expect(await driver.get(key())).toBeUndefined()
  })

  test.each(['../x', '..', 'a/b', 'a\\b', '/etc/passwd', 'Upper.png', '.hidden', '', 'a..b', `${'a'.repeat(202)}`])(
    'the key %j is refused by every operation',
    async (bad) => {
      await expect(driver.put(bad, Buffer.from('x'), 'text/plain')).rejects.toThrow(/Invalid storage key/)
      await expect(driver.get(bad)).rejects.toThrow(/Invalid storage key/)
      await expect(driver.remove(bad)).rejects.toThrow(/Invalid storage key/)
    },
  )
})

describe('storage() chooses the driver from the environment', () => {
  const names = ['S3_BUCKET', 'S3_ENDPOINT', 'S3_FORCE_PATH_STYLE', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]))

  afterEach(() => {
    for (const name of names) {
      if (saved[name] === undefined) delete process.env[name]
      else process.env[name] = saved[name]
    }
    resetEnvCache()
    resetStorage()
  })

  test('with S3_BUCKET set, bodies go to the bucket', async () => {
    Object.assign(process.env, s3.env)
    resetEnvCache()
    resetStorage()
    const k = key('.txt')
    await storage().put(k, Buffer.from('in the bucket'), 'text/plain')

    const direct = s3Storage(s3.options)
    drivers.push(direct)
    const stored = await direct.get(k)
    expect((await readBody(stored!.body)).toString()).toBe('in the bucket')
    await expect(stat(path.join(getEnv().DATA_DIR, 'uploads', k))).rejects.toThrow(/ENOENT/)
    const fromStorage = await storage().get(k)
    expect((await readBody(fromStorage!.body)).toString()).toBe('in the bucket')
  })

  test('without S3_BUCKET, bodies go to $DATA_DIR/uploads', async () => {
    delete process.env.S3_BUCKET
    resetEnvCache()
    resetStorage()
    const k = key('.txt')
    await storage().put(k, Buffer.from('on the disk'), 'text/plain')
    expect((await readFile(path.join(getEnv().DATA_DIR, 'uploads', k))).toString()).toBe('on the disk')
    const direct = s3Storage(s3.options)
    drivers.push(direct)
    expect(await direct.get(k)).toBeUndefined()
  })
})

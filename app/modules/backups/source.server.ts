import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { invalid, notFound } from '../errors.ts'

/**
 * An archive to read: a file, an S3 object (s3://bucket/key, read with the portal's S3 settings) or
 * standard output of another program (`-`). Each call opens it afresh, from its first byte.
 */
export async function openArchive(location: string): Promise<Readable> {
  if (location === '-') return process.stdin
  if (location.startsWith('s3://')) {
    const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/(.+)$/.exec(location)
    if (!match) throw invalid(`"${location}" is not an S3 object address (s3://bucket/key).`)
    const [{ GetObjectCommand }, { makeS3Client }, { s3Settings }] = await Promise.all([
      import('@aws-sdk/client-s3'),
      import('../files/s3-storage.server.ts'),
      import('../files/storage.server.ts'),
    ])
    const client = makeS3Client(s3Settings())
    try {
      const object = await client.send(new GetObjectCommand({ Bucket: match[1], Key: match[2] }))
      if (!(object.Body instanceof Readable)) throw new Error(`S3 returned no readable body for ${location}`)
      object.Body.once('close', () => client.destroy())
      return object.Body
    } catch (error) {
      client.destroy()
      const name = (error as Error).name
      if (name === 'NoSuchKey' || name === 'NotFound') throw notFound(`There is no archive at ${location}.`)
      throw new Error(`Reading ${location} failed: ${(error as Error).message.split('\n')[0]}`)
    }
  }
  const file = path.resolve(location)
  const info = await stat(file).catch(() => undefined)
  if (!info) throw notFound(`There is no archive at ${file}.`)
  if (!info.isFile()) throw invalid(`${file} is not a file.`)
  return createReadStream(file)
}

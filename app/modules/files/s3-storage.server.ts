import { createReadStream } from 'node:fs'
import { Readable } from 'node:stream'
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3'
import { assertKey, bodySize, type StorageDriver } from './storage-driver.ts'

export type S3StorageOptions = {
  bucket: string
  /** an S3-compatible server; unset means AWS itself */
  endpoint?: string
  region: string
  /** `http://host/bucket/key` rather than `http://bucket.host/key` (MinIO, s3rver) */
  forcePathStyle: boolean
  /** unset: the SDK's usual chain (environment, instance role, …) */
  credentials?: { accessKeyId: string; secretAccessKey: string }
}

/** A client for S3 or an S3-compatible server, set up the same way for uploads and exports. */
export function makeS3Client(options: Omit<S3StorageOptions, 'bucket'>): S3Client {
  return new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    credentials: options.credentials,
    // the default flexible checksums corrupt streamed bodies on S3-compatible servers
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  })
}

/** File bodies in an S3 bucket. */
export function s3Storage(options: S3StorageOptions): StorageDriver {
  const client = makeS3Client(options)
  const Bucket = options.bucket
  return {
    async put(key, body, contentType) {
      assertKey(key)
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: key,
          Body: Buffer.isBuffer(body) ? body : createReadStream(body.file),
          ContentLength: bodySize(body),
          ContentType: contentType,
        }),
      )
    },
    async get(key) {
      assertKey(key)
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: key }))
        if (!(object.Body instanceof Readable)) throw new Error(`S3 returned no readable body for ${key}`)
        return { body: object.Body, size: object.ContentLength ?? 0 }
      } catch (error) {
        if (isMissing(error)) return undefined
        throw error
      }
    },
    async remove(key) {
      assertKey(key)
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key: key }))
      } catch (error) {
        if (!isMissing(error)) throw error
      }
    },
    close() {
      client.destroy()
    },
  }
}

// a missing bucket is a misconfiguration, not a missing file: that one is thrown
const isMissing = (error: unknown) =>
  error instanceof S3ServiceException &&
  error.name !== 'NoSuchBucket' &&
  (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404)

import { afterEach, describe, expect, it } from 'vitest'
import { ServiceError } from '#app/modules/errors.ts'
import { describeFailure, UsageError } from './output.ts'

// What every command prints when it fails: the lines on stderr and the exit code.

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'
const KEY_ID = 'AKIAIOSFODNN7EXAMPLE'
const saved = { ...process.env }

afterEach(() => {
  process.env = { ...saved }
})

describe('describeFailure', () => {
  it('hides S3 keys, passwords in URLs and signed request parameters on every line', () => {
    process.env.S3_SECRET_ACCESS_KEY = SECRET
    process.env.S3_ACCESS_KEY_ID = KEY_ID
    process.env.SMTP_URL = 'smtp://mailer:p%40ss-w0rd@mail.example.com:587'
    const failure = describeFailure(
      new Error(
        `Uploading to s3://reports/x.csv failed: signature for ${KEY_ID}/${SECRET} refused by https://ops:hunter22@s3.example.com/?X-Amz-Credential=${KEY_ID}%2F20260101&X-Amz-Signature=abc123\n` +
          'SMTP said: Invalid login for mailer: p@ss-w0rd',
      ),
    )
    expect(failure).toEqual({
      code: 1,
      lines: [
        'portal: Uploading to s3://reports/x.csv failed: signature for [hidden]/[hidden] refused by https://[hidden]@s3.example.com/?X-Amz-Credential=[hidden]&X-Amz-Signature=[hidden]',
        'SMTP said: Invalid login for [hidden]: [hidden]',
      ],
    })
  })

  it('hides them in usage errors, refusals of services and invalid input too, with their exit codes', () => {
    process.env.DATABASE_URL = 'postgres://portal:Db-Secret-77@db.internal:5432/portal'
    expect(describeFailure(new UsageError('cannot reach postgres://portal:Db-Secret-77@db.internal'))).toEqual({
      code: 2,
      lines: ['portal: cannot reach postgres://[hidden]@db.internal'],
    })
    expect(describeFailure(new ServiceError(409, 'Db-Secret-77 clash'))).toEqual({
      code: 1,
      lines: ['portal: [hidden] clash'],
    })
    expect(describeFailure(new ServiceError(400, 'bad'))).toEqual({ code: 2, lines: ['portal: bad'] })
  })
})

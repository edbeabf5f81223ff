import { afterEach, describe, expect, it } from 'vitest'
import { clientAddress } from './client-address.server.ts'
import { resetEnvCache } from './env.server.ts'

const request = (headers: Record<string, string>) => new Request('http://portal.test/', { headers })

describe('clientAddress', () => {
  afterEach(() => {
    delete process.env.TRUST_PROXY
    resetEnvCache()
  })

  it('uses the address the app server wrote, and ignores X-Forwarded-For without a trusted proxy', () => {
    expect(clientAddress(request({ 'X-Portal-Client-Address': '10.1.1.1', 'X-Forwarded-For': '6.6.6.6' }))).toBe(
      '10.1.1.1',
    )
    expect(clientAddress(request({}))).toBeUndefined()
  })

  it('behind a trusted proxy, takes the address the proxy appended, not what the client claimed', () => {
    process.env.TRUST_PROXY = '1'
    resetEnvCache()
    expect(clientAddress(request({ 'X-Forwarded-For': '1.2.3.4, 203.0.113.9' }))).toBe('203.0.113.9')
    expect(clientAddress(request({ 'X-Forwarded-For': '203.0.113.9' }))).toBe('203.0.113.9')
  })
})

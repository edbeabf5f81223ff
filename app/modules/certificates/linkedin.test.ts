import { describe, expect, it } from 'vitest'
import { linkedInAddUrl } from './linkedin.ts'

describe('the Add to LinkedIn link', () => {
  it('fills in the name, issuer, month (1–12, UTC), link and code, each encoded', () => {
    const url = new URL(
      linkedInAddUrl({
        title: 'SQL & Data Warehousing',
        issuerName: 'Northwind Data Academy',
        issuedAt: '2026-01-31T23:30:00.000Z',
        verifyUrl: 'https://portal.example/verify/7KQ2-M9XD',
        code: '7KQ2-M9XD',
      }),
    )
    expect(url.origin + url.pathname).toBe('https://www.linkedin.com/profile/add')
    expect(Object.fromEntries(url.searchParams)).toEqual({
      startTask: 'CERTIFICATION_NAME',
      name: 'SQL & Data Warehousing',
      organizationName: 'Northwind Data Academy',
      issueYear: '2026',
      issueMonth: '1',
      certUrl: 'https://portal.example/verify/7KQ2-M9XD',
      certId: '7KQ2-M9XD',
    })
  })
})

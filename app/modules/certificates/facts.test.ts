import { describe, expect, it } from 'vitest'
import { CODE_LENGTH, canonicalCode, groupedCode, hoursText, newCertificateCode, verifyUrl } from './facts.ts'

describe('certificate codes', () => {
  it('are 26 characters of Crockford base32, different each time', () => {
    const codes = new Set(Array.from({ length: 1000 }, newCertificateCode))
    expect(codes.size).toBe(1000)
    for (const code of codes) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/)
    expect(CODE_LENGTH).toBe(26)
  })

  it('use every character of the alphabet (no bias to a part of it)', () => {
    const seen = new Set(Array.from({ length: 200 }, newCertificateCode).join(''))
    expect(seen.size).toBe(32)
  })

  it('are read in groups of four and typed back in any case, with look-alikes forgiven', () => {
    const code = '7KQ2M9XDAB0CDEF1GHJKMNPQRS'
    const grouped = groupedCode(code)
    expect(grouped).toBe('7KQ2-M9XD-AB0C-DEF1-GHJK-MNPQ-RS')
    expect(canonicalCode(grouped)).toBe(code)
    expect(canonicalCode(' 7kq2 m9xd abOc def1 ghjk mnpq rs ')).toBe(code)
    expect(canonicalCode('7KQ2-M9XD-AB0C-DEFL-GHJK-MNPQ-RS')).toBe(code)
  })

  it('refuse what cannot be a code', () => {
    expect(canonicalCode('')).toBeUndefined()
    expect(canonicalCode('7KQ2-M9XD-AB0C-DEF1-GHJK-MNPQ-R')).toBeUndefined()
    expect(canonicalCode('7KQ2-M9XD-AB0C-DEF1-GHJK-MNPQ-RSU')).toBeUndefined()
    expect(canonicalCode('7KQ2-M9XD-AB0C-DEF1-GHJK-MNPQ-RU')).toBeUndefined()
    expect(canonicalCode('../../etc/passwd-aaaaaaaaaaaa')).toBeUndefined()
  })

  it('link to the public verify page in their grouped form', () => {
    expect(verifyUrl('https://portal.example', '7KQ2M9XDAB0CDEF1GHJKMNPQRS')).toBe(
      'https://portal.example/verify/7KQ2-M9XD-AB0C-DEF1-GHJK-MNPQ-RS',
    )
  })
})

describe('hours on a certificate', () => {
  it('are shown to a tenth, singular for one', () => {
    expect(hoursText(90)).toBe('1.5 hours')
    expect(hoursText(60)).toBe('1 hour')
    expect(hoursText(600)).toBe('10 hours')
    expect(hoursText(2)).toBe('0.1 hours')
    expect(hoursText(0)).toBe('0 hours')
  })
})

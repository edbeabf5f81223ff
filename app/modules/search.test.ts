import { describe, expect, it } from 'vitest'
import { searchPattern } from './search.ts'

describe('searchPattern', () => {
  it('matches the text anywhere, taking LIKE wildcards and the escape literally', () => {
    expect(searchPattern('  SQL  ')).toEqual({ search: 'SQL', pattern: '%SQL%' })
    expect(searchPattern('50%_off\\').pattern).toBe('%50\\%\\_off\\\\%')
    expect(searchPattern(undefined)).toEqual({ search: '', pattern: '%%' })
  })

  it('keeps at most 100 characters of a search', () => {
    expect(searchPattern('x'.repeat(500)).search).toHaveLength(100)
  })

  it('drops NUL characters, which PostgreSQL cannot take in text', () => {
    expect(searchPattern('da\u0000ta\u0000')).toEqual({ search: 'data', pattern: '%data%' })
  })
})

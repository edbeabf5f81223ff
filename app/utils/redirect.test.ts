import { describe, expect, it } from 'vitest'
import { safeRedirect } from './redirect.ts'

describe('safeRedirect', () => {
  it('keeps a path on this site with its query and hash', () => {
    expect(safeRedirect('/courses')).toBe('/courses')
    expect(safeRedirect('/courses?q=sql#top')).toBe('/courses?q=sql#top')
    expect(safeRedirect('/course/abc/def')).toBe('/course/abc/def')
  })
  it.each([
    'https://evil.example/',
    '//evil.example/steal',
    '/\\evil.example',
    'javascript:alert(1)',
    'courses',
    '/\u0000//evil.example',
    '',
  ])('refuses %j', (to) => {
    expect(safeRedirect(to, '/fallback')).toBe('/fallback')
  })
  it('refuses what is not a string', () => {
    expect(safeRedirect(null)).toBe('/')
    expect(safeRedirect(undefined, '/x')).toBe('/x')
  })
})

import { describe, expect, it } from 'vitest'
import { keptParams, parseTableQuery, tableHref } from './table-query.ts'

const options = { sortKeys: ['name', 'email', 'createdAt'] as const, defaultSort: 'name' as const }
const parse = (search: string, extra: Partial<Parameters<typeof parseTableQuery>[1]> = {}) =>
  parseTableQuery(new URL(`http://portal.test/admin/users${search}`), { ...options, ...extra })

describe('parseTableQuery', () => {
  it('defaults to the first page of 7 rows sorted by the default key ascending', () => {
    expect(parse('')).toEqual({ q: '', page: 1, size: 7, sort: 'name', dir: 'asc', offset: 0 })
  })

  it('reads valid values and computes the offset', () => {
    expect(parse('?q=ann&page=3&size=14&sort=email&dir=desc')).toEqual({
      q: 'ann',
      page: 3,
      size: 14,
      sort: 'email',
      dir: 'desc',
      offset: 28,
    })
    expect(parse('?page=2&size=21').offset).toBe(21)
  })

  it('clamps the page to 1 or more and ignores what is not a whole number', () => {
    for (const page of ['0', '-4', 'abc', '2.5', '1e3', '', ' 3']) {
      expect(parse(`?page=${encodeURIComponent(page)}`).page, page).toBe(1)
    }
  })

  it('caps an absurd page so the offset stays a safe integer', () => {
    const { page, offset } = parse('?page=99999999999999999999999')
    expect(page).toBe(10_000_000)
    expect(Number.isSafeInteger(offset)).toBe(true)
  })

  it('only accepts the page sizes 7, 14 and 21', () => {
    expect(parse('?size=14').size).toBe(14)
    expect(parse('?size=21').size).toBe(21)
    for (const size of ['5', '100', '0', 'x', '-7']) {
      expect(parse(`?size=${size}`).size, size).toBe(7)
    }
  })

  it('only sorts by an allowed key, so a column name from the URL never reaches SQL', () => {
    expect(parse('?sort=createdAt').sort).toBe('createdAt')
    expect(parse('?sort=password').sort).toBe('name')
    expect(parse('?sort=name;drop table users').sort).toBe('name')
  })

  it('accepts only asc or desc, falling back to the default direction', () => {
    expect(parse('?dir=desc').dir).toBe('desc')
    expect(parse('?dir=DESC').dir).toBe('asc')
    expect(parse('', { defaultSort: 'createdAt', defaultDir: 'desc' })).toMatchObject({
      sort: 'createdAt',
      dir: 'desc',
    })
    // a column chosen by the user without a direction starts ascending
    expect(parse('?sort=email', { defaultDir: 'desc' }).dir).toBe('asc')
  })

  it('trims the search text and bounds its length', () => {
    expect(parse('?q=%20%20sql%20%20').q).toBe('sql')
    expect(parse(`?q=${'a'.repeat(500)}`).q).toHaveLength(200)
  })
})

describe('tableHref', () => {
  const current = new URLSearchParams('course=c1&course=c2&q=sql&page=3')

  it('changes the given parameters and keeps the others, repeated ones included', () => {
    expect(tableHref('/admin/accesslog', current, { page: 4 })).toBe(
      '/admin/accesslog?course=c1&course=c2&q=sql&page=4',
    )
    expect(tableHref('/admin/accesslog', current, { sort: 'email', page: null })).toBe(
      '/admin/accesslog?course=c1&course=c2&q=sql&sort=email',
    )
  })

  it('encodes values and drops the question mark when nothing is left', () => {
    expect(tableHref('/admin/users', new URLSearchParams(), { q: 'a&b c' })).toBe('/admin/users?q=a%26b+c')
    expect(tableHref('/admin/users', new URLSearchParams('page=2'), { page: null })).toBe('/admin/users')
  })

  it('does not change the parameters it was given', () => {
    tableHref('/x', current, { q: null })
    expect(current.get('q')).toBe('sql')
  })
})

describe('keptParams', () => {
  it('lists every parameter but the excepted ones', () => {
    expect(keptParams(new URLSearchParams('course=c1&course=c2&size=14&page=2&q=x'), ['size', 'page'])).toEqual([
      ['course', 'c1'],
      ['course', 'c2'],
      ['q', 'x'],
    ])
  })
})

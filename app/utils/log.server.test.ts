import { describe, expect, it } from 'vitest'
import { normalizeSql, sqlHash } from './log.server.ts'

describe('normalizeSql', () => {
  it('keeps the statement and drops every value', () => {
    const sql =
      "Executed (default): SELECT * FROM users WHERE email = 'ada@example.com' AND password_hash = E'$argon2id$v=19$m=65536' AND id IN (1, 2, 3) LIMIT 1;"
    expect(normalizeSql(sql)).toBe('SELECT * FROM users WHERE email = ? AND password_hash = ? AND id IN (?…) LIMIT ?;')
    expect(normalizeSql("SELECT 'it''s', 'a\\'b' FROM t")).toBe('SELECT ?… FROM t')
  })

  it('gives one hash to one statement whatever its values', () => {
    expect(sqlHash("SELECT * FROM t WHERE a = 'x'")).toBe(sqlHash("SELECT  *\nFROM t WHERE a = 'yy'"))
    expect(sqlHash('SELECT * FROM t WHERE a = 1')).not.toBe(sqlHash('SELECT * FROM u WHERE a = 1'))
    expect(sqlHash('SELECT 1')).toMatch(/^[0-9a-f]{12}$/)
  })
})

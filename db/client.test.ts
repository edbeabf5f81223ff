import { describe, expect, it } from 'vitest'
import { sql } from './client.ts'

describe('sql', () => {
  it('numbers each :name once, in order of first use, and leaves ::casts alone', () => {
    expect(sql(`SELECT :b::text, CAST(:a AS int) WHERE x = :b AND y::int = :a_2`)).toMatchObject({
      text: `SELECT $1::text, CAST($2 AS int) WHERE x = $1 AND y::int = $3`,
      names: ['b', 'a', 'a_2'],
    })
  })

  it('names each statement by its text, the same text the same name', () => {
    expect(sql('SELECT :a').name).toBe(sql('SELECT :a').name)
    expect(sql('SELECT :a').name).not.toBe(sql('SELECT :a + 1').name)
  })
})

import { describe, expect, it } from 'vitest'
import { sql } from './client.ts'

describe('sql', () => {
  it('numbers each :name once, in order of first use, and leaves ::casts alone', () => {
    expect(sql(`SELECT :b::text, CAST(:a AS int) WHERE x = :b AND y::int = :a_2`)).toEqual({
      text: `SELECT $1::text, CAST($2 AS int) WHERE x = $1 AND y::int = $3`,
      names: ['b', 'a', 'a_2'],
    })
  })
})

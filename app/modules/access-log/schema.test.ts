import { describe, expect, it } from 'vitest'
import { AccessLogFilterSchema } from './schema.ts'

const parse = (filter: Record<string, unknown>) => AccessLogFilterSchema.safeParse(filter)

describe('the access-log filter dates', () => {
  it('take the report’s MM/dd/yyyy and the date inputs’ yyyy-MM-dd as the same day', () => {
    expect(parse({ startDate: '03/15/2026', endDate: '2026-03-16' })).toMatchObject({
      success: true,
      data: { startDate: '2026-03-15', endDate: '2026-03-16', courses: [] },
    })
    expect(parse({ startDate: '2026-03-15T23:30:00.000Z' })).toMatchObject({ data: { startDate: '2026-03-15' } })
  })

  it('refuse what is no real day, naming the field', () => {
    for (const startDate of ['2026-02-30', '13/01/2026', '02/30/2026', 'yesterday', '2026-3-5', 20260315]) {
      const result = parse({ startDate })
      expect(result.success, String(startDate)).toBe(false)
      expect(result.error?.issues[0]).toMatchObject({ path: ['startDate'], message: 'Start date must be a date.' })
    }
  })

  it('compare the days, whatever format each came in', () => {
    const backwards = parse({ startDate: '03/16/2026', endDate: '2026-03-15' })
    expect(backwards.error?.issues[0]).toMatchObject({
      path: ['endDate'],
      message: 'End date must not be before the start date.',
    })
  })
})

describe('the access-log filter’s includeLabs', () => {
  it('is false unless asked for, and only true or false', () => {
    expect(parse({})).toMatchObject({ success: true, data: { includeLabs: false } })
    expect(parse({ includeLabs: true })).toMatchObject({ success: true, data: { includeLabs: true } })
    for (const includeLabs of ['true', 1, 'yes']) {
      expect(parse({ includeLabs }).error?.issues[0], String(includeLabs)).toMatchObject({
        path: ['includeLabs'],
        message: 'Include labs must be true or false.',
      })
    }
  })
})

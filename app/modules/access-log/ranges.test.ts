import { describe, expect, it } from 'vitest'
import { EXPORT_RANGES, rangeDays } from './ranges.ts'

const at = (iso: string) => new Date(iso)

describe('named export ranges', () => {
  it('count whole days back from today in UTC', () => {
    const now = at('2026-11-15T12:00:00Z')
    expect(rangeDays('yesterday', now)).toEqual({ startDate: '2026-11-14', endDate: '2026-11-14' })
    expect(rangeDays('last-7-days', now)).toEqual({ startDate: '2026-11-08', endDate: '2026-11-14' })
    expect(rangeDays('last-month', now)).toEqual({ startDate: '2026-10-01', endDate: '2026-10-31' })
    expect(rangeDays('month-to-date', now)).toEqual({ startDate: '2026-11-01', endDate: '2026-11-15' })
  })

  it('cross month and year boundaries', () => {
    const newYear = at('2027-01-01T00:10:00Z')
    expect(rangeDays('yesterday', newYear)).toEqual({ startDate: '2026-12-31', endDate: '2026-12-31' })
    expect(rangeDays('last-7-days', newYear)).toEqual({ startDate: '2026-12-25', endDate: '2026-12-31' })
    expect(rangeDays('last-month', newYear)).toEqual({ startDate: '2026-12-01', endDate: '2026-12-31' })
    expect(rangeDays('month-to-date', newYear)).toEqual({ startDate: '2027-01-01', endDate: '2027-01-01' })
    // February's length, leap year or not
    expect(rangeDays('last-month', at('2028-03-10T12:00:00Z'))).toEqual({
      startDate: '2028-02-01',
      endDate: '2028-02-29',
    })
    expect(rangeDays('last-month', at('2027-03-31T12:00:00Z'))).toEqual({
      startDate: '2027-02-01',
      endDate: '2027-02-28',
    })
    expect(rangeDays('last-7-days', at('2026-03-03T12:00:00Z'))).toEqual({
      startDate: '2026-02-24',
      endDate: '2026-03-02',
    })
  })

  it('take today from the time zone, not from UTC', () => {
    // 23:30 UTC on 31 October is already 1 November in Berlin, and still 31 October in New York
    const now = at('2026-10-31T23:30:00Z')
    expect(rangeDays('month-to-date', now, 'Europe/Berlin')).toEqual({
      startDate: '2026-11-01',
      endDate: '2026-11-01',
    })
    expect(rangeDays('last-month', now, 'Europe/Berlin')).toEqual({ startDate: '2026-10-01', endDate: '2026-10-31' })
    expect(rangeDays('last-month', now, 'America/New_York')).toEqual({
      startDate: '2026-09-01',
      endDate: '2026-09-30',
    })
    expect(rangeDays('yesterday', now, 'America/New_York')).toEqual({ startDate: '2026-10-30', endDate: '2026-10-30' })
    // 10:00 UTC on 1 March is 23:00 on 28 February in Pago Pago (UTC−11) and 2 March in Kiritimati (UTC+14)
    expect(rangeDays('yesterday', at('2026-03-01T10:00:00Z'), 'Pacific/Pago_Pago')).toEqual({
      startDate: '2026-02-27',
      endDate: '2026-02-27',
    })
    expect(rangeDays('yesterday', at('2026-03-01T10:00:00Z'), 'Pacific/Kiritimati')).toEqual({
      startDate: '2026-03-01',
      endDate: '2026-03-01',
    })
  })

  it('refuse an unknown range or time zone', () => {
    expect(EXPORT_RANGES).toEqual(['yesterday', 'last-7-days', 'last-month', 'month-to-date'])
    expect(() => rangeDays('last-year' as never, new Date())).toThrow(/Range must be one of yesterday/)
    expect(() => rangeDays('yesterday', new Date(), 'Mars/Olympus')).toThrow(/IANA/)
  })

  it('crosses a daylight-saving change without losing or doubling a day', () => {
    // Europe/Berlin goes back an hour on 2026-10-25
    expect(rangeDays('last-7-days', new Date('2026-10-27T00:30:00Z'), 'Europe/Berlin')).toEqual({
      startDate: '2026-10-20',
      endDate: '2026-10-26',
    })
  })
})

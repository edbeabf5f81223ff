import { describe, expect, it } from 'vitest'
import { scheduleRangeDays } from './ranges.ts'

describe('scheduleRangeDays', () => {
  const at = new Date('2026-11-24T01:30:00Z')

  it('names yesterday as the schedule’s time zone counts days', () => {
    expect(scheduleRangeDays('yesterday', at, 'UTC')).toEqual({ startDate: '2026-11-23', endDate: '2026-11-23' })
    // 01:30 UTC is still the evening of the 23rd in New York
    expect(scheduleRangeDays('yesterday', at, 'America/New_York')).toEqual({
      startDate: '2026-11-22',
      endDate: '2026-11-22',
    })
    // and already 10:30 on the 24th in Tokyo
    expect(scheduleRangeDays('yesterday', at, 'Asia/Tokyo')).toEqual({ startDate: '2026-11-23', endDate: '2026-11-23' })
  })

  it('takes the seven whole days before today', () => {
    expect(scheduleRangeDays('last-7-days', at, 'UTC')).toEqual({ startDate: '2026-11-17', endDate: '2026-11-23' })
  })

  it('takes the whole previous month, across a year and a leap February', () => {
    expect(scheduleRangeDays('last-month', at, 'UTC')).toEqual({ startDate: '2026-10-01', endDate: '2026-10-31' })
    expect(scheduleRangeDays('last-month', new Date('2027-01-01T00:30:00Z'), 'UTC')).toEqual({
      startDate: '2026-12-01',
      endDate: '2026-12-31',
    })
    expect(scheduleRangeDays('last-month', new Date('2028-03-05T12:00:00Z'), 'Europe/Berlin')).toEqual({
      startDate: '2028-02-01',
      endDate: '2028-02-29',
    })
  })

  it('runs month to date from the first up to and including today', () => {
    expect(scheduleRangeDays('month-to-date', at, 'UTC')).toEqual({ startDate: '2026-11-01', endDate: '2026-11-24' })
    expect(scheduleRangeDays('month-to-date', new Date('2026-12-01T02:00:00Z'), 'UTC')).toEqual({
      startDate: '2026-12-01',
      endDate: '2026-12-01',
    })
  })

  it('crosses a daylight-saving change without losing or doubling a day', () => {
    // Europe/Berlin goes back an hour on 2026-10-25
    expect(scheduleRangeDays('last-7-days', new Date('2026-10-27T00:30:00Z'), 'Europe/Berlin')).toEqual({
      startDate: '2026-10-20',
      endDate: '2026-10-26',
    })
  })
})

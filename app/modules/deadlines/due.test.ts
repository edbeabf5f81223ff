import { describe, expect, it } from 'vitest'
import { daysUntilDue, describeDue, describeDueFully, DUE_DATE_MESSAGE, parseDueDate, timeZoneNames } from './due.ts'
import { describePlan, parseDays, ReminderPlanSchema, ReminderSettingsSchema } from './plan.ts'

const at = (iso: string) => new Date(iso)
const day = (dueDate: string, dueAt: string, timeZone = 'UTC') => ({ dueDate, dueAt, timeZone })
const exact = (dueAt: string, timeZone = 'UTC') => ({ dueDate: null, dueAt, timeZone })

describe('a due date as people write it', () => {
  it('reads a day in the forms that say which number is the month', () => {
    for (const text of ['2026-12-15', '2026/12/15', '15.12.2026', '15 Dec 2026', '15 December 2026', 'Dec 15, 2026'])
      expect(parseDueDate(text)).toEqual({ due: { kind: 'day', date: '2026-12-15' } })
  })

  it('reads an exact time with an offset as that instant, and one without as the learner’s local time', () => {
    expect(parseDueDate('2026-12-15T17:00:00Z')).toEqual({ due: { kind: 'instant', at: '2026-12-15T17:00:00.000Z' } })
    expect(parseDueDate('2026-12-15T17:00+01:00')).toEqual({ due: { kind: 'instant', at: '2026-12-15T16:00:00.000Z' } })
    expect(parseDueDate('2026-12-15 17:00')).toEqual({ due: { kind: 'local', date: '2026-12-15', time: '17:00' } })
    expect(parseDueDate('15 Dec 2026 9:30')).toEqual({ due: { kind: 'local', date: '2026-12-15', time: '09:30' } })
  })

  it('takes empty as no due date, and refuses what is not a date or leaves the month unsaid', () => {
    expect(parseDueDate('')).toEqual({ due: null })
    expect(parseDueDate('  ')).toEqual({ due: null })
    expect(parseDueDate(null)).toEqual({ due: null })
    for (const text of [
      '12/05/2026',
      '2026-02-30',
      'tomorrow',
      '2026-12-15 25:00',
      '15 Dec 26',
      '1999-12-31',
      'x'.repeat(50),
    ])
      expect(parseDueDate(text)).toEqual({ error: DUE_DATE_MESSAGE })
  })
})

describe('a due date as a learner reads it', () => {
  const dueTuesday = day('2026-12-15', '2026-12-16T00:00:00Z')

  it('counts calendar days in the learner’s time zone', () => {
    expect(describeDue(dueTuesday, at('2026-12-14T10:00:00Z'))).toBe('Due tomorrow')
    expect(describeDue(dueTuesday, at('2026-12-15T23:59:00Z'))).toBe('Due today')
    expect(describeDue(dueTuesday, at('2026-12-10T10:00:00Z'))).toBe('Due 15 Dec')
    expect(describeDue(dueTuesday, at('2026-12-16T00:00:00Z'))).toBe('Overdue by 1 day')
    expect(describeDue(dueTuesday, at('2026-12-19T10:00:00Z'))).toBe('Overdue by 4 days')
    expect(describeDue(dueTuesday, at('2026-12-19T10:00:00Z'), true)).toBe('Completed')
    // a year away is named with its year
    expect(describeDue(day('2027-01-15', '2027-01-16T00:00:00Z'), at('2026-12-14T10:00:00Z'))).toBe('Due 15 Jan 2027')
  })

  it('reads "tomorrow" on the learner’s own calendar, not UTC’s', () => {
    // 20:00 UTC on the 13th is already the 14th at UTC+14: the 15th is tomorrow there, in two days in UTC
    const now = at('2026-12-13T20:00:00Z')
    const kiritimati = day('2026-12-15', '2026-12-14T10:00:00Z', 'Pacific/Kiritimati')
    expect(daysUntilDue(kiritimati, now)).toBe(1)
    expect(describeDue(kiritimati, now)).toBe('Due tomorrow')
    const bakerIsland = day('2026-12-15', '2026-12-16T12:00:00Z', 'Etc/GMT+12')
    expect(daysUntilDue(bakerIsland, now)).toBe(2)
    expect(describeDue(bakerIsland, now)).toBe('Due 15 Dec')
  })

  it('names the time of an exact due time, in the learner’s zone', () => {
    const fivePmBerlin = exact('2026-12-14T16:00:00Z', 'Europe/Berlin')
    expect(describeDue(fivePmBerlin, at('2026-12-14T10:00:00Z'))).toBe('Due today at 17:00')
    expect(describeDue(fivePmBerlin, at('2026-12-13T10:00:00Z'))).toBe('Due tomorrow at 17:00')
    expect(describeDue(fivePmBerlin, at('2026-12-14T18:00:00Z'))).toBe('Overdue since 17:00')
    expect(describeDueFully(fivePmBerlin)).toBe('Mon, 14 Dec 2026, 17:00 (Europe/Berlin)')
    expect(describeDueFully(day('2026-12-15', '2026-12-14T10:00:00Z', 'Pacific/Kiritimati'))).toBe(
      'Tue, 15 Dec 2026, end of day (Pacific/Kiritimati)',
    )
  })

  it('offers UTC, the named zones and the fixed offsets down to UTC−12', () => {
    const names = timeZoneNames()
    expect(names[0]).toBe('UTC')
    expect(names).toContain('Europe/Berlin')
    expect(names).toContain('Pacific/Kiritimati')
    expect(names).toContain('Etc/GMT+12')
    expect(new Set(names).size).toBe(names.length)
  })
})

describe('the reminder plan', () => {
  it('reads days as typed, sorted and without repeats', () => {
    expect(parseDays('7, 1')).toEqual([7, 1])
    expect(parseDays('')).toEqual([])
    expect(parseDays('7, x')).toHaveProperty('error')
    expect(ReminderPlanSchema.parse({ before: [1, 7, 7], after: [7, 1, 3] })).toEqual({
      before: [7, 1],
      after: [1, 3, 7],
    })
    expect(ReminderPlanSchema.safeParse({ before: [], after: [0] }).success).toBe(false)
    expect(ReminderPlanSchema.safeParse({ before: [400], after: [] }).success).toBe(false)
  })

  it('defaults to a week and a day ahead, then 1, 3 and 7 days overdue, learners not allowed to opt out', () => {
    const settings = ReminderSettingsSchema.parse({})
    expect(settings).toEqual({ plan: { before: [7, 1], after: [1, 3, 7] }, learnersMayOptOut: false })
    expect(describePlan(settings.plan)).toBe('7 and 1 days before; 1, 3 and 7 days overdue')
    expect(describePlan({ before: [1], after: [] })).toBe('1 day before')
    expect(describePlan({ before: [], after: [] })).toBe('none')
  })
})

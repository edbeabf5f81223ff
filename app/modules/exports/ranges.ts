import { endOfMonth, format, startOfMonth, subDays, subMonths } from 'date-fns'

// The days a scheduled export covers, named relative to the moment it runs. Every range is whole
// days as the schedule's time zone counts them, given as yyyy-MM-dd with the end day included:
//   yesterday      the day before today
//   last-7-days    the seven days before today (yesterday and the six days before it)
//   last-month     the calendar month before this one, first to last day
//   month-to-date  the first of this month up to and including today

export const EXPORT_RANGES = ['yesterday', 'last-7-days', 'last-month', 'month-to-date'] as const
export type ExportRange = (typeof EXPORT_RANGES)[number]

export type DayRange = { startDate: string; endDate: string }

/** The calendar day `at` falls on in `timeZone`, as a local midnight for date-fns' day arithmetic. */
function dayIn(at: Date, timeZone: string): Date {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  }).formatToParts(at)
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value)
  return new Date(part('year'), part('month') - 1, part('day'))
}

const DAY = 'yyyy-MM-dd'
const days = (start: Date, end: Date): DayRange => ({ startDate: format(start, DAY), endDate: format(end, DAY) })

export function scheduleRangeDays(range: ExportRange, now: Date, timeZone: string): DayRange {
  const today = dayIn(now, timeZone)
  switch (range) {
    case 'yesterday':
      return days(subDays(today, 1), subDays(today, 1))
    case 'last-7-days':
      return days(subDays(today, 7), subDays(today, 1))
    case 'last-month': {
      const first = startOfMonth(subMonths(today, 1))
      return days(first, endOfMonth(first))
    }
    case 'month-to-date':
      return days(startOfMonth(today), today)
  }
}

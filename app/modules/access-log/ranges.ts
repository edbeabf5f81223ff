import { endOfMonth } from 'date-fns/endOfMonth'
import { lightFormat } from 'date-fns/lightFormat'
import { startOfMonth } from 'date-fns/startOfMonth'
import { subDays } from 'date-fns/subDays'
import { subMonths } from 'date-fns/subMonths'
import { invalid } from '../errors.ts'
import { isTimeZone, TIME_ZONE_MESSAGE } from './schema.ts'

// Named date ranges for exports (the CLI's --range, the scheduled exports): whole days as
// yyyy-MM-dd, counted from the day it is "now" in the given time zone, so "yesterday" at 00:30 in
// Berlin is the Berlin day before, whatever the server's clock zone.

export const EXPORT_RANGES = ['yesterday', 'last-7-days', 'last-month', 'month-to-date'] as const
export type ExportRange = (typeof EXPORT_RANGES)[number]

export const isExportRange = (value: string): value is ExportRange =>
  (EXPORT_RANGES as readonly string[]).includes(value)

/**
 * The first and last day of a named range, as the access-log filter takes them:
 * - `yesterday`: the day before today;
 * - `last-7-days`: the seven whole days that ended yesterday (today, still going, is left out);
 * - `last-month`: the whole calendar month before this one;
 * - `month-to-date`: the first of this month through today.
 */
export type DayRange = { startDate: string; endDate: string }

export function rangeDays(range: ExportRange, now: Date, timeZone = 'UTC'): DayRange {
  if (!isExportRange(range)) throw invalid(`Range must be one of ${EXPORT_RANGES.join(', ')}.`)
  if (!isTimeZone(timeZone)) throw invalid(TIME_ZONE_MESSAGE)
  const today = calendarDay(now, timeZone)
  const day = (date: Date) => lightFormat(date, 'yyyy-MM-dd')
  switch (range) {
    case 'yesterday':
      return { startDate: day(subDays(today, 1)), endDate: day(subDays(today, 1)) }
    case 'last-7-days':
      return { startDate: day(subDays(today, 7)), endDate: day(subDays(today, 1)) }
    case 'last-month': {
      const previous = subMonths(startOfMonth(today), 1)
      return { startDate: day(previous), endDate: day(endOfMonth(previous)) }
    }
    case 'month-to-date':
      return { startDate: day(startOfMonth(today)), endDate: day(today) }
  }
}

/** The calendar day it is at `now` in `timeZone`, as yyyy-MM-dd. */
export const dayIn = (now: Date, timeZone: string) => lightFormat(calendarDay(now, timeZone), 'yyyy-MM-dd')

/** The calendar day it is at `now` in `timeZone`, as a local midnight date-fns can count days from. */
function calendarDay(now: Date, timeZone: string): Date {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric' })
    .formatToParts(now)
    .reduce<Record<string, number>>((all, part) => ({ ...all, [part.type]: Number(part.value) }), {})
  return new Date(parts.year, parts.month - 1, parts.day)
}

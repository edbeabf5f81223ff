import { describe, expect, it } from 'vitest'
import { archivesToRemove, type ArchiveRun } from './retention.ts'

// 2026-11-25 is a Wednesday: its ISO week began on Monday 2026-11-23.
const run = (id: string, at: string, verified = true): ArchiveRun => ({ id, at: new Date(at), verified })
const utc = (keepDaily: number, keepWeekly: number) => ({ keepDaily, keepWeekly, timeZone: 'UTC' })
const removed = (runs: ArchiveRun[], newest: string, policy = utc(7, 4)) =>
  archivesToRemove(runs, newest, policy).sort()

describe('retention', () => {
  it('keeps the newest verified archive of each of the last days, the new one counting as today', () => {
    const runs = [
      run('today', '2026-11-25T02:00:00Z'),
      run('today-earlier', '2026-11-25T01:00:00Z'),
      run('yesterday', '2026-11-24T02:00:00Z'),
      run('yesterday-earlier', '2026-11-24T00:30:00Z'),
      run('two-days-ago', '2026-11-23T02:00:00Z'),
      run('three-days-ago', '2026-11-22T02:00:00Z'),
    ]
    expect(removed(runs, 'today', utc(3, 0))).toEqual(['three-days-ago', 'today-earlier', 'yesterday-earlier'])
    expect(removed(runs, 'today', utc(1, 0))).toEqual([
      'three-days-ago',
      'today-earlier',
      'two-days-ago',
      'yesterday',
      'yesterday-earlier',
    ])
  })

  it('keeps the newest verified archive of each of the last ISO weeks, Monday to Sunday', () => {
    const runs = [
      run('wed', '2026-11-25T02:00:00Z'),
      run('mon', '2026-11-23T02:00:00Z'),
      run('sun', '2026-11-22T02:00:00Z'),
      run('sat', '2026-11-21T02:00:00Z'),
      run('last-week-mon', '2026-11-16T02:00:00Z'),
      run('two-weeks-ago', '2026-11-12T02:00:00Z'),
      run('three-weeks-ago', '2026-11-05T02:00:00Z'),
    ]
    // this week is the new run's; the week before's newest is Sunday's; the one before that, the 12th
    expect(removed(runs, 'wed', utc(0, 3))).toEqual(['last-week-mon', 'mon', 'sat', 'three-weeks-ago'])
    // days and weeks together: one archive may stand for both
    expect(removed(runs, 'wed', utc(3, 2))).toEqual(['last-week-mon', 'sat', 'three-weeks-ago', 'two-weeks-ago'])
  })

  it('counts days and weeks in the schedule’s time zone', () => {
    // 23:30 UTC on the 24th is already the 25th in Berlin, the day of the new run there
    const runs = [run('new', '2026-11-25T02:00:00Z'), run('late', '2026-11-24T23:30:00Z')]
    expect(removed(runs, 'new', utc(2, 0))).toEqual([])
    expect(removed(runs, 'new', { keepDaily: 2, keepWeekly: 0, timeZone: 'Europe/Berlin' })).toEqual(['late'])
    // and Sunday 23:30 in New York is Monday in UTC: the new run's week in UTC, the week before in New York
    const weekly = [run('new', '2026-11-25T02:00:00Z'), run('sunday', '2026-11-23T04:30:00Z')]
    expect(removed(weekly, 'new', utc(0, 2))).toEqual(['sunday'])
    expect(removed(weekly, 'new', { keepDaily: 0, keepWeekly: 2, timeZone: 'America/New_York' })).toEqual([])
  })

  it('removes nothing unless the new run’s archive was verified', () => {
    const runs = [run('new', '2026-11-25T02:00:00Z', false), run('old', '2026-10-01T02:00:00Z')]
    expect(removed(runs, 'new', utc(0, 0))).toEqual([])
    expect(removed(runs, 'not-a-run', utc(0, 0))).toEqual([])
  })

  it('never lets an unverified archive stand for a day, and always keeps the new one', () => {
    const runs = [
      run('new', '2026-11-25T02:00:00Z'),
      run('broken', '2026-11-24T03:00:00Z', false),
      run('sound', '2026-11-24T02:00:00Z'),
    ]
    expect(removed(runs, 'new', utc(2, 0))).toEqual(['broken'])
    expect(removed(runs, 'new', utc(0, 0))).toEqual(['broken', 'sound'])
  })

  it('leaves an archive newer than the new run to the next run', () => {
    const runs = [run('new', '2026-11-25T02:00:00Z'), run('newer', '2026-11-25T03:00:00Z', false)]
    expect(removed(runs, 'new', utc(0, 0))).toEqual([])
  })
})

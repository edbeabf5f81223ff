import { describe, expect, it } from 'vitest'
import { formatCourseLength, formatDuration, formatSize } from './format.ts'

describe('formatDuration', () => {
  it('drops a leading 00 hour and pads minutes and seconds', () => {
    expect(formatDuration(0)).toBe('00:00')
    expect(formatDuration(5)).toBe('00:05')
    expect(formatDuration(125)).toBe('02:05')
    expect(formatDuration(3599)).toBe('59:59')
  })
  it('shows hours from one hour on', () => {
    expect(formatDuration(3600)).toBe('01:00:00')
    expect(formatDuration(3725)).toBe('01:02:05')
    expect(formatDuration(36_000 + 61)).toBe('10:01:01')
  })
  it('rounds fractions and shows nothing for a missing or impossible value', () => {
    expect(formatDuration(59.6)).toBe('01:00')
    expect(formatDuration(null)).toBe('')
    expect(formatDuration(undefined)).toBe('')
    expect(formatDuration(-1)).toBe('')
    expect(formatDuration(Number.NaN)).toBe('')
  })
})

describe('formatCourseLength', () => {
  it('counts videos in the singular and plural, and says when the duration is not known', () => {
    expect(formatCourseLength(1, 725)).toBe('1 video · 12:05')
    expect(formatCourseLength(3, 3725)).toBe('3 videos · 01:02:05')
    expect(formatCourseLength(2, null)).toBe('2 videos · Course Duration not available')
    expect(formatCourseLength(0, 0)).toBe('0 videos · Course Duration not available')
  })
})

describe('formatDate', () => {
  it('writes MM/dd/yyyy in UTC', async () => {
    const { formatDate } = await import('./format.ts')
    expect(formatDate('2026-11-03T23:59:00.000Z')).toBe('11/03/2026')
    expect(formatDate('2027-01-09T00:00:00.000Z')).toBe('01/09/2027')
  })
})

describe('formatSize', () => {
  it('counts bytes in words, then in thousands', () => {
    expect(formatSize(null)).toBe('—')
    expect(formatSize(0)).toBe('0 bytes')
    expect(formatSize(387)).toBe('387 bytes')
    expect(formatSize(1234)).toBe('1.2 kB')
    expect(formatSize(3_400_000_000)).toBe('3.4 GB')
    expect(formatSize(5_000_000_000_000)).toBe('5 TB')
  })
})

/**
 * A duration as hh:mm:ss, dropping a leading 00 hour: 125 → "02:05", 3725 → "01:02:05".
 * This is arithmetic on a count of seconds, not date formatting.
 */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return ''
  const total = Math.round(seconds)
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = total % 60
  const pad = (n: number) => String(n).padStart(2, '0')
  return h > 0 ? `${pad(h)}:${pad(m)}:${pad(s)}` : `${pad(m)}:${pad(s)}`
}

const NO_DURATION = 'Course Duration not available'

/** A course's duration, or "Course Duration not available" when it has none. */
export const formatCourseDuration = (seconds: number | null | undefined) =>
  seconds ? formatDuration(seconds) : NO_DURATION

/** "1 video · 12:05", "3 videos · Course Duration not available". */
export const formatCourseLength = (videos: number, seconds: number | null | undefined) =>
  `${videos} ${videos === 1 ? 'video' : 'videos'} · ${formatCourseDuration(seconds)}`

const REPORT_DATE = new Intl.DateTimeFormat('en-US', {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  timeZone: 'UTC',
})

/** The portal's dates, MM/dd/yyyy as the access log shows them, as UTC days so server and browser agree. */
export function formatDate(iso: string): string {
  return REPORT_DATE.format(new Date(iso))
}

const LONG_DATE = new Intl.DateTimeFormat('en-GB', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' })

/** A date as a certificate states it, "27 November 2026", the UTC day so server and browser agree. */
export function formatLongDate(iso: string): string {
  return LONG_DATE.format(new Date(iso))
}

const SIZE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const

/** A file's size in bytes as people read it: "387 bytes", "1.2 kB", "3.4 GB"; a dash when there is none. */
export function formatSize(bytes: number | null) {
  if (bytes === null) return '—'
  const step = Math.min(SIZE_UNITS.length - 1, bytes > 0 ? Math.floor(Math.log10(bytes) / 3) : 0)
  return new Intl.NumberFormat('en', {
    style: 'unit',
    unit: SIZE_UNITS[step],
    // "387 bytes", but "1.2 kB"
    unitDisplay: step === 0 ? 'long' : 'short',
    maximumFractionDigits: 1,
  }).format(bytes / 1000 ** step)
}

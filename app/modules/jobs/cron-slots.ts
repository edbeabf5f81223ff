import { Cron } from 'croner'

// The cron patterns and slots of the portal's schedules (scheduled exports, scheduled backups), in one place.
//
// A schedule's slot is a time its cron names, read in its time zone. A look that finds the latest slot at
// or before now newer than the schedule's last scheduled run (and not before the schedule was made) claims
// it once (INSERT … ON CONFLICT (schedule_id, slot) in the area's runs table); only the latest is ever
// caught up, never a backlog.

/** Cron patterns are the classic five fields, read in the schedule's time zone. */
const CRON_OPTIONS = { mode: '5-part' } as const

const CRON_HINT = 'five fields: minute hour day-of-month month day-of-week, such as 0 2 * * * for 02:00 every day'

/** Why croner refuses a pattern, or why it would never run; undefined when it is a usable schedule. */
export function cronProblem(pattern: string): string | undefined {
  let cron: Cron
  try {
    cron = new Cron(pattern, { ...CRON_OPTIONS, paused: true })
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error)
    return `Cron "${pattern}" is not a valid schedule (${reason}); use ${CRON_HINT}.`
  }
  if (!cron.nextRun()) return `Cron "${pattern}" never runs; use ${CRON_HINT}.`
  return undefined
}

/** A schedule as its table keeps it: the pattern, its time zone, and when it was made. */
type Scheduled = { cron: string; time_zone: string }

/** The schedule's cron, in its time zone, never started (only asked for its times). */
export function cronOf(schedule: Scheduled) {
  return new Cron(schedule.cron, { ...CRON_OPTIONS, timezone: schedule.time_zone, paused: true })
}

/** The latest slot of a schedule at or before `now`, if it is not before the schedule was made. */
export function latestSlot(schedule: Scheduled & { created_at: Date }, now: Date): Date | undefined {
  // croner leaves out a run at exactly the reference time; a millisecond later includes it
  const [slot] = cronOf(schedule).previousRuns(1, new Date(now.getTime() + 1))
  if (!slot || slot > now || slot < new Date(schedule.created_at)) return undefined
  return slot
}

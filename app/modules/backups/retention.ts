// Which archives of a scheduled backup are kept, and which retention removes: a pure rule, with no database,
// no disk and no clock of its own, so it can be read and tested on its own.
//
// After a run whose archive was verified by reading it back (and only then), among the schedule's runs that
// still have an archive: the newest verified archive of each of the last `keepDaily` days, and of each of
// the last `keepWeekly` ISO weeks (Monday to Sunday), both counted in the schedule's time zone back from the
// new run's day (its own day and week are the first), are kept. So is the new run's archive, whatever the
// numbers, and any archive newer than it (another run that finished meanwhile: the next run judges it).
// Every other archive is removed, an unverified one (a run that failed its check) too. Days and weeks are
// calendar ones: a day without a verified archive keeps none, and does not reach further back instead.

type RetentionPolicy = { keepDaily: number; keepWeekly: number; timeZone: string }

/** A run that has an archive: when it was taken, and whether it was read back whole. */
export type ArchiveRun = { id: string; at: Date; verified: boolean }

const DAY_MS = 24 * 60 * 60 * 1000

/** The calendar day of `at` in `timeZone`, as midnight UTC of that date. */
function localDay(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })
    .formatToParts(at)
    .reduce<Record<string, string>>((all, part) => ({ ...all, [part.type]: part.value }), {})
  return Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day))
}

/** The Monday that starts the ISO week of a day (midnight UTC of a date). */
const mondayOf = (day: number) => day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS

/** The keys of the last `count` periods, `step` apart, ending with `last`. */
const lastPeriods = (last: number, count: number, step: number) =>
  new Set(Array.from({ length: count }, (_, i) => last - i * step))

/**
 * The ids of the runs whose archives retention removes now that the run `newestId` has its archive verified;
 * none when that run is not among `runs` or its archive is not verified. See the head of this file.
 */
export function archivesToRemove(runs: readonly ArchiveRun[], newestId: string, policy: RetentionPolicy): string[] {
  const newest = runs.find((run) => run.id === newestId)
  if (!newest?.verified) return []
  const today = localDay(newest.at, policy.timeZone)
  const days = lastPeriods(today, policy.keepDaily, DAY_MS)
  const weeks = lastPeriods(mondayOf(today), policy.keepWeekly, 7 * DAY_MS)

  const kept = new Set([newest.id, ...runs.filter((run) => run.at > newest.at).map((run) => run.id)])
  const newestFirst = runs
    .filter((run) => run.verified && run.at <= newest.at)
    .sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id === newest.id ? -1 : b.id === newest.id ? 1 : 0))
  const keepNewestOf = (periods: Set<number>, periodOf: (day: number) => number) => {
    const taken = new Set<number>()
    for (const run of newestFirst) {
      const period = periodOf(localDay(run.at, policy.timeZone))
      if (!periods.has(period) || taken.has(period)) continue
      taken.add(period)
      kept.add(run.id)
    }
  }
  keepNewestOf(days, (day) => day)
  keepNewestOf(weeks, mondayOf)
  return runs.filter((run) => !kept.has(run.id)).map((run) => run.id)
}

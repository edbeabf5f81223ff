// The Users List's "Due dates" filter, read from its URL (`?due=overdue`, `?due=7`); pure, the page uses it too.

/** Due within so many days: the choices offered. */
export const DUE_WITHIN_DAYS = [1, 3, 7, 14, 30] as const
/** Overdue, or due within so many days (not yet overdue). */
export type DueFilter = 'overdue' | (typeof DUE_WITHIN_DAYS)[number]

/** `?due=overdue`, `?due=7`: the filter, or none for anything else. */
export function readDueFilter(value: string | null): DueFilter | undefined {
  if (value === 'overdue') return 'overdue'
  return DUE_WITHIN_DAYS.find((days) => value === String(days))
}

// Which prerequisites lock their video (ADR 007), written once for SQL and for objects: only one a
// learner can finish, i.e. visible and with a duration. A hidden one, or one without a duration,
// locks nothing and is not shown to learners as a prerequisite.

/** The condition on a prerequisite row of content_entries named `alias`, for the lock queries. */
export const lockingPrerequisiteSql = (alias: string) => `${alias}.visibility AND ${alias}.duration > 0`

export const locksItsVideo = (prerequisite: { visibility?: boolean; duration?: number | null }) =>
  prerequisite.visibility === true && (prerequisite.duration ?? 0) > 0

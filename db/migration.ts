import type { MigrationParams } from 'umzug'

/** A migration gets a function that runs SQL inside the one transaction of the migration run. */
export type SqlRunner = (sql: string) => Promise<unknown>
/** What each file in db/migrations exports as `up` (and, where it can be undone, `down`). */
export type MigrationFn = (params: MigrationParams<SqlRunner>) => Promise<void>

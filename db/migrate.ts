import { QueryTypes, type Sequelize, type Transaction } from 'sequelize'
import { Umzug, type UmzugStorage } from 'umzug'
import { installJobQueue } from '#app/modules/jobs/install.server.ts'
import type { SqlRunner } from './migration.ts'
import * as initial from './migrations/0001-initial.ts'
import * as fileAttachments from './migrations/0002-file-attachments.ts'
import * as keepSubmittedWork from './migrations/0003-keep-submitted-work.ts'
import * as loginFailures from './migrations/0004-login-failures.ts'
import * as progressCredit from './migrations/0005-progress-credit.ts'
import * as accessLogReport from './migrations/0006-access-log-report.ts'
import * as viewings from './migrations/0007-viewings.ts'
import * as exportSchedules from './migrations/0008-export-schedules.ts'
import * as viewingFigures from './migrations/0009-viewing-figures.ts'
import * as mailQueue from './migrations/0010-mail-queue.ts'
import * as importFiles from './migrations/0011-import-files.ts'
import * as importJobs from './migrations/0012-import-jobs.ts'
import * as completionThroughPrograms from './migrations/0013-completion-through-programs.ts'
import * as signInEventsAndEndedSessions from './migrations/0014-sign-in-events-and-ended-sessions.ts'
import * as uploadQuota from './migrations/0015-upload-quota.ts'
import * as rateLimits from './migrations/0016-rate-limits.ts'
import * as jobQueue from './migrations/0017-job-queue.ts'
import * as labs from './migrations/0018-labs.ts'
import * as labsInCompletion from './migrations/0019-labs-in-completion.ts'
import * as labAttemptsInAccessLog from './migrations/0020-lab-attempts-in-access-log.ts'
import * as backupSchedules from './migrations/0021-backup-schedules.ts'
import * as certificates from './migrations/0022-certificates.ts'
import * as certificateWorkAndSignatures from './migrations/0023-certificate-work-and-signatures.ts'
import * as dueDates from './migrations/0024-due-dates.ts'
import * as exportKinds from './migrations/0025-export-kinds.ts'
import * as disabledAccounts from './migrations/0026-disabled-accounts.ts'
import * as identityProviders from './migrations/0027-identity-providers.ts'
import * as planExercises from './migrations/0028-plan-exercises.ts'
import * as sessionExercises from './migrations/0029-session-exercises.ts'
import { IncompleteRestoreError, restoreMarker } from './restore-marker.ts'

// Listed by hand, not globbed, so migrations load the same way under tsx, Vitest and a bundle.
const migrations = [
  { name: '0001-initial', ...initial },
  { name: '0002-file-attachments', ...fileAttachments },
  { name: '0003-keep-submitted-work', ...keepSubmittedWork },
  { name: '0004-login-failures', ...loginFailures },
  { name: '0005-progress-credit', ...progressCredit },
  { name: '0006-access-log-report', ...accessLogReport },
  { name: '0007-viewings', ...viewings },
  { name: '0008-export-schedules', ...exportSchedules },
  { name: '0009-viewing-figures', ...viewingFigures },
  { name: '0010-mail-queue', ...mailQueue },
  { name: '0011-import-files', ...importFiles },
  { name: '0012-import-jobs', ...importJobs },
  { name: '0013-completion-through-programs', ...completionThroughPrograms },
  { name: '0014-sign-in-events-and-ended-sessions', ...signInEventsAndEndedSessions },
  { name: '0015-upload-quota', ...uploadQuota },
  { name: '0016-rate-limits', ...rateLimits },
  { name: '0017-job-queue', ...jobQueue },
  { name: '0018-labs', ...labs },
  { name: '0019-labs-in-completion', ...labsInCompletion },
  { name: '0020-lab-attempts-in-access-log', ...labAttemptsInAccessLog },
  { name: '0021-backup-schedules', ...backupSchedules },
  { name: '0022-certificates', ...certificates },
  { name: '0023-certificate-work-and-signatures', ...certificateWorkAndSignatures },
  { name: '0024-due-dates', ...dueDates },
  { name: '0025-export-kinds', ...exportKinds },
  { name: '0026-disabled-accounts', ...disabledAccounts },
  { name: '0027-identity-providers', ...identityProviders },
  { name: '0028-plan-exercises', ...planExercises },
  { name: '0029-session-exercises', ...sessionExercises },
]

/** The migrations' names in the order they run: a backup made at one of them is one this portal can restore. */
export const MIGRATION_NAMES: readonly string[] = migrations.map((m) => m.name)

// Any number: it only has to be the same for every process that migrates this database.
export const MIGRATION_LOCK = 7_305_001

/**
 * Apply pending migrations in one transaction: all of them or none, and the record of what ran is
 * written in the same transaction. Safe to run from several processes at once (advisory lock). Then the
 * job queue's tables and queues, which the job library installs and upgrades itself
 * (app/modules/jobs/install.server.ts).
 */
export async function migrate(
  sequelize: Sequelize,
  log: (line: string) => void = () => {},
  options: MigrateOptions = {},
) {
  const applied = await migrateTables(sequelize, log, undefined, options)
  await installJobQueue(sequelize)
  return applied
}

type MigrateOptions = {
  /** a restore migrates the database it is filling; anyone else is refused a database a restore left unfinished */
  restoring?: boolean
}

/** The portal's own tables, up to `to` (a migration's name) or the last. */
export async function migrateTables(
  sequelize: Sequelize,
  log: (line: string) => void = () => {},
  to?: string,
  { restoring = false }: MigrateOptions = {},
) {
  return sequelize.transaction(async (transaction) => {
    await sequelize.query('SELECT pg_advisory_xact_lock(:lock)', {
      replacements: { lock: MIGRATION_LOCK },
      type: QueryTypes.SELECT,
      transaction,
    })
    if (!restoring) {
      const marker = await restoreMarker(sequelize, transaction)
      if (marker) throw new IncompleteRestoreError(marker)
    }
    const umzug = new Umzug<SqlRunner>({
      migrations: migrations.map((m) => ({ name: m.name, up: m.up, down: m.down })),
      // a function here is umzug's context factory, so it returns the runner
      context: (): SqlRunner => (sql) => sequelize.query(sql, { transaction }),
      storage: transactionalStorage(sequelize, transaction),
      logger: undefined,
    })
    const applied = await umzug.up(to ? { to } : {})
    for (const m of applied) log(`migrated ${m.name}`)
    return applied.map((m) => m.name)
  })
}

function transactionalStorage(sequelize: Sequelize, transaction: Transaction): UmzugStorage {
  const query = (sql: string, replacements: Record<string, unknown> = {}) =>
    sequelize.query<{ name: string }>(sql, { transaction, replacements, type: QueryTypes.SELECT })
  return {
    async executed() {
      await sequelize.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
        { transaction },
      )
      return (await query('SELECT name FROM schema_migrations ORDER BY name')).map((r) => r.name)
    },
    async logMigration({ name }) {
      await sequelize.query('INSERT INTO schema_migrations (name) VALUES (:name)', {
        transaction,
        replacements: { name },
      })
    },
    async unlogMigration({ name }) {
      await sequelize.query('DELETE FROM schema_migrations WHERE name = :name', { transaction, replacements: { name } })
    },
  }
}

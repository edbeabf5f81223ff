import { Option, type Command } from 'commander'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { BACKUP_COMPRESSIONS } from '#app/modules/backups/schedules-schema.ts'
import {
  addBackupSchedule,
  findBackupRun,
  listBackupRuns,
  listBackupSchedules,
  removeBackupSchedule,
  runBackupSchedule,
  type BackupRunView,
} from '#app/modules/backups/schedules.server.ts'
import { withDatabase } from '../database.ts'
import { UsageError, textTable as table, usageOf } from '../output.ts'

// `portal backups …`: scheduled backups, run by the workers. Data (tables, JSON, an archive's location) goes to
// stdout; what happened goes to stderr. A failed run exits 1, wrong input exits 2.

type AddOptions = {
  name?: string
  cron?: string
  tz: string
  to?: string
  keepDaily: string
  keepWeekly: string
  compression: string
  json?: boolean
}

/** The schedule's fields as the options that set them, so a refusal names the flag to fix. */
const FLAG_OF: Record<string, string> = {
  name: '--name',
  cron: '--cron',
  timeZone: '--tz',
  destination: '--to',
  keepDaily: '--keep-daily',
  keepWeekly: '--keep-weekly',
  compression: '--compression',
  limit: '--limit',
}

const flagUsage = (error: unknown) => usageOf(error, (field) => FLAG_OF[field] ?? 'input')

const megabytes = (bytes: number | null) => (bytes === null ? '' : `${(bytes / 1024 / 1024).toFixed(1)} MB`)
const seconds = (ms: number | null) => (ms === null ? '' : `${Math.round(ms / 1000)} s`)

function describeRun(run: BackupRunView) {
  if (run.status === 'succeeded')
    return `${run.scheduleName}: ${run.tables} tables, ${run.rows} rows and ${run.files} files in ${megabytes(run.bytes)}, verified, at ${run.location}`
  if (run.status === 'failed') return `${run.scheduleName}: failed: ${run.error}`
  return `${run.scheduleName}: ${run.status}`
}

/** How often a waiting command reads its run again, and when it says no worker has taken it yet. */
const WATCH_EVERY_MS = 1000
const NO_WORKER_AFTER_MS = 15_000

/** Follow a queued run until it ends, with a word on stderr when no worker has taken it after a while. */
async function watchRun(queued: BackupRunView): Promise<BackupRunView> {
  const since = Date.now()
  let told = false
  let lastError: string | null = null
  for (let run = queued; ; run = await findBackupRun(SYSTEM, run.id)) {
    if (run.status === 'succeeded' || run.status === 'failed') return run
    if (run.status === 'queued' && run.error && run.error !== lastError) {
      lastError = run.error
      console.error(`${run.scheduleName}: a try failed: ${run.error}`)
    }
    if (!told && run.status === 'queued' && Date.now() - since > NO_WORKER_AFTER_MS) {
      told = true
      console.error(
        `No worker has taken run ${run.id} yet: workers run in \`portal serve\` and \`portal worker\`. Waiting…`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, WATCH_EVERY_MS))
  }
}

export function registerBackups(program: Command) {
  const backups = program
    .command('backups')
    .description('scheduled backups with retention, run by the workers (`portal backup` takes one now)')
  const schedule = backups.command('schedule').description('the schedules of backups')

  schedule
    .command('add')
    .description('add a schedule that backs up the portal on a cron schedule and keeps the latest archives')
    .option('--name <name>', 'the schedule')
    .option('--cron <pattern>', 'five fields read in --tz: minute hour day-of-month month day-of-week ("0 2 * * *")')
    .option('--tz <zone>', 'the IANA time zone of the cron, and of the days and weeks kept', 'UTC')
    .option('--to <destination>', 's3://bucket/prefix/ or an absolute server folder, ending in /')
    .option('--keep-daily <n>', 'keep the newest archive of each of the last n days', '7')
    .option('--keep-weekly <n>', 'keep the newest archive of each of the last n ISO weeks', '4')
    .addOption(
      new Option('--compression <kind>', 'zstd (smaller, faster) or gzip').choices(BACKUP_COMPRESSIONS).default('zstd'),
    )
    .option('--json', 'print the schedule as JSON')
    .addHelpText(
      'after',
      '\nEach run writes a new archive (never with the secrets), reads it back whole, and only then removes the\n' +
        "schedule's older archives that neither count keeps. A failed run is tried once more, then mailed to the\n" +
        'super admins.',
    )
    .action(async (options: AddOptions) => {
      const missing = (['name', 'cron', 'to'] as const).filter((key) => !options[key]).map((k) => `--${k}`)
      if (missing.length) throw new UsageError(`missing ${missing.join(', ')}.`)
      const made = await withDatabase(() =>
        addBackupSchedule(SYSTEM, {
          name: options.name,
          cron: options.cron,
          timeZone: options.tz,
          destination: options.to,
          keepDaily: options.keepDaily,
          keepWeekly: options.keepWeekly,
          compression: options.compression,
        }).catch(flagUsage),
      )
      if (options.json) console.log(JSON.stringify(made, null, 2))
      console.error(
        `Added backup schedule ${made.name}: ${made.cron} (${made.timeZone}) to ${made.destination}, keeping ` +
          `${made.keepDaily} daily and ${made.keepWeekly} weekly; next run ${made.nextRun ?? 'never'}.`,
      )
    })

  schedule
    .command('list')
    .description('list the schedules with their next run')
    .option('--json', 'print them as JSON')
    .action(async (options: { json?: boolean }) => {
      const schedules = await withDatabase(() => listBackupSchedules(SYSTEM))
      if (options.json) return console.log(JSON.stringify(schedules, null, 2))
      if (!schedules.length) return console.error('No backup schedules.')
      console.log(
        table([
          ['NAME', 'CRON', 'TIME ZONE', 'TO', 'DAILY', 'WEEKLY', 'COMPRESSION', 'NEXT RUN'],
          ...schedules.map((s) => [
            s.name,
            s.cron,
            s.timeZone,
            s.destination,
            String(s.keepDaily),
            String(s.keepWeekly),
            s.compression,
            s.nextRun ?? 'never',
          ]),
        ]),
      )
    })

  schedule
    .command('remove')
    .description('remove a schedule (its runs stay in the history, its archives where they are)')
    .argument('<name>', 'the schedule')
    .option('--json', 'print { name } of the removed schedule as JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const removed = await withDatabase(() => removeBackupSchedule(SYSTEM, name))
      if (options.json) console.log(JSON.stringify(removed))
      console.error(`Removed backup schedule ${removed.name}.`)
    })

  backups
    .command('run')
    .description('run a schedule now, as a job for the workers; prints the run id, or with --wait its archive')
    .argument('<name>', 'the schedule')
    .option('--wait', 'wait for the run to end; a failed run exits 1')
    .option('--json', 'print the run as JSON')
    .action(async (name: string, options: { json?: boolean; wait?: boolean }) => {
      const run = await withDatabase(async () => {
        const queued = await runBackupSchedule(SYSTEM, name)
        return options.wait ? watchRun(queued) : queued
      })
      if (options.json) console.log(JSON.stringify(run, null, 2))
      else if (run.status === 'succeeded') console.log(run.location)
      else if (!options.wait) console.log(run.id)
      // a failure exits 1 through the one error path
      if (run.status === 'failed') throw new Error(describeRun(run))
      console.error(options.wait ? describeRun(run) : `Queued backup run ${run.id} of ${run.scheduleName}.`)
    })

  backups
    .command('history')
    .description('the latest runs, newest first')
    .option('--limit <n>', 'how many runs (1 to 1000)', '20')
    .option('--json', 'print them as JSON')
    .action(async (options: { limit: string; json?: boolean }) => {
      const runs = await withDatabase(() => listBackupRuns(SYSTEM, { limit: options.limit }).catch(flagUsage))
      if (options.json) return console.log(JSON.stringify(runs, null, 2))
      if (!runs.length) return console.error('No backup runs yet.')
      console.log(
        table([
          ['STARTED', 'SCHEDULE', 'TRIGGER', 'STATUS', 'SIZE', 'DURATION', 'VERIFIED', 'ARCHIVE OR ERROR'],
          ...runs.map((r) => [
            r.startedAt,
            r.scheduleName,
            r.trigger,
            r.status,
            megabytes(r.bytes),
            seconds(r.durationMs),
            r.verifiedAt ? 'yes' : '',
            (r.status === 'failed' ? r.error : r.removedAt ? `${r.location} (removed ${r.removedAt})` : r.location) ??
              '',
          ]),
        ]),
      )
    })
}

import { SingleBar } from 'cli-progress'
import { Option, type Command } from 'commander'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { ASSIGNMENT_STATUSES } from '#app/modules/deadlines/due.ts'
import { EXPORT_KINDS, EXPORT_RANGES, SCHEDULE_FORMATS } from '#app/modules/exports/schema.ts'
import {
  addSchedule,
  findRun,
  listRuns,
  listSchedules,
  removeSchedule,
  runSchedule,
  type ExportRunView,
} from '#app/modules/exports/service.server.ts'
import { courseIdsOf } from '../courses.ts'
import { withDatabase } from '../database.ts'
import { UsageError, textTable as table, usageOf } from '../output.ts'

// `portal exports …`: scheduled exports of the access log and of the assignments. Data (tables, JSON, a written file's location) goes
// to stdout; what happened goes to stderr. A failed run exits 1, wrong input exits 2.

type AddOptions = {
  name?: string
  cron?: string
  kind: string
  range?: string
  status?: string
  course: string[]
  tz: string
  to?: string
  format: string
  json?: boolean
}

/** The schedule's fields as the options that set them, so a refusal names the flag to fix. */
const FLAG_OF: Record<string, string> = {
  name: '--name',
  cron: '--cron',
  timeZone: '--tz',
  kind: '--kind',
  range: '--range',
  courses: '--course',
  status: '--status',
  format: '--format',
  destination: '--to',
  limit: '--limit',
}

/** A refused field as the option that sets it. */
const flagUsage = (error: unknown) => usageOf(error, (field) => FLAG_OF[field] ?? 'input')

const collect = (value: string, previous: string[]) => [...previous, value]

function describeRun(run: ExportRunView) {
  if (run.status === 'succeeded') return `${run.scheduleName}: ${run.rows} rows (${run.bytes} bytes) to ${run.location}`
  if (run.status === 'failed') return `${run.scheduleName}: failed: ${run.error}`
  return `${run.scheduleName}: ${run.status}`
}

/** How often a waiting command reads its run again, and when it says no worker has taken it yet. */
const WATCH_EVERY_MS = 500
const NO_WORKER_AFTER_MS = 15_000

/**
 * Follow a queued run until it ends: rows written so far on a terminal only (scripts and logs get the
 * one line at the end), and a word on stderr when no worker has taken it after a while.
 */
async function watchRun(queued: ExportRunView): Promise<ExportRunView> {
  const bar = process.stderr.isTTY
    ? new SingleBar({
        format: `${queued.scheduleName}: {value} rows written`,
        stream: process.stderr,
        hideCursor: true,
      })
    : undefined
  bar?.start(0, 0)
  const since = Date.now()
  let told = false
  let lastError: string | null = null
  try {
    for (let run = queued; ; run = await findRun(SYSTEM, run.id)) {
      if (run.status === 'succeeded' || run.status === 'failed') return run
      bar?.update(run.rows ?? 0)
      // a try failed and the next one is waiting
      if (run.status === 'queued' && run.error && run.error !== lastError) {
        lastError = run.error
        console.error(`${run.scheduleName}: a try failed: ${run.error}`)
      }
      if (!told && run.status === 'queued' && Date.now() - since > NO_WORKER_AFTER_MS) {
        told = true
        bar?.stop()
        console.error(
          `No worker has taken run ${run.id} yet: workers run in \`portal serve\` and \`portal worker\`. Waiting…`,
        )
      }
      await new Promise((resolve) => setTimeout(resolve, WATCH_EVERY_MS))
    }
  } finally {
    bar?.stop()
  }
}

export function registerExports(program: Command) {
  const exportsCommand = program
    .command('exports')
    .description('scheduled exports of the access log and of the assignments')
  const schedule = exportsCommand.command('schedule').description('the schedules of exports')

  schedule
    .command('add')
    .description('add a schedule that exports the access log (or the assignments) on a cron schedule')
    .option('--name <name>', 'the schedule, and the start of its file names')
    .option('--cron <pattern>', 'five fields read in --tz: minute hour day-of-month month day-of-week ("0 2 * * *")')
    .option('--kind <kind>', `what it exports: ${EXPORT_KINDS.join(' or ')}`, 'access-log')
    .option('--range <range>', `the days each run covers (access-log only): ${EXPORT_RANGES.join(', ')}`)
    .option(
      '--status <status>',
      `only assignments of this status (assignments only): ${ASSIGNMENT_STATUSES.join(', ')}`,
    )
    .addOption(
      new Option('--course <course>', 'only this course, by id or exact title (repeat for several)')
        .argParser(collect)
        .default([], 'every course'),
    )
    .option('--tz <zone>', 'the IANA time zone of the cron and of the days', 'UTC')
    .option('--to <destination>', 's3://bucket/prefix/ or an absolute server folder, ending in /')
    .option('--format <format>', SCHEDULE_FORMATS.join(' or '), 'csv')
    .option('--json', 'print the schedule as JSON')
    .action(async (options: AddOptions) => {
      const required =
        options.kind === 'assignments' ? (['name', 'cron', 'to'] as const) : (['name', 'cron', 'range', 'to'] as const)
      const missing = required.filter((key) => !options[key]).map((k) => `--${k}`)
      if (missing.length) throw new UsageError(`missing ${missing.join(', ')}.`)
      const destination = options.to as string
      const made = await withDatabase(async () =>
        addSchedule(SYSTEM, {
          name: options.name,
          cron: options.cron,
          kind: options.kind,
          range: options.range,
          courses: await courseIdsOf(options.course),
          status: options.status,
          timeZone: options.tz,
          destination,
          format: options.format,
        }).catch(flagUsage),
      )
      if (options.json) console.log(JSON.stringify(made, null, 2))
      console.error(
        `Added schedule ${made.name}: ${made.cron} (${made.timeZone}), ${made.range ?? made.kind} to ${made.destination}; ` +
          `next run ${made.nextRun ?? 'never'}.`,
      )
    })

  schedule
    .command('list')
    .description('list the schedules with their next run')
    .option('--json', 'print them as JSON')
    .action(async (options: { json?: boolean }) => {
      const schedules = await withDatabase(() => listSchedules(SYSTEM))
      if (options.json) return console.log(JSON.stringify(schedules, null, 2))
      if (!schedules.length) return console.error('No schedules.')
      console.log(
        table([
          ['NAME', 'CRON', 'TIME ZONE', 'KIND', 'RANGE', 'COURSES', 'FORMAT', 'TO', 'NEXT RUN'],
          ...schedules.map((s) => [
            s.name,
            s.cron,
            s.timeZone,
            s.kind === 'assignments' && s.status ? `assignments (${s.status})` : s.kind,
            s.range ?? '',
            s.courses.length ? String(s.courses.length) : 'all',
            s.format,
            s.destination,
            s.nextRun ?? 'never',
          ]),
        ]),
      )
    })

  schedule
    .command('remove')
    .description('remove a schedule (its past runs stay in the history)')
    .argument('<name>', 'the schedule')
    .option('--json', 'print { name } of the removed schedule as JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const removed = await withDatabase(() => removeSchedule(SYSTEM, name))
      if (options.json) console.log(JSON.stringify(removed))
      console.error(`Removed schedule ${removed.name}.`)
    })

  exportsCommand
    .command('run')
    .description(
      "run a schedule now, its days counted from now, as a job for the workers; waits and prints the file's location",
    )
    .argument('<name>', 'the schedule')
    .option('--no-wait', 'queue the run and exit at once; prints the run (its id is its job)')
    .option('--json', 'print the run as JSON')
    .action(async (name: string, options: { json?: boolean; wait: boolean }) => {
      const run = await withDatabase(async () => {
        const queued = await runSchedule(SYSTEM, name)
        return options.wait ? watchRun(queued) : queued
      })
      if (options.json) console.log(JSON.stringify(run, null, 2))
      else if (run.status === 'succeeded') console.log(run.location)
      else if (!options.wait) console.log(run.id)
      // a failure exits 1 through the one error path (an exit code set here would be lost on the way out)
      if (run.status === 'failed') throw new Error(describeRun(run))
      console.error(options.wait ? describeRun(run) : `Queued run ${run.id} of ${run.scheduleName}.`)
    })

  exportsCommand
    .command('history')
    .description('the latest runs, newest first')
    .option('--limit <n>', 'how many runs (1 to 1000)', '20')
    .option('--json', 'print them as JSON')
    .action(async (options: { limit: string; json?: boolean }) => {
      const runs = await withDatabase(() => listRuns(SYSTEM, { limit: options.limit }).catch(flagUsage))
      if (options.json) return console.log(JSON.stringify(runs, null, 2))
      if (!runs.length) return console.error('No runs yet.')
      console.log(
        table([
          ['STARTED', 'SCHEDULE', 'TRIGGER', 'STATUS', 'ROWS', 'BYTES', 'LOCATION OR ERROR'],
          ...runs.map((r) => [
            r.startedAt,
            r.scheduleName,
            r.trigger,
            r.status,
            r.rows === null ? '' : String(r.rows),
            r.bytes === null ? '' : String(r.bytes),
            (r.status === 'failed' ? r.error : r.location) ?? '',
          ]),
        ]),
      )
    })
}

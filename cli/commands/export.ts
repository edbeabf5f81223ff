import { SingleBar } from 'cli-progress'
import { Option, type Command } from 'commander'
import { ZodError } from 'zod'
import {
  EXPORT_FORMATS,
  exportAccessLog,
  isExportFormat,
  parseDestination,
  type ExportDestination,
  type ExportProgress,
} from '#app/modules/access-log/export.server.ts'
import { EXPORT_RANGES, isExportRange, rangeDays } from '#app/modules/access-log/ranges.ts'
import { accessLogFilter, accessLogTotal } from '#app/modules/access-log/service.server.ts'
import { assignmentExportFilter, exportAssignments } from '#app/modules/assignments/export.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { ASSIGNMENT_STATUSES } from '#app/modules/deadlines/due.ts'
import { isServiceError } from '#app/modules/errors.ts'
import { errorLine } from '#app/utils/redact.server.ts'
import { disconnect } from '#db/client.ts'
import { courseIdsOf, programOf } from '../courses.ts'
import { UsageError, plural } from '../output.ts'

type AccessLogOptions = {
  from?: string
  to?: string
  range?: string
  tz: string
  course: string[]
  format: string
  out: string
  json?: boolean
}

/** The filter's field names as this command's options spell them, for one-line usage errors. */
const OPTION_OF: Record<string, string> = {
  startDate: '--from',
  endDate: '--to',
  timeZone: '--tz',
  courses: '--course',
}

export function registerExport(program: Command) {
  const exports = program.command('export').description('reports as files')

  exports
    .command('access-log')
    .description('the access log (the admin report, every row) as CSV or JSON Lines')
    .option('--from <day>', 'first day, yyyy-MM-dd')
    .option('--to <day>', 'last day, yyyy-MM-dd')
    .option('--range <range>', `instead of --from/--to: ${EXPORT_RANGES.join(', ')}`)
    .option('--tz <zone>', 'the IANA time zone the days are in', 'UTC')
    .addOption(
      new Option('--course <course>', 'a course id or exact title; repeat for several')
        .argParser(collect)
        .default([], 'every course'),
    )
    .option('--format <format>', EXPORT_FORMATS.join(' or '), 'csv')
    .option('--out <target>', 'a file, s3://bucket/key, or - for standard output', '-')
    .option('--json', 'print { rows, bytes, location, format } when done (not with --out -)')
    .action(async (options: AccessLogOptions) => {
      try {
        const { input, destination, format } = await readOptions(options)
        const result = await run(input, destination, format)
        if (options.json) console.log(JSON.stringify({ ...result, format }))
        else if (destination.kind !== 'stream')
          console.error(
            `Exported ${plural(result.rows, 'row')} (${plural(result.bytes, 'byte')}) to ${result.location}.`,
          )
      } finally {
        await disconnect()
      }
    })

  registerAssignments(exports)
}

type AssignmentsOptions = {
  status?: string
  course: string[]
  program: string[]
  dueAfter?: string
  dueBefore?: string
  format: string
  out: string
  json?: boolean
}

/** The assignments filter's field names as `export assignments` spells them. */
const ASSIGNMENT_OPTION_OF: Record<string, string> = {
  status: '--status',
  courses: '--course',
  programs: '--program',
  dueAfter: '--due-after',
  dueBefore: '--due-before',
}

function registerAssignments(exports: Command) {
  exports
    .command('assignments')
    .description(
      'every course and program assigned to a learner, with its due date, status and percent, as CSV or JSON Lines',
    )
    .option('--status <status>', `only this status: ${ASSIGNMENT_STATUSES.join(', ')}`)
    .addOption(
      new Option('--course <course>', 'only assignments of this course, by id or exact title; repeat for several')
        .argParser(collect)
        .default([], 'every course'),
    )
    .addOption(
      new Option('--program <program>', 'only assignments of this program, by id or exact title; repeat for several')
        .argParser(collect)
        .default([], 'every program'),
    )
    .option('--due-after <day>', "due after this day (yyyy-MM-dd), in each learner's time zone")
    .option('--due-before <day>', "due before this day (yyyy-MM-dd), in each learner's time zone")
    .option('--format <format>', EXPORT_FORMATS.join(' or '), 'csv')
    .option('--out <target>', 'a file, s3://bucket/key, or - for standard output', '-')
    .option('--json', 'print { rows, bytes, location, format } when done (not with --out -)')
    .action(async (options: AssignmentsOptions) => {
      try {
        if (!isExportFormat(options.format))
          throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}.`)
        if (options.json && options.out === '-')
          throw new UsageError('--json prints a summary on standard output; give --out a file or s3:// address.')
        const format = options.format
        const { input, destination } = await usage(ASSIGNMENT_OPTION_OF, async () => {
          const programs: string[] = []
          for (const program of options.program) programs.push((await programOf(program)).id)
          const input = {
            status: options.status,
            courses: await courseIdsOf(options.course),
            programs,
            dueAfter: options.dueAfter,
            dueBefore: options.dueBefore,
          }
          assignmentExportFilter(SYSTEM, input)
          return { input, destination: parseDestination(options.out) }
        })
        const result = await interruptible((signal) =>
          exportAssignments(SYSTEM, input, destination, { format, signal }),
        )
        if (options.json) console.log(JSON.stringify({ ...result, format }))
        else if (destination.kind !== 'stream')
          console.error(
            `Exported ${plural(result.rows, 'row')} (${plural(result.bytes, 'byte')}) to ${result.location}.`,
          )
      } finally {
        await disconnect()
      }
    })
}

/** A refused filter, course or program is the operator's mistake: a usage error naming the option (exit 2). */
async function usage<T>(optionOf: Record<string, string>, read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (error) {
    if (error instanceof ZodError)
      throw new UsageError(
        error.issues.map((i) => `${optionOf[String(i.path[0])] ?? i.path.join('.')}: ${i.message}`).join(' '),
      )
    if (isServiceError(error)) throw new UsageError(error.message)
    throw error
  }
}

/** An export that Ctrl-C stops cleanly (the partial file removed, the upload aborted); a failure is one line. */
async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController()
  const stop = () => controller.abort(new Error('Export interrupted.'))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  try {
    return await work(controller.signal)
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new Error(errorLine(controller.signal.aborted ? controller.signal.reason : error))
  } finally {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
}

function collect(value: string, previous: string[]) {
  return [...previous, value]
}

/** Everything the operator asked for, checked before anything is written; wrong usage exits 2. */
async function readOptions(options: AccessLogOptions) {
  if (options.range !== undefined && (options.from !== undefined || options.to !== undefined))
    throw new UsageError('--range cannot be combined with --from or --to.')
  if (options.range !== undefined && !isExportRange(options.range))
    throw new UsageError(`--range must be one of ${EXPORT_RANGES.join(', ')}.`)
  if (!isExportFormat(options.format)) throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}.`)
  if (options.json && options.out === '-')
    throw new UsageError('--json prints a summary on standard output; give --out a file or s3:// address.')
  const format = options.format
  try {
    const destination = parseDestination(options.out)
    const days = options.range
      ? rangeDays(options.range as (typeof EXPORT_RANGES)[number], new Date(), options.tz)
      : { startDate: options.from, endDate: options.to }
    const courses = await courseIdsOf(options.course)
    // the export carries the lab rows too; so does the progress bar's total
    const input = { ...days, timeZone: options.tz, courses, includeLabs: true }
    // the filter is checked here so a wrong one is a usage error, before any file or upload exists
    accessLogFilter(SYSTEM, input)
    return { input, destination, format }
  } catch (error) {
    if (error instanceof ZodError)
      throw new UsageError(
        error.issues.map((i) => `${OPTION_OF[String(i.path[0])] ?? i.path.join('.')}: ${i.message}`).join(' '),
      )
    // an unknown course is the operator's mistake too, not a failure
    if (isServiceError(error)) throw new UsageError(error.message)
    throw error
  }
}

/** The export itself, with a progress bar on a terminal; any failure here exits 1 in one line. */
async function run(input: object, destination: ExportDestination, format: (typeof EXPORT_FORMATS)[number]) {
  const controller = new AbortController()
  // Ctrl-C stops the export cleanly: the partial file is removed, the upload aborted
  const stop = () => controller.abort(new Error('Export interrupted.'))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  const bar = process.stderr.isTTY ? await progressBar(input) : undefined
  const started = Date.now()
  const onProgress = ({ rows }: ExportProgress) => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001)
    bar?.update(rows, { speed: Math.round(rows / seconds) })
  }
  try {
    return await exportAccessLog(SYSTEM, input, destination, { format, onProgress, signal: controller.signal })
  } catch (error) {
    throw new Error(errorLine(controller.signal.aborted ? controller.signal.reason : error))
  } finally {
    bar?.stop()
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
}

/**
 * Rows written and rows per second on standard error. The total is shown when it is cheap: whole UTC
 * days are counted from the daily tallies; another time zone would count every row first.
 */
async function progressBar(input: object) {
  const total = (input as { timeZone?: string }).timeZone === 'UTC' ? await accessLogTotal(SYSTEM, input) : 0
  const bar = new SingleBar({
    stream: process.stderr,
    format: total ? '{bar} {percentage}% | {value}/{total} rows | {speed} rows/s' : '{value} rows | {speed} rows/s',
    hideCursor: true,
    clearOnComplete: false,
  })
  bar.start(total, 0, { speed: 0 })
  return bar
}

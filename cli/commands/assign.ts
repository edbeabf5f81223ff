import { createReadStream, createWriteStream } from 'node:fs'
import { access, constants, stat } from 'node:fs/promises'
import type { Readable, Writable } from 'node:stream'
import type { Command } from 'commander'
import {
  assignMany,
  findAssignable,
  importAssignments,
  readLearnerList,
  type AssignmentRowError,
  type BulkAssignmentSummary,
  type LearnerSource,
} from '#app/modules/assignments/import.server.ts'
import { assignCourse, assignProgram } from '#app/modules/assignments/service.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { DUE_DATE_MESSAGE, parseDueDate, type DueInput } from '#app/modules/deadlines/due.ts'
import { parseDays, PLAN_MESSAGE, ReminderPlanSchema, type ReminderPlan } from '#app/modules/deadlines/plan.ts'
import { reminderSettings } from '#app/modules/deadlines/service.server.ts'
import { findUserByIdentifier } from '#app/modules/users/service.server.ts'
import { disconnect } from '#db/client.ts'
import { UsageError, plural } from '../output.ts'
import { progressLine } from '../progress.ts'

type Kind = 'course' | 'program'
type TargetOptions = {
  course?: string
  program?: string
  user?: string
  usersFrom?: string
  allLearners?: boolean
  dryRun?: boolean
  json?: boolean
  due?: string
  remindBefore?: string
  remindAfter?: string
  /** false for --no-reminders */
  reminders?: boolean
}
/** What a command sets besides who and what (absent: new assignments get none, existing ones keep theirs). */
type DueOptions = { dueDate?: DueInput | null; reminderPlan?: ReminderPlan | null }
type ImportOptions = { dryRun?: boolean; atomic?: boolean; delimiter?: string; errors?: string; json?: boolean }

/** Row errors printed on standard error when no --errors file is given; the rest are counted. */
const SHOWN_ERRORS = 20

export function registerAssign(program: Command) {
  const assign = program.command('assign').description('give learners courses and programs')

  assign
    .command('import')
    .description('assign from a CSV file: a user column and a course and/or program column')
    .argument('<file>', 'the CSV file, or - for standard input')
    .option('--dry-run', 'check every row and count what would change; write nothing')
    .option('--atomic', 'write nothing unless every row is good')
    .option('--delimiter <char>', 'a comma or a semicolon (default: the one the header line uses)')
    .option('--errors <file>', 'write the rows that failed, with the reason, to this CSV file')
    .option('--json', 'print one summary as JSON on standard output')
    .action(async (file: string, options: ImportOptions) => {
      const delimiter = readDelimiter(options.delimiter)
      const source = await openInput(file)
      const errorSink = options.errors ? await openOutput(options.errors) : undefined
      const errors = rowErrorPrinter(!options.errors && !options.json)
      const progress = progressLine('Importing', 'rows')
      try {
        const summary = await importAssignments(SYSTEM, source, {
          dryRun: options.dryRun,
          atomic: options.atomic,
          delimiter,
          errorSink,
          onRowError: errors.print,
          onProgress: ({ rows }) => progress.update(rows),
        })
        progress.stop()
        errors.finish()
        if (options.json) console.log(JSON.stringify({ ...summary, errorFile: options.errors ?? null }))
        else console.error(importMessage(summary))
        // exit 1 through the one error path (an exit code set here would be lost on the way out)
        if (summary.stopped) throw new Error(summary.stopped.message)
        if (summary.failed > 0) throw new Error(`${summary.failed} of ${plural(summary.rows, 'row')} failed.`)
      } finally {
        progress.stop()
        await disconnect()
      }
    })

  for (const kind of ['course', 'program'] as const) {
    withTargetOptions(assign.command(kind), kind, 'assign')
      .option(
        '--due <date>',
        'due date for every learner named, new or assigned already: 2026-12-15, 15 Dec 2026, 2026-12-15 17:00 ' +
          "(the learner's time zone), 2026-12-15T17:00Z; none removes it",
      )
      .option('--remind-before <days>', 'reminders this many days before the due day, e.g. "7,1"')
      .option('--remind-after <days>', 'reminders this many days overdue, e.g. "1,3"')
      .option('--no-reminders', 'no reminders about this assignment')
      .action((options: TargetOptions) => bulk('assign', kind, options))
  }

  const unassign = program
    .command('unassign')
    .description('take courses and programs away from learners; their progress is kept')
  for (const kind of ['course', 'program'] as const) {
    withTargetOptions(unassign.command(kind), kind, 'unassign').action((options: TargetOptions) =>
      bulk('unassign', kind, options),
    )
  }
}

function withTargetOptions(command: Command, kind: Kind, action: 'assign' | 'unassign') {
  return command
    .description(
      action === 'assign'
        ? `assign a ${kind} to learners (assigning twice is harmless)`
        : `remove a ${kind} from learners; their progress stays and comes back if it is assigned again`,
    )
    .option(`--${kind} <${kind}>`, `the ${kind}'s id or exact title`)
    .option('--user <user>', "one learner's id, email or username")
    .option('--users-from <file>', 'one email or username a line, or a CSV with a user or email column (- for stdin)')
    .option('--all-learners', 'every learner')
    .option('--dry-run', 'count what would change; write nothing')
    .option('--json', 'print one summary as JSON on standard output')
}

async function bulk(action: 'assign' | 'unassign', kind: Kind, options: TargetOptions) {
  const target = options[kind]
  if (!target) throw new UsageError(`pass --${kind}.`)
  const chosen = [options.user !== undefined, options.usersFrom !== undefined, options.allLearners === true]
  if (chosen.filter(Boolean).length !== 1) throw new UsageError('pass one of --user, --users-from or --all-learners.')
  try {
    // read before anything is written: a bad date or plan is a usage error (exit 2)
    const due = await dueOptions(options)
    // one learner, assigned for real: the one-at-a-time service and its messages
    if (action === 'assign' && options.user !== undefined && !options.dryRun) {
      await assignOne(kind, target, options.user, due, options.json)
      return
    }
    const learners: LearnerSource = options.allLearners
      ? 'all-learners'
      : options.user !== undefined
        ? single(options.user)
        : readLearnerList(await openInput(options.usersFrom!))
    const errors = rowErrorPrinter(!options.json)
    const progress = progressLine(action === 'assign' ? 'Assigning' : 'Unassigning', 'learners')
    const summary = await assignMany(SYSTEM, { action, [kind]: target, dryRun: options.dryRun, ...due }, learners, {
      onRowError: errors.print,
      onProgress: ({ rows }) => progress.update(rows),
    }).finally(() => progress.stop())
    errors.finish()
    if (options.json) console.log(JSON.stringify(bulkJson(summary)))
    else console.error(bulkMessage(summary))
    if (summary.failed > 0) throw new Error(`${summary.failed} of ${plural(summary.users, 'learner')} failed.`)
  } finally {
    await disconnect()
  }
}

async function* single(user: string) {
  yield { line: 1, user }
}

/**
 * --due, --remind-before, --remind-after and --no-reminders as the services take them. A plan given on one
 * side only keeps the portal's days for the other.
 */
async function dueOptions(options: TargetOptions): Promise<DueOptions> {
  const due: DueOptions = {}
  if (options.due !== undefined) {
    if (options.due.trim().toLowerCase() === 'none') due.dueDate = null
    else {
      const read = parseDueDate(options.due)
      // empty is no date to the reader; here it is a mistake (none says "remove it")
      if ('error' in read || read.due === null) throw new UsageError(`--due: ${DUE_DATE_MESSAGE}`)
      due.dueDate = read.due
    }
  }
  const { remindBefore, remindAfter } = options
  if (options.reminders === false) {
    if (remindBefore !== undefined || remindAfter !== undefined)
      throw new UsageError('pass --no-reminders or --remind-before/--remind-after, not both.')
    due.reminderPlan = { before: [], after: [] }
  } else if (remindBefore !== undefined || remindAfter !== undefined) {
    const portal = remindBefore === undefined || remindAfter === undefined ? (await reminderSettings()).plan : undefined
    const days = (text: string | undefined, name: string, fallback: number[] | undefined) => {
      if (text === undefined) return fallback!
      const read = parseDays(text)
      if ('error' in read) throw new UsageError(`${name}: ${read.error}`)
      return read
    }
    const plan = ReminderPlanSchema.safeParse({
      before: days(remindBefore, '--remind-before', portal?.before),
      after: days(remindAfter, '--remind-after', portal?.after),
    })
    if (!plan.success)
      throw new UsageError(
        `${plan.error.issues[0].path[0] === 'after' ? '--remind-after' : '--remind-before'}: ${PLAN_MESSAGE}`,
      )
    due.reminderPlan = plan.data
  }
  return due
}

async function assignOne(kind: Kind, target: string, identifier: string, due: DueOptions, json?: boolean) {
  const user = await findUserByIdentifier(identifier)
  const summary = await findAssignable(kind, target)
  const { assigned, changed } =
    kind === 'course'
      ? await assignCourse(SYSTEM, { userId: user.id, courseId: summary.id, ...due })
      : await assignProgram(SYSTEM, { userId: user.id, programId: summary.id, ...due })
  if (json) {
    console.log(
      JSON.stringify({
        action: 'assign',
        [kind]: summary,
        users: 1,
        assigned: assigned ? 1 : 0,
        already: assigned ? 0 : 1,
        updated: changed ? 1 : 0,
        duplicates: 0,
        failed: 0,
        dryRun: false,
      }),
    )
    return
  }
  console.log(
    assigned
      ? `Assigned "${summary.title}" to ${user.userName}.`
      : changed
        ? `${user.userName} already has "${summary.title}"; its due date and reminders are as given now.`
        : `${user.userName} already has "${summary.title}".`,
  )
}

function bulkJson(summary: BulkAssignmentSummary) {
  const { changed, unchanged, updated, ...rest } = summary
  return summary.action === 'assign'
    ? { ...rest, assigned: changed, already: unchanged, updated }
    : { ...rest, removed: changed, notAssigned: unchanged }
}

function bulkMessage(s: BulkAssignmentSummary) {
  const title = `"${(s.course ?? s.program)!.title}"`
  const failed = s.failed > 0 ? `; ${s.failed} failed` : ''
  const repeated = s.duplicates > 0 ? `, ${plural(s.duplicates, 'repeated line')}` : ''
  const updated =
    s.updated > 0 ? `, ${s.updated} of them ${s.dryRun ? 'would be ' : ''}given the new due date or reminders` : ''
  const would = s.dryRun ? 'Dry run, nothing written: would have ' : ''
  if (s.action === 'assign')
    return `${would}${s.dryRun ? 'assigned' : 'Assigned'} ${title} to ${plural(s.changed, 'learner')} (${s.unchanged} had it already${updated}${repeated})${failed}.`
  return `${would}${s.dryRun ? 'removed' : 'Removed'} ${title} from ${plural(s.changed, 'learner')} (${s.unchanged} did not have it${repeated})${failed}; progress is kept.`
}

function importMessage(s: Awaited<ReturnType<typeof importAssignments>>) {
  const updated = s.updated > 0 ? ` (${s.updated} with a new due date)` : ''
  const counts = `${plural(s.rows, 'row')}: ${s.assigned} assigned, ${s.already} already assigned${updated}, ${plural(s.duplicates, 'repeated row')}, ${s.failed} failed`
  if (s.dryRun) return `Dry run, nothing written: ${counts}.`
  if (!s.committed)
    return `Nothing written (--atomic, and ${s.stopped ? 'the file broke off' : 'some rows failed'}): ${counts}.`
  return `Imported ${counts}.`
}

/** The first row errors on standard error, one a line; with --errors or --json they go to the file or nowhere. */
function rowErrorPrinter(show: boolean) {
  let count = 0
  return {
    print(error: AssignmentRowError) {
      count++
      if (show && count <= SHOWN_ERRORS)
        console.error(`line ${error.row}: ${error.field ? `${error.field}: ` : ''}${error.message}`)
    },
    finish() {
      if (show && count > SHOWN_ERRORS)
        console.error(`… and ${count - SHOWN_ERRORS} more (pass --errors FILE for every row).`)
    },
  }
}

function readDelimiter(value: string | undefined): ',' | ';' | undefined {
  if (value === undefined) return undefined
  const named: Record<string, ',' | ';'> = { ',': ',', ';': ';', comma: ',', semicolon: ';' }
  const delimiter = named[value.toLowerCase()]
  if (!delimiter) throw new UsageError('--delimiter must be , or ; (or the words comma, semicolon).')
  return delimiter
}

/** A file to read, or standard input for -; one that cannot be read is a usage error (exit 2). */
async function openInput(file: string): Promise<Readable> {
  if (file === '-') return process.stdin
  try {
    await access(file, constants.R_OK)
    if (!(await stat(file)).isFile()) throw new Error('not a file')
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message.replace(/^[A-Z]+: /, '')}`)
  }
  return createReadStream(file)
}

/** The error file, opened before any row is read so a wrong path fails first. */
async function openOutput(file: string): Promise<Writable> {
  const stream = createWriteStream(file)
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve())
    stream.once('error', (error) => reject(new UsageError(`cannot write ${file}: ${error.message}`)))
  })
  return stream
}

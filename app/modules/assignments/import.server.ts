import type { Readable, Writable } from 'node:stream'
import type pg from 'pg'
import { withConnection } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import { ROLE, SYSTEM, type Actor } from '../auth/roles.ts'
import { CsvReader, stoppedMessage, unreadableMessage, type CsvRecord } from '../csv/reader.server.ts'
import { ErrorCsv } from '../csv/writer.server.ts'
import { parseDueDate, type DueInput } from '../deadlines/due.ts'
import type { ReminderPlan } from '../deadlines/plan.ts'
import { defaultTimeZone } from '../deadlines/service.server.ts'
import { invalid, notFound } from '../errors.ts'
import { isUuid } from '../ids.ts'
import {
  AssignmentImportOptionsSchema,
  AssignmentRowSchema,
  BulkAssignmentSchema,
  type AssignmentImportOptionsInput,
  type BulkAssignmentInput,
} from './schema.ts'

// Assignments in bulk. A CSV file names a learner and a course, a program or both on each row; the rows
// are checked and written in batches, each batch in one transaction (or the whole file in one with
// `atomic`). Writing is idempotent: an assignment that exists already is left as it is and counted apart,
// so running the same file twice assigns nothing twice. Like the one-at-a-time services, assigning a
// program records the program only: its courses reach the learner through it, as the program changes.
//
// Due dates: a file may have a dueDate column (due, due date), read as parseDueDate reads a date. A row with
// a date gives it to the assignments it names, new or already there (the learner's own time zone resolves
// a local time such as 2026-12-15 17:00); an empty cell gives a new assignment none and leaves an existing
// one's as it is. A date that cannot be read fails its row. When a file names one assignment twice, the
// first row stands, its date too.

const BATCH_SIZE = 1000

type Field = 'user' | 'course' | 'program' | 'dueDate'
type Action = 'assign' | 'unassign'

/** Header names, compared without case, spaces, underscores or hyphens. */
const ALIASES: Record<Field, string[]> = {
  user: ['user', 'email', 'username', 'login', 'emailaddress', 'useremail'],
  course: ['course', 'courseid', 'coursetitle', 'coursename'],
  program: ['program', 'programid', 'programtitle', 'programname', 'programme'],
  dueDate: ['duedate', 'due', 'dueby', 'deadline'],
}
const normaliseHeader = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, '')
const fieldOfHeader = (name: string) =>
  (Object.keys(ALIASES) as Field[]).find((field) => ALIASES[field].includes(normaliseHeader(name)))

export type AssignmentImportOptions = AssignmentImportOptionsInput & {
  /** called after each batch with the number of rows read so far */
  onProgress?: (progress: { rows: number }) => void
  /** every row that failed, as soon as it is known */
  onRowError?: (error: AssignmentRowError) => void
  /** receives the error CSV: row, field, message, then the row's own columns; ended when the import ends */
  errorSink?: Writable
}

/** A row that was not written: its line in the file, the column at fault (as the file names it) and why. */
export type AssignmentRowError = { row: number; field: string; message: string; cells: string[] }

type AssignmentImportSummary = {
  /** data rows read (the header and blank lines not counted) */
  rows: number
  /** assignments made (or, when nothing was committed, that would have been made) */
  assigned: number
  /** assignments the learner had already */
  already: number
  /** of those, the ones whose due date the file changed */
  updated: number
  /** rows naming only assignments an earlier row of the file named */
  duplicates: number
  /** rows with an error; none of their assignments is written */
  failed: number
  dryRun: boolean
  atomic: boolean
  /** false for a dry run, and for an atomic import with a failed row or a broken line: then nothing was written */
  committed: boolean
  /** the file broke off (a quote never closed, a stray quote): the rows before it were handled as counted */
  stopped: { line: number; message: string } | null
}

/**
 * Import assignments from a CSV file (UTF-8 with or without BOM, comma, semicolon or tab, CRLF or LF).
 * Columns: `user` (email or username) and `course` and/or `program` (id or exact title), and optionally
 * `dueDate` (see above). A header that
 * cannot be used or read is a 400 error before any row. A line further down that is not readable CSV ends
 * the import there (see `stopped`): in the default mode the rows before it are written as counted, and
 * re-running the fixed file is safe; in atomic mode nothing is.
 */
export async function importAssignments(
  actor: Actor,
  source: Readable,
  options: AssignmentImportOptions = {},
): Promise<AssignmentImportSummary> {
  requirePermission(actor, 'manage:people', 'Only admins can assign courses and programs.')
  const { dryRun, atomic, delimiter } = AssignmentImportOptionsSchema.parse({
    dryRun: options.dryRun,
    atomic: options.atomic,
    delimiter: options.delimiter,
  })
  const errorCsv = options.errorSink ? new ErrorCsv(options.errorSink) : undefined
  try {
    const summary = await withConnection(async (client) => {
      const writer = new AssignmentWriter(client, actor, 'assign', async (error) => {
        options.onRowError?.(error)
        await errorCsv?.row(error.row, error.field, error.message, error.cells)
      })
      let columns: Record<Field, number> | undefined
      let header: string[] = []
      let pending: PendingRow[] = []
      const flush = async () => {
        const rows = pending
        pending = []
        if (!atomic) await client.query('BEGIN')
        try {
          await writer.write(rows)
          if (!atomic) await client.query(dryRun ? 'ROLLBACK' : 'COMMIT')
        } catch (error) {
          if (!atomic) await client.query('ROLLBACK')
          throw error
        }
        options.onProgress?.({ rows: writer.counts.rows })
      }
      const csv = new CsvReader(source, { delimiter })
      if (atomic) await client.query('BEGIN')
      try {
        for await (const record of recordsOf(csv)) {
          if (!columns) {
            header = record.cells
            columns = matchHeader(header)
            await errorCsv?.header(header)
            continue
          }
          const cell = (field: Field) => (columns![field] >= 0 ? (record.cells[columns![field]] ?? '') : '')
          pending.push({
            line: record.line,
            user: cell('user'),
            course: cell('course'),
            program: cell('program'),
            dueDate: cell('dueDate'),
            cells: record.cells,
            names: {
              user: header[columns.user],
              course: header[columns.course],
              program: header[columns.program],
              dueDate: header[columns.dueDate],
            },
            extra: record.cells.length > header.length ? header.length : undefined,
          })
          if (pending.length >= BATCH_SIZE) await flush()
        }
        // a header that cannot be read is a file that cannot be read at all
        if (!columns && csv.broken) throw invalid(unreadableMessage(csv.broken))
        if (!columns) throw invalid('The file is empty: the first line must name the columns (user, course, program).')
        if (pending.length > 0) await flush()
        const committed = !dryRun && !(atomic && (writer.counts.failed > 0 || csv.broken))
        if (atomic) await client.query(committed ? 'COMMIT' : 'ROLLBACK')
        let stopped: AssignmentImportSummary['stopped'] = null
        if (csv.broken) {
          const { line } = csv.broken
          stopped = { line, message: stoppedMessage(csv.broken, { rowsBefore: writer.counts.rows, kept: committed }) }
          // the line the file broke off on, last
          await errorCsv?.row(line, '', stopped.message)
        }
        return {
          rows: writer.counts.rows,
          assigned: writer.counts.changed,
          already: writer.counts.unchanged,
          updated: writer.counts.updated,
          duplicates: writer.counts.duplicates,
          failed: writer.counts.failed,
          dryRun,
          atomic,
          committed,
          stopped,
        }
      } catch (error) {
        if (atomic) await client.query('ROLLBACK')
        throw error
      }
    })
    await errorCsv?.end()
    return summary
  } catch (error) {
    // the error file says why the import ended
    if (error instanceof Error) await errorCsv?.row(null, '', error.message)
    await errorCsv?.end()
    throw error
  }
}

export type BulkAssignmentSummary = {
  action: Action
  course?: { id: string; title: string }
  program?: { id: string; title: string }
  /** learners named (with --all-learners: every learner) */
  users: number
  /** assignments made, or removed when unassigning */
  changed: number
  /** learners who had it already, or (unassigning) did not have it */
  unchanged: number
  /** of the learners who had it already, those whose due date or reminder plan was changed */
  updated: number
  duplicates: number
  failed: number
  dryRun: boolean
}

/** A course or program by id or exact title (case aside); unknown is a 404, an ambiguous title a 400. */
export async function findAssignable(kind: 'course' | 'program', identifier: string) {
  return withConnection((client) =>
    new AssignmentWriter(client, SYSTEM, 'assign', () => {}).resolveTarget(kind, identifier),
  )
}

/** Learners by email or username, one at a time as a file or list gives them, or every learner. */
export type LearnerSource = 'all-learners' | AsyncIterable<{ line: number; user: string }>

/**
 * Assign one course or program to many learners, or take it away. Unassigning deletes the assignment
 * only: progress, viewings and submitted work stay, so assigning again shows the learner where they were.
 * Unassigning a program removes the program (and with it the courses the learner had only through it);
 * courses assigned on their own stay, as assigning a program never assigned them one by one.
 */
export async function assignMany(
  actor: Actor,
  input: BulkAssignmentInput,
  learners: LearnerSource,
  options: { onProgress?: (progress: { rows: number }) => void; onRowError?: (error: AssignmentRowError) => void } = {},
): Promise<BulkAssignmentSummary> {
  requirePermission(actor, 'manage:people', 'Only admins can assign courses and programs.')
  const { action, course, program, dryRun, dueDate, reminderPlan } = BulkAssignmentSchema.parse(input)
  return withConnection(async (client) => {
    const writer = new AssignmentWriter(client, actor, action, (error) => options.onRowError?.(error), {
      setDue: dueDate !== undefined,
      due: dueDate ?? null,
      setPlan: reminderPlan !== undefined,
      plan: reminderPlan ?? null,
    })
    const kind: Kind = course ? 'course' : 'program'
    const target = await writer.resolveTarget(kind, course || program)
    const summary = (counts: AssignmentWriter['counts']): BulkAssignmentSummary => ({
      action,
      [kind]: target,
      users: counts.rows,
      changed: counts.changed,
      unchanged: counts.unchanged,
      updated: counts.updated,
      duplicates: counts.duplicates,
      failed: counts.failed,
      dryRun,
    })
    if (learners === 'all-learners') {
      await client.query('BEGIN')
      try {
        const counts = await writer.writeAllLearners(kind, target.id)
        await client.query(dryRun ? 'ROLLBACK' : 'COMMIT')
        options.onProgress?.({ rows: counts.rows })
        return summary(counts)
      } catch (error) {
        await client.query('ROLLBACK')
        throw error
      }
    }
    let pending: PendingRow[] = []
    const flush = async () => {
      const rows = pending
      pending = []
      await client.query('BEGIN')
      try {
        await writer.write(rows)
        await client.query(dryRun ? 'ROLLBACK' : 'COMMIT')
      } catch (error) {
        await client.query('ROLLBACK')
        throw error
      }
      options.onProgress?.({ rows: writer.counts.rows })
    }
    for await (const { line, user } of learners) {
      pending.push({
        line,
        user,
        course: kind === 'course' ? target.id : '',
        program: kind === 'program' ? target.id : '',
        dueDate: '',
        cells: [user],
        names: { user: 'user', course: 'course', program: 'program', dueDate: 'dueDate' },
      })
      if (pending.length >= BATCH_SIZE) await flush()
    }
    if (pending.length > 0) await flush()
    return summary(writer.counts)
  })
}

/**
 * The learners of a file given to `--users-from`: one email or username a line, or a CSV whose header has
 * a user column (user, email, username or login — the first of these present; other columns are ignored,
 * so the users list's own export can be used as it is). Blank lines are skipped.
 */
export async function* readLearnerList(source: Readable): AsyncGenerator<{ line: number; user: string }> {
  let column: number | undefined
  const csv = new CsvReader(source)
  for await (const record of recordsOf(csv)) {
    if (column === undefined) {
      const normalised = record.cells.map(normaliseHeader)
      const found = ALIASES.user.map((alias) => normalised.indexOf(alias)).find((index) => index >= 0)
      if (found !== undefined) {
        column = found
        continue
      }
      if (record.cells.length > 1)
        throw invalid(
          'Line 1: no user, email or username column. Give one email or username a line, or a CSV whose header names a user or email column.',
        )
      column = 0
    }
    const user = (record.cells[column] ?? '').trim()
    if (user) yield { line: record.line, user }
  }
  if (csv.broken) throw invalid(unreadableMessage(csv.broken))
}

// ——— Reading CSV ———

/** The file's records, but for lines of empty cells (",," from a spreadsheet), which are no rows. */
async function* recordsOf(csv: CsvReader): AsyncGenerator<CsvRecord> {
  for await (const record of csv) if (record.cells.some((cell) => cell.trim() !== '')) yield record
}

/** Which column holds what; anything else in the header is one error before any row is read. */
function matchHeader(header: string[]): Record<Field, number> {
  const columns: Record<Field, number> = { user: -1, course: -1, program: -1, dueDate: -1 }
  const usage =
    'The columns are user (or email, username, login), course and/or program (an id or exact title), and optionally dueDate.'
  for (const [index, name] of header.entries()) {
    if (name.trim() === '') continue
    const field = fieldOfHeader(name)
    if (!field) throw invalid(`Line 1: unknown column "${name.trim()}". ${usage}`)
    if (columns[field] >= 0)
      throw invalid(
        `Line 1: the columns "${header[columns[field]].trim()}" and "${name.trim()}" both name the ${field}.`,
      )
    columns[field] = index
  }
  if (columns.user < 0) throw invalid(`Line 1: no user column. ${usage}`)
  if (columns.course < 0 && columns.program < 0) throw invalid(`Line 1: no course or program column. ${usage}`)
  return columns
}

// ——— Checking and writing rows ———

type Kind = 'course' | 'program'
type PendingRow = {
  line: number
  user: string
  course: string
  program: string
  /** the row's due date as written; empty: none given */
  dueDate: string
  cells: string[]
  /** the header's names for the columns, for the error CSV */
  names: Record<Field, string | undefined>
  /** set when the row has more fields than the header */
  extra?: number
}
type Resolved = { id: string; title: string } | { error: string }
type Learner = { id: string; roleId: number }

const TABLE = { course: 'course_assignments', program: 'program_assignments' } as const
const COLUMN = { course: 'course_id', program: 'program_id' } as const

/** What a command sets on every assignment it makes (the file's rows give their own due dates). */
type Fixed = { setDue: boolean; due: DueInput | null; setPlan: boolean; plan: ReminderPlan | null }
const KEEP: Fixed = { setDue: false, due: null, setPlan: false, plan: null }

/** A due date as the statements take it: its kind and one text ('2026-12-15', an ISO instant, '2026-12-15 17:00'). */
export function dueCells(due: DueInput | null): [string | null, string | null] {
  if (!due) return [null, null]
  if (due.kind === 'day') return ['day', due.date]
  if (due.kind === 'instant') return ['instant', due.at]
  return ['local', `${due.date} ${due.time}`]
}

/**
 * Assign in one statement, from `source` (rows p(u, t, due_kind, due_value)): $3 the acting user, $4 the
 * portal's time zone, $5 the plan, $6 and $7 whether an assignment already there takes the due date and the
 * plan. A local time is read in each learner's own zone. Counts the assignments made and those changed.
 */
const assignSql = (kind: Kind, source: string) => `
  WITH written AS (
    INSERT INTO ${TABLE[kind]} AS a (user_id, ${COLUMN[kind]}, assigned_by, due_date, due_at, reminder_plan)
    SELECT p.u, p.t, $3::uuid,
           CASE WHEN p.due_kind = 'day' THEN p.due_value::date END,
           CASE p.due_kind WHEN 'instant' THEN p.due_value::timestamptz
                           WHEN 'local' THEN p.due_value::timestamp AT TIME ZONE COALESCE(lu.time_zone, $4::text) END,
           $5::jsonb
      FROM ${source} JOIN users lu ON lu.id = p.u
    ON CONFLICT (user_id, ${COLUMN[kind]}) DO UPDATE
       SET due_date = CASE WHEN $6::boolean THEN EXCLUDED.due_date ELSE a.due_date END,
           due_at = CASE WHEN $6::boolean THEN EXCLUDED.due_at ELSE a.due_at END,
           reminder_plan = CASE WHEN $7::boolean THEN EXCLUDED.reminder_plan ELSE a.reminder_plan END
     WHERE ($6::boolean AND (a.due_date, a.due_at) IS DISTINCT FROM (EXCLUDED.due_date, EXCLUDED.due_at))
        OR ($7::boolean AND a.reminder_plan IS DISTINCT FROM EXCLUDED.reminder_plan)
    RETURNING (xmax = 0) AS fresh)
  SELECT (count(*) FILTER (WHERE fresh))::int AS assigned, (count(*) FILTER (WHERE NOT fresh))::int AS updated
    FROM written`

class AssignmentWriter {
  counts = { rows: 0, changed: 0, unchanged: 0, updated: 0, duplicates: 0, failed: 0 }
  /** every assignment the file named so far, `kind:user:target`, so a repeated one counts once */
  private seen = new Set<string>()
  private targets: Record<Kind, Map<string, Resolved>> = { course: new Map(), program: new Map() }
  private failures: AssignmentRowError[] = []

  constructor(
    private client: pg.ClientBase,
    private actor: Actor,
    private action: Action,
    /** told every failed row, in file order; the next row waits for it (the error file may be behind) */
    private report: (error: AssignmentRowError) => void | Promise<void>,
    /** a due date and plan for every assignment (one course or program for many learners) */
    private fixed: Fixed = KEEP,
  ) {}

  /** One course or program for a whole command: an unknown or ambiguous one ends it. */
  async resolveTarget(kind: Kind, identifier: string) {
    await this.resolve(kind, [identifier])
    const found = this.targets[kind].get(targetKey(identifier))!
    if ('error' in found) throw found.error.startsWith('Several') ? invalid(found.error) : notFound(found.error)
    return found
  }

  /** Check a batch, then write its assignments in two statements (courses, programs). */
  async write(rows: PendingRow[]) {
    this.counts.rows += rows.length
    this.failures = []
    const checked = rows.map((row) => {
      const parsed = AssignmentRowSchema.safeParse(row)
      if (row.extra !== undefined)
        return this.fail(row, '', `This row has ${row.cells.length} fields; the header has ${row.extra}.`)
      if (!parsed.success) {
        const issue = parsed.error.issues[0]
        const field = issue.path[0] === 'user' ? 'user' : row.names.course !== undefined ? 'course' : 'program'
        return this.fail(row, field, issue.message)
      }
      const due = parseDueDate(row.dueDate)
      if ('error' in due) return this.fail(row, 'dueDate', due.error)
      return { row, ...parsed.data, due: due.due }
    })
    const valid = checked.filter((c) => c !== undefined)
    const users = await this.findUsers(valid.map((c) => c.user))
    await this.resolve(
      'course',
      valid.map((c) => c.course),
    )
    await this.resolve(
      'program',
      valid.map((c) => c.program),
    )
    const pairs: Record<Kind, { users: string[]; targets: string[]; dues: (DueInput | null)[] }> = {
      course: { users: [], targets: [], dues: [] },
      program: { users: [], targets: [], dues: [] },
    }
    for (const { row, user, course, program, due } of valid) {
      const learner = users.get(user.toLowerCase())
      if (!learner) {
        this.fail(row, 'user', `No user with the email or username "${user}".`)
        continue
      }
      if (this.action === 'assign' && learner.roleId !== ROLE.learner) {
        this.fail(row, 'user', 'Courses and programs are assigned to learners.')
        continue
      }
      const wanted: [Kind, string][] = []
      let failed = false
      for (const [kind, identifier] of [
        ['course', course],
        ['program', program],
      ] as const) {
        if (!identifier) continue
        const target = this.targets[kind].get(targetKey(identifier))!
        if ('error' in target) {
          this.fail(row, kind, target.error)
          failed = true
          break
        }
        wanted.push([kind, target.id])
      }
      if (failed) continue
      const fresh = wanted.filter(([kind, id]) => !this.seen.has(`${kind}:${learner.id}:${id}`))
      if (fresh.length === 0) {
        this.counts.duplicates++
        continue
      }
      for (const [kind, id] of fresh) {
        this.seen.add(`${kind}:${learner.id}:${id}`)
        pairs[kind].users.push(learner.id)
        pairs[kind].targets.push(id)
        pairs[kind].dues.push(due)
      }
    }
    for (const kind of ['course', 'program'] as const) {
      const { users: userIds, targets, dues } = pairs[kind]
      if (userIds.length === 0) continue
      // a command's due date goes on every assignment; a row's date on those it names, new or there
      // already, while a row without one leaves an existing assignment's as it is
      const groups: [number[], Fixed][] = this.fixed.setDue
        ? [[userIds.map((_, i) => i), this.fixed]]
        : [
            [userIds.map((_, i) => i).filter((i) => dues[i] !== null), { ...this.fixed, setDue: true }],
            [userIds.map((_, i) => i).filter((i) => dues[i] === null), this.fixed],
          ]
      for (const [indexes, fixed] of groups) {
        if (indexes.length === 0) continue
        const pick = <T>(list: T[]) => indexes.map((i) => list[i])
        const own = this.fixed.setDue ? indexes.map(() => this.fixed.due) : pick(dues)
        const { assigned, updated } = await this.apply(kind, pick(userIds), pick(targets), own, fixed)
        this.counts.changed += assigned
        this.counts.updated += updated
        this.counts.unchanged += indexes.length - assigned
      }
    }
    // reported in file order, whichever check found them
    for (const failure of this.failures.sort((a, b) => a.row - b.row)) await this.report(failure)
  }

  /** Every learner at once, in one statement. */
  async writeAllLearners(kind: Kind, targetId: string) {
    const learners = await this.client.query<{ count: string }>(
      'SELECT count(*) AS count FROM users WHERE role_id = $1',
      [ROLE.learner],
    )
    const total = Number(learners.rows[0].count)
    let changed: number
    let updated = 0
    if (this.action === 'assign') {
      const [dueKind, dueValue] = dueCells(this.fixed.due)
      const source = `(SELECT id AS u, $2::uuid AS t, $8::text AS due_kind, $9::text AS due_value
                         FROM users WHERE role_id = $1) AS p`
      const result = await this.client.query<{ assigned: number; updated: number }>(assignSql(kind, source), [
        ROLE.learner,
        targetId,
        ...this.settings(this.fixed),
        dueKind,
        dueValue,
      ])
      changed = result.rows[0].assigned
      updated = result.rows[0].updated
    } else {
      const result = await this.client.query(
        `DELETE FROM ${TABLE[kind]} a USING users u
         WHERE a.${COLUMN[kind]} = $2 AND u.id = a.user_id AND u.role_id = $1`,
        [ROLE.learner, targetId],
      )
      changed = result.rowCount ?? 0
    }
    this.counts = { rows: total, changed, unchanged: total - changed, updated, duplicates: 0, failed: 0 }
    return this.counts
  }

  /** $3 to $7 of assignSql. */
  private settings(fixed: Fixed) {
    return [
      this.actor.id,
      defaultTimeZone(),
      fixed.plan ? JSON.stringify(fixed.plan) : null,
      fixed.setDue,
      fixed.setPlan,
    ]
  }

  private async apply(
    kind: Kind,
    userIds: string[],
    targetIds: string[],
    dues: (DueInput | null)[],
    fixed: Fixed,
  ): Promise<{ assigned: number; updated: number }> {
    if (this.action === 'unassign') {
      const result = await this.client.query(
        `DELETE FROM ${TABLE[kind]} a USING unnest($1::uuid[], $2::uuid[]) AS pairs (u, t)
         WHERE a.user_id = pairs.u AND a.${COLUMN[kind]} = pairs.t`,
        [userIds, targetIds],
      )
      return { assigned: result.rowCount ?? 0, updated: 0 }
    }
    const cells = dues.map(dueCells)
    const source = 'unnest($1::uuid[], $2::uuid[], $8::text[], $9::text[]) AS p (u, t, due_kind, due_value)'
    const result = await this.client.query<{ assigned: number; updated: number }>(assignSql(kind, source), [
      userIds,
      targetIds,
      ...this.settings(fixed),
      cells.map((c) => c[0]),
      cells.map((c) => c[1]),
    ])
    return result.rows[0]
  }

  private fail(row: PendingRow, field: Field | '', message: string): undefined {
    this.counts.failed++
    this.failures.push({
      row: row.line,
      field: field ? (row.names[field] ?? field).trim() : '',
      message,
      cells: row.cells,
    })
    return undefined
  }

  /** Users by email, username or id, keyed in lower case; an email match wins over a username. */
  private async findUsers(identifiers: string[]) {
    const texts = [...new Set(identifiers)]
    const found = new Map<string, Learner>()
    if (texts.length === 0) return found
    const { rows } = await this.client.query<{ id: string; email: string; user_name: string; role_id: number }>(
      `SELECT id, email::text AS email, user_name::text AS user_name, role_id FROM users
       WHERE email = ANY($1::citext[]) OR user_name = ANY($1::citext[]) OR id = ANY($2::uuid[])`,
      [texts, texts.filter(isUuid)],
    )
    for (const key of ['id', 'user_name', 'email'] as const)
      for (const row of rows) found.set(row[key].toLowerCase(), { id: row.id, roleId: row.role_id })
    return found
  }

  /** Look up the identifiers not seen before; ids and titles found once stay known for the whole file. */
  private async resolve(kind: Kind, identifiers: string[]) {
    const cache = this.targets[kind]
    const named = new Map<string, string>()
    for (const identifier of identifiers)
      if (identifier !== '' && !cache.has(targetKey(identifier))) named.set(targetKey(identifier), identifier.trim())
    const unknown = [...named.keys()]
    if (unknown.length === 0) return
    const ids = unknown.filter(isUuid)
    const titles = unknown.filter((k) => !isUuid(k))
    const { rows } = await this.client.query<{ id: string; title: string }>(
      `SELECT id, title FROM ${kind === 'course' ? 'courses' : 'programs'}
       WHERE id = ANY($1::uuid[]) OR lower(title) = ANY($2::text[])`,
      [ids, titles],
    )
    for (const key of unknown) {
      const matches = rows.filter((row) => (isUuid(key) ? row.id === key : row.title.toLowerCase() === key))
      cache.set(
        key,
        matches.length === 1
          ? { id: matches[0].id, title: matches[0].title }
          : {
              error:
                matches.length === 0
                  ? `No ${kind} with the id or title "${named.get(key)}".`
                  : `Several ${kind}s are titled "${matches[0].title}"; use the ${kind} id.`,
            },
      )
    }
  }
}

/** Titles compare without case, as the one-at-a-time lookups do; ids in lower case. */
const targetKey = (identifier: string) => identifier.trim().toLowerCase()

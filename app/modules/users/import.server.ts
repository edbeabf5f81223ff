import os from 'node:os'
import type { Readable, Writable } from 'node:stream'
import { QueryTypes, type Transaction } from 'sequelize'
import { query, sequelize } from '#db/client.ts'
import { dueCells } from '../assignments/import.server.ts'
import { hashPassword } from '../auth/password.server.ts'
import { can, requirePermission } from '../auth/permissions.ts'
import { ADMIN_ROLES, ROLE, ROLE_BY_NAME, type Actor, type RoleId } from '../auth/roles.ts'
import { unprotectFormula } from '../csv/formula.ts'
import { CsvReader, stoppedMessage, unreadableMessage, type CsvRecord } from '../csv/reader.server.ts'
import { ErrorCsv } from '../csv/writer.server.ts'
import { DUE_DATE_MESSAGE, parseDueDate, timeZoneField, type DueInput } from '../deadlines/due.ts'
import { defaultTimeZone } from '../deadlines/service.server.ts'
import { invalid } from '../errors.ts'
import { isUuid } from '../ids.ts'
import {
  IMPORT_COLUMNS,
  importColumnOf,
  ImportRowSchema,
  REQUIRED_COLUMNS,
  roleKey,
  type ImportColumn,
  type ImportDelimiter,
  type ImportRow,
  type OnExisting,
} from './import-schema.ts'
import { CREATE_ROLE_DENIED, DUPLICATE_EMAIL, DUPLICATE_USERNAME, mayCreateRole } from './service.server.ts'

// The user import: a CSV file read record by record (modules/csv), a batch of rows at a time. Every row
// is checked with the Create New User form's rules, against the rows before it in the file and against
// the accounts already there; the good rows of a batch are written in one transaction (multi-row
// INSERT … ON CONFLICT DO NOTHING), with their courses and programs. Errors go to a CSV sink as they
// are found, so memory stays flat whatever the file's length; only the emails and usernames seen so
// far are kept, to find a row that repeats an earlier one.
//
// Courses and programs are named by id or title, several separated by ";", each with an optional due date
// after an "@": `SQL Basics@2026-12-15; Joins@2026-12-15 17:00`. A name that is a whole title (or id) is
// that title even when it holds an "@"; otherwise the text after its last "@" is the date, read as
// parseDueDate reads it (a local time in the learner's time zone: the row's timeZone when it gives one). A
// date gives the assignment that date, new or already there; no date leaves an existing one's as it is.
// The optional timeZone column sets the account's time zone (empty: a new account has the portal's, an
// existing one keeps its own).

export type ImportCounts = {
  rows: number
  created: number
  updated: number
  skipped: number
  assigned: number
  failed: number
}

/** One problem with one row: its line in the file, the column (or '' for the whole row), the message. */
export type ImportError = {
  row: number
  field: string
  message: string
  /**
   * the row's cells by the file's own header names, never the password; none at all for a row whose
   * number of values is not the header's (its cells are not where the header says)
   */
  values: Record<string, string>
}

/** A file that cannot be read on: where, why, and what was written before it. */
type ImportStop = { line: number; message: string }

export type ImportResult = {
  counts: ImportCounts
  /** the first errors (at most ERRORS_KEPT); the error sink receives every one */
  errors: ImportError[]
  /** false for a dry run, and for an atomic import that found a failing row */
  committed: boolean
  /** the file broke off (a quote never closed, a line that is not CSV): rows before it were handled */
  stopped: ImportStop | null
  /** the file's header cells, in order */
  headers: string[]
}

export type ImportProgress = ImportCounts & { bytes: number }

/** A row's values as a preview shows them: the cells as the file gives them (trimmed), never the password. */
export type PlannedRowValues = {
  firstName: string
  lastName: string
  email: string
  userName: string
  /** empty for the default: learner for a new account, unchanged for an existing one */
  role: string
  courses: string
  programs: string
}

/** A row that created an account, or changed one (on a dry run: would). */
export type WrittenRow = { line: number; outcome: 'created' | 'updated'; values: PlannedRowValues }

export type ImportOptions = {
  /** check everything, write nothing */
  dryRun?: boolean
  /** one transaction for the whole file, rolled back when any row fails */
  atomic?: boolean
  /** an account with the row's email exists: leave it (skip), take the row's values (update), or fail the row */
  onExisting?: OnExisting
  /** read from the header line when not given */
  delimiter?: ImportDelimiter
  batchSize?: number
  /** after every batch and once at the end */
  onProgress?: (progress: ImportProgress) => void
  /**
   * every row that creates an account, and every row that changes one (a row giving an account the values
   * it has already is skipped, not reported), as its batch is written; on a dry run, those that would.
   * An atomic import that rolls back has reported rows it does not keep.
   */
  onRow?: (row: WrittenRow) => void
  /** every created account without a password, inside the transaction that creates it (not on a dry run) */
  onInvite?: (userId: string, transaction: Transaction) => Promise<void>
  /** receives the error CSV: row, field, message, then the row's columns without the password */
  errorSink?: Writable
}

const ERRORS_KEPT = 100
const BATCH_SIZE = 1000

const ROW_LEVEL = ''

/** Admins and the super admin (and the CLI's system actor) import users. */
export function requireImporter(actor: Actor) {
  requirePermission(actor, 'manage:people', 'Only admins can import users.')
}

/**
 * Import users from a CSV stream. Admins and the super admin (and the CLI) may import; only the super
 * admin creates or changes admins. A header that cannot be read is thrown as a 400 before any row; a
 * file that breaks off later ends the import there (see `stopped`).
 */
export async function importUsers(actor: Actor, source: Readable, options: ImportOptions = {}): Promise<ImportResult> {
  requireImporter(actor)
  try {
    return await runImport(actor, source, options)
  } finally {
    // the file is read no further, whatever happened
    source.destroy()
  }
}

async function runImport(actor: Actor, source: Readable, options: ImportOptions): Promise<ImportResult> {
  const onExisting = options.onExisting ?? 'skip'
  const dryRun = options.dryRun ?? false
  const atomic = options.atomic ?? false

  const csv = new CsvReader(source, { delimiter: options.delimiter })
  const first = await csv.records.next()
  if (first.done && csv.broken) throw invalid(unreadableMessage(csv.broken))
  const header = first.done ? undefined : first.value
  if (!header || header.cells.every((v) => !v.trim())) throw invalid('The file is empty.')
  const layout = readHeader(header.cells)

  const sq = await sequelize()
  const targets = await loadTargets()
  const run = new ImportRun(actor, layout, targets, {
    onExisting,
    dryRun,
    onInvite: options.onInvite,
    onRow: options.onRow,
  })
  // the error CSV: row, field, message, then the file's own columns without the password
  const errorOut = options.errorSink ? new ErrorCsv(options.errorSink) : undefined
  const reported = layout.headers.filter((_, i) => layout.columns[i] !== 'password')
  await errorOut?.header(reported)
  run.onError = async ({ row, field, message, values }) =>
    errorOut?.row(
      row,
      field,
      message,
      reported.map((name) => values[name] ?? ''),
    )

  const whole = dryRun || atomic ? await sq.transaction() : undefined
  const progress = () => options.onProgress?.({ ...run.counts, bytes: csv.bytes })
  const flush = async (rows: CsvRecord[]) => {
    const transaction = whole ?? (await sq.transaction())
    try {
      await run.batch(rows, transaction)
      if (!whole) await transaction.commit()
    } catch (error) {
      if (!whole) await transaction.rollback()
      throw error
    }
    progress()
  }

  let committed = !dryRun
  try {
    const batchSize = options.batchSize ?? BATCH_SIZE
    let pending: CsvRecord[] = []
    for await (const record of csv) {
      pending.push(record)
      if (pending.length < batchSize) continue
      await flush(pending)
      pending = []
    }
    if (pending.length > 0) await flush(pending)
    if (whole) {
      if (dryRun || run.counts.failed > 0 || csv.broken) {
        await whole.rollback()
        committed = false
      } else await whole.commit()
    }
  } catch (error) {
    await whole?.rollback().catch(() => undefined)
    await errorOut?.abort()
    throw error
  }
  if (!committed && !dryRun) Object.assign(run.counts, { created: 0, updated: 0, assigned: 0 })
  progress()
  await errorOut?.end()
  const stopped = csv.broken
    ? { line: csv.broken.line, message: stoppedMessage(csv.broken, { rowsBefore: run.counts.rows, kept: !whole }) }
    : null
  return { counts: run.counts, errors: run.kept, committed, stopped, headers: layout.headers }
}

type Layout = {
  headers: string[]
  /** the column of each header cell */
  columns: ImportColumn[]
  index: Partial<Record<ImportColumn, number>>
}

/** One clear error for everything wrong with the header, before any row is read. */
function readHeader(cells: string[]): Layout {
  const headers = cells.map((c) => c.trim())
  // a spreadsheet often saves a few empty columns at the end
  while (headers.length > 0 && headers[headers.length - 1] === '') headers.pop()
  const problems: string[] = []
  const index: Partial<Record<ImportColumn, number>> = {}
  const columns: ImportColumn[] = []
  headers.forEach((name, i) => {
    const column = importColumnOf(name)
    if (!name) problems.push(`column ${i + 1} has no name`)
    else if (!column) problems.push(`"${name}" is not a column this import knows`)
    else if (index[column] !== undefined) problems.push(`"${name}" repeats the column "${headers[index[column]]}"`)
    else index[column] = i
    if (column) columns.push(column)
  })
  const missing = REQUIRED_COLUMNS.filter((c) => index[c] === undefined)
  if (missing.length)
    problems.push(
      `the required ${missing.length === 1 ? 'column' : 'columns'} ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing`,
    )
  if (problems.length)
    throw invalid(
      `The header (line 1) cannot be used: ${problems.join('; ')}. The columns are ${IMPORT_COLUMNS.join(', ')}.`,
    )
  return { headers, columns, index }
}

type Targets = { courses: Resolver; programs: Resolver }
/** What a courses or programs cell names: the ids, each with its due date (null: none given). */
type Named = { ids: string[]; dues: (DueInput | null)[] }
type Resolver = { byId: Set<string>; byTitle: Map<string, string[]> }

/** Every course and program once, so a row's titles are resolved without a query each. */
async function loadTargets(): Promise<Targets> {
  const load = async (table: 'courses' | 'programs'): Promise<Resolver> => {
    const rows = await query<{ id: string; title: string }>({ text: `SELECT id, title FROM ${table}`, values: [] })
    const byTitle = new Map<string, string[]>()
    for (const r of rows) {
      const key = r.title.trim().toLowerCase()
      byTitle.set(key, [...(byTitle.get(key) ?? []), r.id])
    }
    return { byId: new Set(rows.map((r) => r.id)), byTitle }
  }
  return { courses: await load('courses'), programs: await load('programs') }
}

/** The ids an id or title names (none, one, or several sharing a title). */
function lookUp(name: string, resolver: Resolver): string[] {
  if (isUuid(name) && resolver.byId.has(name.toLowerCase())) return [name.toLowerCase()]
  return resolver.byTitle.get(name.toLowerCase()) ?? []
}

/**
 * The ids a `;`-separated cell names, each with its due date (`title@date`), or the message for the first
 * name that matches nothing or several, or whose date cannot be read. A course named twice keeps its first.
 */
function resolve(cell: string, resolver: Resolver, noun: 'course' | 'program'): Named | { error: string } {
  const named = new Map<string, DueInput | null>()
  for (const part of cell.split(';')) {
    let name = part.trim()
    if (!name) continue
    let due: DueInput | null = null
    const at = name.lastIndexOf('@')
    // a whole title with an "@" in it is that title; otherwise what follows the last "@" is a date
    if (at >= 0 && lookUp(name, resolver).length === 0) {
      const read = parseDueDate(name.slice(at + 1))
      if ('error' in read) return { error: `"${name}": ${DUE_DATE_MESSAGE}` }
      due = read.due
      name = name.slice(0, at).trim()
    }
    const found = lookUp(name, resolver)
    if (found.length === 0) return { error: `No ${noun} with the id or title "${name}".` }
    if (found.length > 1) return { error: `Several ${noun}s are titled "${name}"; use the ${noun} id.` }
    if (!named.has(found[0])) named.set(found[0], due)
  }
  return { ids: [...named.keys()], dues: [...named.values()] }
}

type Candidate = {
  line: number
  data: ImportRow
  roleId: RoleId
  /** false when the role cell is empty or missing: learner for a new account, unchanged for an existing one */
  roleGiven: boolean
  courseIds: string[]
  programIds: string[]
  /** the due date of each course and program, in the order of their ids (null: none given) */
  courseDues: (DueInput | null)[]
  programDues: (DueInput | null)[]
  /** the account's time zone; null: none given */
  timeZone: string | null
  /**
   * what the actor may not do that this row asks for (an admin account, courses for a coach): the row
   * fails when it would create or change an account, not when the account is left as it is
   */
  refusals: Problem[]
  /** the row as read, for its error report */
  cells: string[]
}

type Problem = { field: string; message: string }
/** A row giving the email or username of an earlier row: its message waits for that row's outcome. */
type Repeat = { field: 'email' | 'userName'; repeatOf: number }

function repeatMessage({ field, repeatOf }: Repeat, failed: boolean) {
  const [label, noun] = field === 'email' ? ['Email', 'email'] : ['UserName', 'username']
  return failed
    ? `${label} is also on line ${repeatOf} of this file, which failed; a file gives each ${noun} once.`
    : `${label} is already on line ${repeatOf} of this file.`
}

type Update = { candidate: Candidate; id: string; roleId: RoleId }

type Existing = {
  id: string
  email: string
  user_name: string
  role_id: number
  first_name: string
  last_name: string
  time_zone: string | null
}

type RunOptions = {
  onExisting: OnExisting
  dryRun: boolean
  onInvite?: (userId: string, transaction: Transaction) => Promise<void>
  onRow?: (row: WrittenRow) => void
}

/** The state of one import: counts, the emails and usernames seen, and the rules for one batch. */
class ImportRun {
  counts: ImportCounts = { rows: 0, created: 0, updated: 0, skipped: 0, assigned: 0, failed: 0 }
  kept: ImportError[] = []
  onError: (error: ImportError) => Promise<void> = async () => {}
  private failures: { line: number; values: Record<string, string>; problems: (Problem | Repeat)[] }[] = []
  /** lines that passed their own checks and failed on writing (a few): what a repeat of them is told */
  private failedLines = new Set<number>()
  private emails = new Map<string, number>()
  private userNames = new Map<string, number>()
  private hashing = Math.max(1, os.availableParallelism())

  constructor(
    private actor: Actor,
    private layout: Layout,
    private targets: Targets,
    private options: RunOptions,
  ) {}

  /**
   * A failed row, reported with the rest of its batch in line order. `cells` null: the row's values are
   * not repeated (they cannot be told apart from its password).
   */
  private fail(line: number, cells: string[] | null, problems: (Problem | Repeat)[]) {
    this.counts.failed++
    this.failures.push({ line, values: cells ? this.valuesOf(cells) : {}, problems })
  }

  /** A row that passed its own checks failed on writing: a later row repeating it is told so. */
  private failCandidate(candidate: Candidate, problems: Problem[]) {
    this.failedLines.add(candidate.line)
    this.fail(candidate.line, candidate.cells, problems)
  }

  /** The batch's failed rows, in line order; a repeat's message says whether the line it repeats went in. */
  private async report() {
    const failures = this.failures.sort((a, b) => a.line - b.line)
    this.failures = []
    for (const { line, values, problems } of failures)
      for (const problem of problems) {
        const message =
          'repeatOf' in problem ? repeatMessage(problem, this.failedLines.has(problem.repeatOf)) : problem.message
        const error = { row: line, field: problem.field, message, values }
        if (this.kept.length < ERRORS_KEPT) this.kept.push(error)
        await this.onError(error)
      }
  }

  /** The row's cells by header name, the password left out. */
  private valuesOf(cells: string[]) {
    const values: Record<string, string> = {}
    this.layout.headers.forEach((name, i) => {
      if (this.layout.columns[i] !== 'password') values[name] = cells[i] ?? ''
    })
    return values
  }

  async batch(records: CsvRecord[], transaction: Transaction) {
    await this.write(records, transaction)
    await this.report()
  }

  private async write(records: CsvRecord[], transaction: Transaction) {
    const candidates: Candidate[] = []
    for (const record of records) {
      // a line of empty cells (",,,," from a spreadsheet) is no row
      if (record.cells.every((v) => !v.trim())) continue
      this.counts.rows++
      const candidate = this.check(record)
      if (candidate) candidates.push(candidate)
    }
    if (candidates.length === 0) return
    const existing = await this.existing(candidates, transaction)
    const byEmails = new Map(existing.map((e) => [e.email.toLowerCase(), e]))
    const byUserNames = new Map(existing.map((e) => [e.user_name.toLowerCase(), e]))
    const creates: Candidate[] = []
    const updates: Update[] = []
    for (const candidate of candidates) {
      const { data } = candidate
      const byEmail = byEmails.get(data.email.toLowerCase())
      const byUserName = byUserNames.get(data.userName.toLowerCase())
      if (!byEmail) {
        const problems = [...candidate.refusals]
        if (byUserName) problems.push({ field: 'userName', message: DUPLICATE_USERNAME })
        if (problems.length) this.failCandidate(candidate, problems)
        else creates.push(candidate)
        continue
      }
      if (this.options.onExisting === 'skip') {
        this.counts.skipped++
        continue
      }
      if (this.options.onExisting === 'fail') {
        this.failCandidate(candidate, [{ field: 'email', message: DUPLICATE_EMAIL }])
        continue
      }
      // a row without a role keeps the account's
      const roleId = candidate.roleGiven ? candidate.roleId : (byEmail.role_id as RoleId)
      const problems = candidate.refusals.length
        ? candidate.refusals
        : [this.mayUpdate(candidate, roleId, byEmail, byUserName)].filter((p) => p !== undefined)
      // a row that would change nothing needs no permission (an admin re-importing the users list as it is)
      if (problems.length && changesNothing(candidate, roleId, byEmail)) this.counts.skipped++
      else if (problems.length) this.failCandidate(candidate, problems)
      else updates.push({ candidate, id: byEmail.id, roleId })
    }
    const learners: { id: string; candidate: Candidate }[] = []
    const created = await this.insert(creates, transaction)
    for (const { candidate, id } of created) {
      this.counts.created++
      this.written(candidate, 'created')
      if (candidate.roleId === ROLE.learner) learners.push({ id, candidate })
      if (!candidate.data.password && !this.options.dryRun) await this.options.onInvite?.(id, transaction)
    }
    const changed = await this.update(updates, transaction)
    this.counts.updated += changed.size
    this.counts.skipped += updates.length - changed.size
    for (const u of updates) {
      if (changed.has(u.id)) this.written(u.candidate, 'updated')
      if (u.roleId === ROLE.learner) learners.push(u)
    }
    this.counts.assigned += await this.assign(learners, transaction)
  }

  /** A row that created or changed an account, told to `onRow` with its values (never the password). */
  private written(candidate: Candidate, outcome: WrittenRow['outcome']) {
    if (!this.options.onRow) return
    const { index } = this.layout
    const cell = (column: ImportColumn) => {
      const i = index[column]
      return i === undefined ? '' : unprotectFormula(candidate.cells[i] ?? '').trim()
    }
    this.options.onRow({
      line: candidate.line,
      outcome,
      values: {
        firstName: cell('firstName'),
        lastName: cell('lastName'),
        email: cell('email'),
        userName: cell('userName'),
        role: cell('role'),
        courses: cell('courses'),
        programs: cell('programs'),
      },
    })
  }

  /** The row on its own: the form's rules, the role the actor may give, its courses and programs, repeats. */
  private check(record: CsvRecord): Candidate | undefined {
    const { headers, index } = this.layout
    const values = record.cells
    const extra = record.cells.slice(headers.length)
    if (record.cells.length < headers.length || extra.some((v) => v.trim())) {
      // a value too many or too few shifts the cells after it: the password may sit under any column,
      // so none of this row's cells goes into the report, only its line
      this.fail(record.line, null, [
        {
          field: ROW_LEVEL,
          message: `This row has ${record.cells.length} values; the header has ${headers.length} columns.`,
        },
      ])
      return
    }
    const cell = (column: ImportColumn) => {
      const i = index[column]
      return i === undefined ? '' : unprotectFormula(record.cells[i])
    }
    const role = roleKey(cell('role'))
    const parsed = ImportRowSchema.safeParse({
      firstName: cell('firstName'),
      lastName: cell('lastName'),
      email: cell('email'),
      userName: cell('userName'),
      password: cell('password') || undefined,
      role: role || undefined,
    })
    const problems: Problem[] = []
    // kept apart too: they fail the row only when it creates or changes an account
    const refusals: Problem[] = []
    const refuse = (problem: Problem) => {
      problems.push(problem)
      refusals.push(problem)
    }
    if (!parsed.success) {
      const seen = new Set<string>()
      for (const issue of parsed.error.issues) {
        const field = String(issue.path[0] ?? ROW_LEVEL)
        if (seen.has(field)) continue
        seen.add(field)
        problems.push({ field, message: issue.message })
      }
    }
    const roleId = parsed.success ? ROLE_BY_NAME[parsed.data.role] : undefined
    if (roleId !== undefined && !mayCreateRole(this.actor, roleId))
      refuse({ field: 'role', message: CREATE_ROLE_DENIED })
    const courses = resolve(cell('courses'), this.targets.courses, 'course')
    const programs = resolve(cell('programs'), this.targets.programs, 'program')
    if ('error' in courses) problems.push({ field: 'courses', message: courses.error })
    if ('error' in programs) problems.push({ field: 'programs', message: programs.error })
    const zoneCell = cell('timeZone').trim()
    const zone = zoneCell ? timeZoneField().safeParse(zoneCell) : undefined
    if (zone && !zone.success) problems.push({ field: 'timeZone', message: zone.error.issues[0].message })
    const assigns = ('ids' in courses && courses.ids.length > 0) || ('ids' in programs && programs.ids.length > 0)
    if (assigns && roleId !== undefined && roleId !== ROLE.learner)
      refuse({ field: 'courses', message: 'Courses and programs are assigned to learners.' })
    const wrong = problems.length > refusals.length
    if (
      !parsed.success ||
      wrong ||
      roleId === undefined ||
      'error' in courses ||
      'error' in programs ||
      (zone && !zone.success)
    ) {
      this.fail(record.line, values, problems)
      return
    }
    const data = parsed.data
    const email = data.email.toLowerCase()
    const userName = data.userName.toLowerCase()
    const firstEmail = this.emails.get(email)
    const firstUserName = this.userNames.get(userName)
    if (firstEmail !== undefined || firstUserName !== undefined) {
      // the first row to give an email or username keeps it, whether it goes in or fails later
      const repeats: Repeat[] = []
      if (firstEmail !== undefined) repeats.push({ field: 'email', repeatOf: firstEmail })
      if (firstUserName !== undefined) repeats.push({ field: 'userName', repeatOf: firstUserName })
      this.fail(record.line, values, repeats)
      return
    }
    this.emails.set(email, record.line)
    this.userNames.set(userName, record.line)
    return {
      line: record.line,
      data,
      roleId,
      roleGiven: role !== '',
      courseIds: courses.ids,
      programIds: programs.ids,
      courseDues: courses.dues,
      programDues: programs.dues,
      timeZone: zone?.success ? zone.data : null,
      refusals,
      cells: values,
    }
  }

  /** Why an existing account may not take this row's values, if it may not. */
  private mayUpdate(candidate: Candidate, roleId: RoleId, account: Existing, byUserName: Existing | undefined) {
    if (byUserName && byUserName.id !== account.id) return { field: 'userName', message: DUPLICATE_USERNAME }
    const privileged = ADMIN_ROLES.includes(account.role_id as RoleId)
    if (privileged && !can(this.actor, 'manage:admins'))
      return { field: 'email', message: 'You do not have permission to change this account.' }
    if (account.id === this.actor.id && account.role_id !== roleId)
      return { field: 'role', message: 'You cannot change your own role.' }
    if (roleId !== ROLE.learner && (candidate.courseIds.length > 0 || candidate.programIds.length > 0))
      return { field: 'courses', message: 'Courses and programs are assigned to learners.' }
    return undefined
  }

  /** The accounts whose email or username a row of the batch uses (both are case-insensitive). */
  private async existing(candidates: Candidate[], transaction: Transaction) {
    const sq = await sequelize()
    return sq.query<Existing>(
      `SELECT id, email::text AS email, user_name::text AS user_name, role_id, first_name, last_name, time_zone FROM users
       WHERE email = ANY($1::citext[]) OR user_name = ANY($2::citext[])`,
      {
        bind: [candidates.map((c) => c.data.email), candidates.map((c) => c.data.userName)],
        type: QueryTypes.SELECT,
        transaction,
      },
    )
  }

  /** argon2id for the rows that bring a password, a few at a time (each hash takes 64 MiB). */
  private async hashes(candidates: Candidate[]): Promise<(string | null)[]> {
    const result: (string | null)[] = candidates.map(() => null)
    if (this.options.dryRun) return result
    let next = 0
    const worker = async () => {
      while (next < candidates.length) {
        const i = next++
        const password = candidates[i].data.password
        if (password) result[i] = await hashPassword(password)
      }
    }
    await Promise.all(Array.from({ length: this.hashing }, worker))
    return result
  }

  private async insert(creates: Candidate[], transaction: Transaction) {
    if (creates.length === 0) return []
    const sq = await sequelize()
    const hashes = await this.hashes(creates)
    const rows = await sq.query<{ id: string; email: string }>(
      `INSERT INTO users (first_name, last_name, user_name, email, password_hash, role_id, time_zone)
       SELECT * FROM unnest($1::text[], $2::text[], $3::citext[], $4::citext[], $5::text[], $6::smallint[], $7::text[])
       ON CONFLICT DO NOTHING RETURNING id, email::text AS email`,
      {
        bind: [
          creates.map((c) => c.data.firstName),
          creates.map((c) => c.data.lastName),
          creates.map((c) => c.data.userName),
          creates.map((c) => c.data.email.toLowerCase()),
          hashes,
          creates.map((c) => c.roleId),
          creates.map((c) => c.timeZone),
        ],
        type: QueryTypes.SELECT,
        transaction,
      },
    )
    const ids = new Map(rows.map((r) => [r.email.toLowerCase(), r.id]))
    const created: { candidate: Candidate; id: string }[] = []
    for (const candidate of creates) {
      const id = ids.get(candidate.data.email.toLowerCase())
      if (id) created.push({ candidate, id })
      // another writer took the email or username between the check and the insert
      else this.failCandidate(candidate, [{ field: 'email', message: DUPLICATE_EMAIL }])
    }
    return created
  }

  /**
   * The row's names, username and role (and password, when it brings one) on the account with its
   * email. The ids of the accounts changed: one whose values are the row's already is not.
   */
  private async update(updates: Update[], transaction: Transaction): Promise<Set<string>> {
    if (updates.length === 0) return new Set()
    const sq = await sequelize()
    const hashes = await this.hashes(updates.map((u) => u.candidate))
    const changed = await sq.query<{ id: string; password_changed: boolean }>(
      `UPDATE users u SET first_name = v.first_name, last_name = v.last_name, user_name = v.user_name,
         role_id = v.role_id, password_hash = COALESCE(v.password_hash, u.password_hash),
         time_zone = COALESCE(v.time_zone, u.time_zone),
         token_version = u.token_version + CASE WHEN v.password_hash IS NULL THEN 0 ELSE 1 END,
         updated_at = now()
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::citext[], $5::smallint[], $6::text[], $7::boolean[],
                   $8::text[])
         AS v(id, first_name, last_name, user_name, role_id, password_hash, has_password, time_zone)
       WHERE u.id = v.id AND (v.has_password OR
         (u.first_name, u.last_name, u.user_name::text, u.role_id, COALESCE(v.time_zone, u.time_zone)) IS DISTINCT FROM
         (v.first_name, v.last_name, v.user_name::text, v.role_id, u.time_zone))
       RETURNING u.id, v.has_password AS password_changed`,
      {
        bind: [
          updates.map((u) => u.id),
          updates.map((u) => u.candidate.data.firstName),
          updates.map((u) => u.candidate.data.lastName),
          updates.map((u) => u.candidate.data.userName),
          updates.map((u) => u.roleId),
          hashes,
          updates.map((u) => Boolean(u.candidate.data.password)),
          updates.map((u) => u.candidate.timeZone),
        ],
        type: QueryTypes.SELECT,
        transaction,
      },
    )
    // a new password ends the links sent for the old one, as a password change does
    const renewed = changed.filter((c) => c.password_changed).map((c) => c.id)
    if (renewed.length)
      await sq.query(
        'UPDATE password_reset_tokens SET used_at = now() WHERE user_id = ANY($1::uuid[]) AND used_at IS NULL',
        { bind: [renewed], transaction },
      )
    return new Set(changed.map((c) => c.id))
  }

  /**
   * The rows' courses and programs on their learners. What a learner has already is left as it is, but for
   * its due date when the row gives one; a local time is read in the learner's time zone.
   */
  private async assign(learners: { id: string; candidate: Candidate }[], transaction: Transaction) {
    const sq = await sequelize()
    let assigned = 0
    for (const [table, column, key, dueKey] of [
      ['course_assignments', 'course_id', 'courseIds', 'courseDues'],
      ['program_assignments', 'program_id', 'programIds', 'programDues'],
    ] as const) {
      const pairs = learners.flatMap(({ id, candidate }) =>
        candidate[key].map((target, i) => ({ id, target, due: dueCells(candidate[dueKey][i]) })),
      )
      if (pairs.length === 0) continue
      const [row] = await sq.query<{ n: number }>(
        `WITH added AS (
           INSERT INTO ${table} AS a (user_id, ${column}, assigned_by, due_date, due_at)
           SELECT p.u, p.t, $3::uuid,
                  CASE WHEN p.due_kind = 'day' THEN p.due_value::date END,
                  CASE p.due_kind WHEN 'instant' THEN p.due_value::timestamptz
                    WHEN 'local' THEN p.due_value::timestamp AT TIME ZONE COALESCE(lu.time_zone, $6::text) END
             FROM unnest($1::uuid[], $2::uuid[], $4::text[], $5::text[]) AS p(u, t, due_kind, due_value)
             JOIN users lu ON lu.id = p.u
           ON CONFLICT (user_id, ${column}) DO UPDATE SET due_date = EXCLUDED.due_date, due_at = EXCLUDED.due_at
            WHERE (EXCLUDED.due_date IS NOT NULL OR EXCLUDED.due_at IS NOT NULL)
              AND (a.due_date, a.due_at) IS DISTINCT FROM (EXCLUDED.due_date, EXCLUDED.due_at)
           RETURNING (xmax = 0) AS fresh)
         SELECT (count(*) FILTER (WHERE fresh))::int AS n FROM added`,
        {
          bind: [
            pairs.map((p) => p.id),
            pairs.map((p) => p.target),
            this.actor.id,
            pairs.map((p) => p.due[0]),
            pairs.map((p) => p.due[1]),
            defaultTimeZone(),
          ],
          type: QueryTypes.SELECT,
          transaction,
        },
      )
      assigned += row.n
    }
    return assigned
  }
}

/** The row gives the account the values it has already, and nothing more (no password, no courses). */
function changesNothing(candidate: Candidate, roleId: RoleId, account: Existing) {
  const { data } = candidate
  return (
    !data.password &&
    candidate.courseIds.length === 0 &&
    candidate.programIds.length === 0 &&
    (candidate.timeZone === null || candidate.timeZone === account.time_zone) &&
    data.firstName === account.first_name &&
    data.lastName === account.last_name &&
    data.userName === account.user_name &&
    roleId === account.role_id
  )
}

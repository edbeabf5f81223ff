import type { IsolationLevel, SessionName, Step } from './schema.ts'

// A two-session exercise is graded by what its log shows, not by one result: the learner's statements in both
// sessions, in the order they finished, each with how it ended. The exercise's steps must be found in that order,
// each after the one before, so a later step never counts evidence the earlier one already used up.

/** How a statement ended: its command tag and rows, a failure with its SQLSTATE, or a cancel (the pair closing). */
export type Outcome =
  | { ok: true; command: string; rows: unknown[][] }
  | { ok: false; code: string; message: string }
  | { ok: false; cancelled: true }

/** One statement of either session, as the pair records it once it finished. */
export type LogEntry = {
  session: SessionName
  sql: string
  /** the transaction block it ran in, counted per session; null outside one (each statement commits by itself) */
  transaction: number | null
  /** the isolation level of the transaction it ran in */
  isolation: IsolationLevel
  /** it waited on a lock the other session held before it finished */
  waited: boolean
  outcome: Outcome
}

export type StepsResult = { passed: true } | { passed: false; step: number; message: string }

const CHANGES = ['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'TRUNCATE']

/** Grades a log against the steps: passed, or the first step (0-based) not met, said for the learner. */
export function checkSteps(steps: readonly Step[], log: readonly LogEntry[]): StepsResult {
  let after = -1
  for (const [i, step] of steps.entries()) {
    const at = findStep(step, log, after)
    if (at === undefined) return { passed: false, step: i, message: `Step ${i + 1} is not met: ${describeStep(step)}.` }
    after = at
  }
  return { passed: true }
}

/** The index of the entry that completes the step, the earliest one after `after`. */
function findStep(step: Step, log: readonly LogEntry[], after: number): number | undefined {
  const later = (test: (entry: LogEntry, at: number) => boolean) => {
    for (let at = after + 1; at < log.length; at++) if (test(log[at], at)) return at
    return undefined
  }
  if (step.waits) return later((e) => e.session === step.waits && e.waited)
  if (step.error) {
    const { session, code } = step.error
    return later((e) => e.session === session && !e.outcome.ok && 'code' in e.outcome && e.outcome.code === code)
  }
  if (step.committed) return later((e) => e.session === step.committed && commandOf(e) === 'COMMIT')
  if (step['rolled-back']) return later((e) => e.session === step['rolled-back'] && commandOf(e) === 'ROLLBACK')
  const read = step['changed-read'] ?? step['same-read']
  if (read) {
    const changed = step['changed-read'] !== undefined
    return later((second, at) => {
      if (second.session !== read.session || second.isolation !== read.isolation) return false
      if (second.transaction === null || !isRead(second)) return false
      // an earlier read of the same text in the same transaction, after the previous step, with a commit of the
      // other session that changed data in between
      for (let first = at - 1; first > after; first--) {
        const entry = log[first]
        if (entry.session !== second.session || entry.transaction !== second.transaction) continue
        if (!isRead(entry) || sameText(entry.sql) !== sameText(second.sql)) continue
        if (!committedChangeBetween(log, first, at, read.session)) continue
        if (sameRows(rowsOf(entry), rowsOf(second)) !== changed) return true
      }
      return false
    })
  }
  return undefined
}

const commandOf = (entry: LogEntry) => (entry.outcome.ok ? entry.outcome.command : undefined)
const rowsOf = (entry: LogEntry) => (entry.outcome.ok ? entry.outcome.rows : [])
const isRead = (entry: LogEntry) => commandOf(entry) === 'SELECT'

/** Two reads are "the same SELECT" when they differ only in spacing and a closing semicolon. */
const sameText = (sql: string) => sql.replace(/;\s*$/, '').replace(/\s+/g, ' ').trim()

const sameRows = (a: unknown[][], b: unknown[][]) => JSON.stringify(a) === JSON.stringify(b)

/**
 * Whether the session other than `reader` committed a change to data between two entries: a COMMIT of a
 * transaction in which it changed rows, or a change outside a transaction block, which commits by itself.
 */
function committedChangeBetween(log: readonly LogEntry[], from: number, to: number, reader: SessionName): boolean {
  for (let at = from + 1; at < to; at++) {
    const entry = log[at]
    if (entry.session === reader) continue
    const command = commandOf(entry)
    if (entry.transaction === null && command !== undefined && CHANGES.includes(command)) return true
    if (command === 'COMMIT' && entry.transaction !== null) {
      const changed = log
        .slice(0, at)
        .some(
          (e) =>
            e.session === entry.session && e.transaction === entry.transaction && CHANGES.includes(commandOf(e) ?? ''),
        )
      if (changed) return true
    }
  }
  return false
}

/** A step in words, as the learner reads which one is not met yet. */
function describeStep(step: Step): string {
  if (step.waits) return `a statement of session ${step.waits} waits on a lock the other session holds, then finishes`
  if (step.error) return `a statement of session ${step.error.session} fails with SQLSTATE ${step.error.code}`
  if (step.committed) return `session ${step.committed} commits a transaction`
  if (step['rolled-back']) return `session ${step['rolled-back']} rolls a transaction back`
  const changed = step['changed-read']
  if (changed)
    return `in one ${changed.isolation.toUpperCase()} transaction of session ${changed.session}, the same SELECT returns different rows after the other session commits a change`
  const same = step['same-read']
  if (same)
    return `in one ${same.isolation.toUpperCase()} transaction of session ${same.session}, the same SELECT returns the same rows although the other session commits a change in between`
  return 'an unknown step'
}

/** One statement of a two-session solution script, with the line it starts on (1-based). */
type ScriptStatement = { session: SessionName; sql: string; line: number }

const SCRIPT_LINE = /^\s*([AB]):(.*)$/

/**
 * Reads a two-session solution script: each statement starts on a line prefixed `A:` or `B:` and may go on over
 * the following lines until one ends with `;`. Blank lines and `--` comment lines between statements are skipped.
 * The statements run in the order written, as a learner would run them.
 */
export function parseSessionScript(
  script: string,
): { ok: true; statements: ScriptStatement[] } | { ok: false; message: string } {
  const statements: ScriptStatement[] = []
  let open: ScriptStatement | undefined
  for (const [i, line] of script.split(/\r?\n/).entries()) {
    if (open) open.sql += `\n${line}`
    else if (line.trim() === '' || line.trim().startsWith('--')) continue
    else {
      const start = SCRIPT_LINE.exec(line)
      if (!start) return { ok: false, message: `Line ${i + 1} must start with A: or B:, the session that runs it` }
      open = { session: start[1] as SessionName, sql: start[2], line: i + 1 }
    }
    if (open.sql.trimEnd().endsWith(';')) {
      statements.push(close(open))
      open = undefined
    }
  }
  if (open) statements.push(close(open))
  const empty = statements.find((s) => s.sql === '')
  if (empty) return { ok: false, message: `Line ${empty.line} has no statement after ${empty.session}:` }
  if (statements.length === 0) return { ok: false, message: 'Must list statements, each on a line starting A: or B:' }
  return { ok: true, statements }
}

const close = (statement: ScriptStatement) => ({
  ...statement,
  sql: statement.sql.trim().replace(/;$/, '').trim(),
})

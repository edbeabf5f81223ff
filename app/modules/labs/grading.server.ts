import { getEnv } from '#app/utils/env.server.ts'
import { invalid, ServiceError } from '../errors.ts'
import { compareResults, type Cell } from './compare.ts'
import { runInSandbox, type LabDatabases, type Outcome, type Rows } from './sandbox.server.ts'
import type { StatementKind } from './schema.ts'
import { vetSql, type VettedStatement } from './vet.ts'

// Grading one attempt: the learner's SQL vetted by PostgreSQL's parser, run in the sandbox, and what it
// returned compared with what the solution returned when the lab was built. A statement the lab refuses is
// an error of the request (400); SQL that fails in the database is a failed attempt, with the database's
// message and the place it points at.

/** What grading needs of an exercise, as it is kept. */
export type GradedExercise = {
  key: string
  check: 'result' | 'state'
  verify: readonly string[]
  order: 'auto' | 'strict' | 'any'
  columns: 'names' | 'positions'
  allow: readonly StatementKind[]
  /** the solution's outermost query has ORDER BY (what `order: auto` follows) */
  ordered: boolean
  expected: Expected
}

/** What the solution gave: its rows (check `result`), or what each verify query read after it (`state`). */
export type Expected = { result: Rows } | { verify: Rows[] }

export type Grading = {
  passed: boolean
  message: string
  /** the learner's rows, the first LABS_SHOWN_ROWS of `total` */
  columns: string[]
  rows: Cell[][]
  total: number
  truncated: boolean
  missingRows: Cell[][]
  extraRows: Cell[][]
  wrongOrder: boolean
  /** where the database's error points, in characters of the learner's text (1-based) */
  position?: number
  ms: number
}

/** Rows of the learner's own result shown back; the comparison reads all of them. */
const SHOWN_ROWS = 100

/** Vets the learner's SQL for this exercise: the statements to run, or a refusal (400) naming what. */
async function vetted(exercise: GradedExercise, sql: string): Promise<VettedStatement[] | { syntax: Grading }> {
  const vetting = await vetSql(sql, {
    allow: exercise.allow,
    single: exercise.check === 'result',
    maxBytes: getEnv().LABS_MAX_SQL_BYTES,
  })
  if (vetting.ok) {
    if (exercise.check === 'result' && vetting.statements[0].kind !== 'select')
      throw invalid('This exercise compares the rows of one query: send a single SELECT.')
    return vetting.statements
  }
  if (!vetting.syntax) throw invalid(vetting.message)
  return { syntax: failed(vetting.message, vetting.position, 0) }
}

function failed(message: string, position: number | undefined, ms: number): Grading {
  return {
    passed: false,
    message,
    columns: [],
    rows: [],
    total: 0,
    truncated: false,
    missingRows: [],
    extraRows: [],
    wrongOrder: false,
    ...(position === undefined ? {} : { position }),
    ms,
  }
}

/** Grades one attempt of `exercise` on the lab's databases. */
export async function grade(lab: LabDatabases, exercise: GradedExercise, sql: string): Promise<Grading> {
  const statements = await vetted(exercise, sql)
  if (!Array.isArray(statements)) return statements.syntax
  const outcome = await run(lab, exercise, statements)
  if (!outcome.ok) return failed(outcome.message, outcome.position, outcome.ms)
  if ('result' in exercise.expected) {
    const result = outcome.result!
    if (result.truncated)
      return {
        ...failed(
          `Your query returned ${result.total.toLocaleString('en')} rows, more than a lab reads back ` +
            `(${result.rows.length.toLocaleString('en')}); the answer has ${exercise.expected.result.rows.length.toLocaleString('en')}.`,
          undefined,
          outcome.ms,
        ),
        ...shown(result),
      }
    const order = exercise.order === 'auto' ? (exercise.ordered ? 'strict' : 'any') : exercise.order
    const difference = compareResults(exercise.expected.result, result, { order, columns: exercise.columns })
    return {
      passed: difference.passed,
      message: difference.message,
      ...shown(result),
      missingRows: difference.missingRows,
      extraRows: difference.extraRows,
      wrongOrder: difference.wrongOrder,
      ms: outcome.ms,
    }
  }
  return compareState(exercise, exercise.expected.verify, outcome)
}

function shown(result: Rows & { total: number }) {
  const rows = result.rows.slice(0, SHOWN_ROWS)
  return { columns: result.columns, rows, total: result.total, truncated: rows.length < result.total }
}

/** A state check passes when every verify query reads, after the learner's statements, what it read after the solution's. */
function compareState(exercise: GradedExercise, expected: Rows[], outcome: Extract<Outcome, { ok: true }>): Grading {
  for (const [i, rows] of outcome.verify.entries()) {
    const difference = compareResults(expected[i], rows, { order: 'any', columns: 'positions' })
    if (!difference.passed)
      return {
        ...failed(
          `Check ${i + 1} of ${expected.length} reads something else after your statements than after the solution's. ${difference.message}`,
          undefined,
          outcome.ms,
        ),
        ...shown({ ...rows, total: rows.rows.length }),
        missingRows: difference.missingRows,
        extraRows: difference.extraRows,
      }
  }
  const passed = `Passed: all ${expected.length} ${expected.length === 1 ? 'check reads' : 'checks read'} what the solution left.`
  return { ...failed(passed, undefined, outcome.ms), passed: true }
}

function run(lab: LabDatabases, exercise: GradedExercise, statements: VettedStatement[]) {
  const at = (s: VettedStatement) => ({ text: s.sql, start: s.start })
  return exercise.check === 'result'
    ? runInSandbox(lab, { kind: 'query', statement: at(statements[0]) })
    : runInSandbox(lab, { kind: 'change', statements: statements.map(at), verify: [...exercise.verify] })
}

/**
 * Runs an exercise's solution on a newly built lab: what grading will compare with, and whether the
 * solution's outermost query orders its rows. A solution that fails, or a state check whose verify
 * queries read the same with and without it (a learner who sends nothing would pass), is the author's
 * error, named by the exercise's key.
 */
export async function solve(
  lab: LabDatabases,
  exercise: Omit<GradedExercise, 'ordered' | 'expected'> & { solution: string },
): Promise<{ expected: Expected; ordered: boolean; ms: number }> {
  const vetting = await vetSql(exercise.solution, {
    allow: exercise.allow,
    single: exercise.check === 'result',
    maxBytes: Infinity,
  })
  const wrong = (message: string) => new ServiceError(400, `Exercise ${exercise.key}: the solution ${message}`)
  if (!vetting.ok) throw wrong(`is refused: ${vetting.message}`)
  if (exercise.check === 'result') {
    const [query] = vetting.statements
    if (query.kind !== 'select') throw wrong('must be one SELECT, since the exercise compares its rows.')
    const outcome = await runInSandbox(lab, { kind: 'query', statement: { text: query.sql, start: query.start } })
    if (!outcome.ok) throw wrong(`fails: ${outcome.message}`)
    if (outcome.result!.truncated)
      throw wrong(`returns ${outcome.result!.total} rows, more than a lab reads back (LABS_MAX_ROWS).`)
    const { columns, rows } = outcome.result!
    return { expected: { result: { columns, rows } }, ordered: query.ordered, ms: outcome.ms }
  }
  const statements = vetting.statements.map((s) => ({ text: s.sql, start: s.start }))
  const verify = [...exercise.verify]
  const after = await runInSandbox(lab, { kind: 'change', statements, verify })
  if (!after.ok) throw wrong(`fails: ${after.message}`)
  const before = await runInSandbox(lab, { kind: 'change', statements: [], verify })
  if (!before.ok) throw new ServiceError(400, `Exercise ${exercise.key}: a verify query fails: ${before.message}`)
  const same = after.verify.every(
    (rows, i) => compareResults(before.verify[i], rows, { order: 'any', columns: 'positions' }).passed,
  )
  if (same) throw wrong('changes nothing the verify queries read: a learner who sends nothing would pass.')
  return { expected: { verify: after.verify }, ordered: false, ms: after.ms }
}

import { getEnv } from '#app/utils/env.server.ts'
import { invalid, ServiceError } from '../errors.ts'
import { compareResults, type Cell } from './compare.ts'
import { checkPlan, describeNode, readPlan, type PlanNode, type PlanRules, type RuleOutcome } from './plan.ts'
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
  check: 'result' | 'state' | 'plan'
  verify: readonly string[]
  order: 'auto' | 'strict' | 'any'
  columns: 'names' | 'positions'
  allow: readonly StatementKind[]
  /** the solution's outermost query has ORDER BY (what `order: auto` follows) */
  ordered: boolean
  expected: Expected
  /** a plan exercise's rules, and the total estimated cost of the solution's plan the cost factor is held to */
  plan?: { rules: PlanRules; cost: number }
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
  /** a plan exercise's final query: its plan, and each rule with whether the plan meets it */
  plan?: GradedPlan
  ms: number
}

type GradedPlan = { tree: PlanNode; rules: RuleOutcome[] }

/** Rows of the learner's own result shown back; the comparison reads all of them. */
const SHOWN_ROWS = 100

const FINAL_SELECT =
  'This exercise grades the rows and the plan of a final query: end with a SELECT, after any statements that prepare it.'

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
    if (exercise.check === 'plan' && vetting.statements.at(-1)!.kind !== 'select') throw invalid(FINAL_SELECT)
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
    const graded = {
      passed: difference.passed,
      message: difference.message,
      ...shown(result),
      missingRows: difference.missingRows,
      extraRows: difference.extraRows,
      wrongOrder: difference.wrongOrder,
      ms: outcome.ms,
    }
    return exercise.plan ? gradePlan(graded, exercise.plan, outcome.plan) : graded
  }
  return compareState(exercise, exercise.expected.verify, outcome)
}

/**
 * A plan exercise passes when its rows do and its plan meets every rule. Wrong rows are said first (the plan
 * of a query that answers something else teaches nothing); right rows with a plan that misses a rule name the
 * first such rule.
 */
function gradePlan(graded: Grading, plan: NonNullable<GradedExercise['plan']>, explained: unknown): Grading {
  const tree = readPlan(explained)
  const rules = checkPlan(tree, plan.rules, plan.cost)
  const unmet = rules.filter((r) => !r.met)
  const withPlan = { ...graded, plan: { tree, rules } }
  if (!graded.passed) return withPlan
  if (unmet.length === 0)
    return { ...withPlan, message: `Passed: the right rows, and a plan that meets all ${rules.length} rules.` }
  const more = unmet.length > 1 ? ` (${unmet.length - 1} more rule${unmet.length > 2 ? 's are' : ' is'} not met)` : ''
  return {
    ...withPlan,
    passed: false,
    message: `Your query returns the right rows, but ${unmetRule(unmet[0], tree)}${more}.`,
  }
}

/** What a rule the plan misses asks, in words: "its plan has a Seq Scan on t; the exercise expects …". */
function unmetRule(rule: RuleOutcome, tree: PlanNode): string {
  if (rule.rule === 'cost')
    return (
      `its plan's estimated cost is ${number(rule.cost)}, more than ${number(rule.factor)} × the solution's ` +
      `(at most ${number(rule.limit)})`
    )
  if (rule.rule === 'lacks') {
    const found = rule.nodes[0].replace(/^(SubPlan|InitPlan): .*/, '$1')
    return `its plan has ${article(found)}; the exercise expects a plan without one`
  }
  // what the plan does instead with the table the pattern names, when it names one the plan reads
  const table = /\son\s+(\S+)/i.exec(rule.pattern)?.[1]
  const instead = table ? nodesReading(tree, table.toLowerCase()) : []
  return instead.length > 0
    ? `its plan has ${article(instead[0])}; the exercise expects ${article(rule.pattern)}`
    : `its plan has no ${rule.pattern}, which the exercise expects`
}

const number = (n: number) => n.toLocaleString('en', { maximumFractionDigits: 2 })
const article = (words: string) => `${/^[aeiou]/i.test(words) ? 'an' : 'a'} ${words}`

function nodesReading(node: PlanNode, table: string): string[] {
  const own = node.relation?.toLowerCase() === table ? [describeNode({ ...node, subplan: undefined })] : []
  return [...own, ...node.children.flatMap((c) => nodesReading(c, table))]
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

const at = (s: VettedStatement) => ({ text: s.sql, start: s.start })

function run(lab: LabDatabases, exercise: GradedExercise, statements: VettedStatement[]) {
  if (exercise.check === 'plan')
    return runInSandbox(lab, {
      kind: 'plan',
      statements: statements.slice(0, -1).map(at),
      statement: at(statements.at(-1)!),
    })
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
  exercise: Omit<GradedExercise, 'ordered' | 'expected' | 'plan'> & { solution: string; rules?: PlanRules },
): Promise<{ expected: Expected; ordered: boolean; ms: number; plan?: { cost: number; tree: PlanNode } }> {
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
  if (exercise.check === 'plan') {
    const query = vetting.statements.at(-1)!
    if (query.kind !== 'select') throw wrong('must end with a SELECT, since the exercise grades its rows and plan.')
    const setup = vetting.statements.slice(0, -1).map(at)
    const outcome = await runInSandbox(lab, { kind: 'plan', statements: setup, statement: at(query) })
    if (!outcome.ok) throw wrong(`fails: ${outcome.message}`)
    if (outcome.result!.truncated)
      throw wrong(`returns ${outcome.result!.total} rows, more than a lab reads back (LABS_MAX_ROWS).`)
    const tree = readPlan(outcome.plan)
    // the solution is what the cost factor is measured against, so it meets a factor of 1 or more by itself
    const unmet = checkPlan(tree, exercise.rules ?? {}, tree.cost).find((r) => !r.met)
    if (unmet) throw wrong(`does not meet the exercise's own plan rules: ${unmetRule(unmet, tree)}.`)
    const { columns, rows } = outcome.result!
    return {
      expected: { result: { columns, rows } },
      ordered: query.ordered,
      ms: outcome.ms,
      plan: { cost: tree.cost, tree },
    }
  }
  const statements = vetting.statements.map(at)
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

import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { within } from '@testing-library/dom'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { documentedAnswer } from '#app/modules/api-docs/openapi.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { labAttempts } from '#app/modules/labs/admin.server.ts'
import { compareEngines } from '#app/modules/labs/engines.server.ts'
import { readLabFolder } from '#app/modules/labs/folder.server.ts'
import { parseLabYaml, stringifyLab } from '#app/modules/labs/format.ts'
import { grade, solve, type GradedExercise } from '#app/modules/labs/grading.server.ts'
import { checkPlan, describeNode, readPlan, type PlanRules } from '#app/modules/labs/plan.ts'
import {
  buildLabDatabases,
  closeSandbox,
  dropLabDatabases,
  practiceDataset,
  runInSandbox,
  type LabDatabases,
} from '#app/modules/labs/sandbox.server.ts'
import {
  attemptExercise,
  checkLabDirectory,
  importLab,
  labFolder,
  rebuildLabDatabases,
} from '#app/modules/labs/service.server.ts'
import * as resultsPage from '#app/routes/admin+/lab.$labId.tsx'
import * as attemptsRoute from '#app/routes/api+/labs_.$labId_.attempts.ts'
import { sequelize } from '#db/client.ts'
import { assignCourse, labFolderOf, makeCoach, makeCourse, makeLearner } from '#tests/factories.ts'
import { renderRoute, type RouteModule } from '#tests/render.tsx'
import { body, call } from '#tests/requests.ts'
import { sessionCookieFor } from '#tests/sessions.ts'

// Plan exercises in the sandbox: the setup statements run on a copy, what they created is analysed, and the
// final query's rows and plan come back; nothing the attempt made outlasts it. Grading holds the rows to the
// solution's and the plan to the exercise's rules; the import holds the solution to them.

const DATASET = `
CREATE TABLE sale (id integer PRIMARY KEY, day date NOT NULL, amount numeric(8, 2) NOT NULL);
INSERT INTO sale SELECT n, date '2020-01-01' + n % 2000, n % 97 FROM generate_series(1, 50000) AS n;
`
const QUERY = `SELECT count(*) AS n FROM sale WHERE day = date '2021-06-01'`

let lab: LabDatabases

beforeAll(async () => {
  lab = await buildLabDatabases({ sql: DATASET, name: 'dataset.sql', files: [] }, 1)
}, 60_000)

afterAll(async () => {
  await closeSandbox()
  if (lab) await dropLabDatabases([lab.database, ...lab.copies])
})

const rows = async <T = unknown>(text: string, bind: unknown[]): Promise<T[]> =>
  (await (await sequelize()).query(text, { bind }))[0] as T[]

const at = (text: string) => ({ text, start: 0 })
const met = (plan: unknown, rules: { has?: string[]; lacks?: string[] }) =>
  checkPlan(readPlan(plan), rules, 1).every((outcome) => outcome.met)

describe('plan exercises in the sandbox', () => {
  it('reads a sequential scan, then an index scan after the learner creates the index, which is gone after', async () => {
    const before = await runInSandbox(lab, { kind: 'plan', statements: [], statement: at(QUERY) })
    if (!before.ok) throw new Error(before.message)
    expect(before.result?.rows).toEqual([['25']])
    const seq = met(before.plan, { has: ['Seq Scan on sale'] })
    expect(seq).toBe(true)

    const after = await runInSandbox(lab, {
      kind: 'plan',
      statements: [at('CREATE INDEX sale_day_idx ON sale (day)')],
      statement: at(QUERY),
    })
    if (!after.ok) throw new Error(after.message)
    expect(after.result?.rows).toEqual([['25']])
    const indexed = met(after.plan, { has: ['Index Scan on sale using sale_day_idx'], lacks: ['Seq Scan'] })
    expect(indexed).toBe(true)

    const again = await runInSandbox(lab, { kind: 'plan', statements: [], statement: at(QUERY) })
    if (!again.ok) throw new Error(again.message)
    expect(met(again.plan, { lacks: ['Seq Scan on sale'] })).toBe(false)
  })
})

// --- Grading and import ---

const LAB = `title: Sales plans
description: Plans of queries over a year of sales.
minutes: 10
dataset: data.sql
exercises:
  - key: by-day
    title: One day's sales, by an index
    prompt: Count the sales of 1 June 2021, reading them through an index.
    solution: |
      CREATE INDEX sale_day_idx ON sale (day);
      ${QUERY}
    check: plan
    allow: [select, ddl]
    plan:
      has: [Index Scan on sale]
      lacks: [Seq Scan on sale]
`

const importOf = (yaml: string, course: string) => importLab(SYSTEM, { folder: labFolderOf(yaml, DATASET), course })

describe('grading plan exercises', () => {
  let labId = ''
  let learner: Awaited<ReturnType<typeof makeLearner>>
  const submit = (sql: string) => attemptExercise(learner, { labId, exercise: 'by-day', sql })

  beforeAll(async () => {
    const course = await makeCourse()
    labId = (await importOf(LAB, course.id)).id
    learner = await makeLearner()
    await assignCourse(learner.id, course.id)
  }, 60_000)

  it('keeps the solution’s cost and plan, and gives the lab copies to run on', async () => {
    const [row] = await rows<{
      plan_rules: unknown
      plan_cost: number
      plan_expected: { type: string }
      copies: number
    }>(
      `SELECT e.plan_rules, e.plan_cost, e.plan_expected, cardinality(l.state_copies) AS copies
       FROM lab_exercises e JOIN labs l ON l.id = e.lab_id WHERE l.id = $1`,
      [labId],
    )
    expect(row.plan_rules).toEqual({ has: ['Index Scan on sale'], lacks: ['Seq Scan on sale'] })
    expect(row.plan_cost).toBeGreaterThan(0)
    expect(row.plan_cost).toBeLessThan(100) // an index read of 25 rows, not a scan of 50,000
    expect(row.copies).toBe(2)
    expect(JSON.stringify(row.plan_expected)).toContain('sale_day_idx')
  })

  it('fails a sequential scan naming the rule, passes after CREATE INDEX in the same attempt, and keeps the plan', async () => {
    const seq = await submit(QUERY)
    expect(seq.passed).toBe(false)
    expect(seq.message).toBe(
      'Your query returns the right rows, but its plan has a Seq Scan on sale; the exercise expects an Index Scan on sale (1 more rule is not met).',
    )
    expect(seq.rows).toEqual([['25']])
    expect(seq.plan?.rules.map((r) => r.met)).toEqual([false, false])
    expect(describeNode(seq.plan!.tree.children[0] ?? seq.plan!.tree)).toMatch(/Seq Scan on sale/)

    const indexed = await submit(`CREATE INDEX my_day_idx ON sale (day);\n${QUERY}`)
    expect(indexed).toMatchObject({ passed: true, rows: [['25']] })
    expect(indexed.message).toBe('Passed: the right rows, and a plan that meets all 2 rules.')
    expect(JSON.stringify(indexed.plan?.tree)).toContain('my_day_idx')

    const kept = await rows<{ passed: boolean; plan: { rules: { met: boolean }[] } }>(
      `SELECT a.passed, a.plan FROM lab_attempts a JOIN lab_exercises e ON e.id = a.exercise_id
       WHERE e.lab_id = $1 AND a.user_id = $2 ORDER BY a.created_at`,
      [labId, learner.id],
    )
    expect(kept.map((k) => [k.passed, k.plan.rules.map((r) => r.met)])).toEqual([
      [false, [false, false]],
      [true, [true, true]],
    ])
  })

  it('fails wrong rows even with a good plan, with the rows’ message', async () => {
    const wrong = await submit(
      `CREATE INDEX ON sale (day); SELECT count(*) AS n FROM sale WHERE day = date '2021-06-01' AND amount > 50`,
    )
    expect(wrong.passed).toBe(false)
    expect(wrong.message).not.toMatch(/plan/)
    expect(wrong.missingRows).toEqual([['25']])
    expect(wrong.plan?.rules.every((r) => r.met)).toBe(true)
  })

  it('answers POST /api/labs/{labId}/attempts with the plan and each rule, as documented', async () => {
    const answer = await call(attemptsRoute.action as never, `/api/labs/${labId}/attempts`, {
      method: 'POST',
      json: { exercise: 'by-day', sql: QUERY },
      token: learner.token,
      params: { labId },
    })
    expect(answer.status).toBe(200)
    const json = (await body(answer)) as { data: { passed: boolean; plan: { rules: unknown[] } } }
    expect(json.data.passed).toBe(false)
    expect(json.data.plan.rules).toEqual([
      { rule: 'has', pattern: 'Index Scan on sale', met: false, nodes: [] },
      { rule: 'lacks', pattern: 'Seq Scan on sale', met: false, nodes: ['Seq Scan on sale'] },
    ])
    const checked = documentedAnswer('POST', '/api/labs/{labId}/attempts', 200).safeParse(json)
    expect(checked.error?.issues ?? []).toEqual([])
  })

  it('shows admins the plan of each plan attempt with the learner’s attempts', async () => {
    const attempts = await labAttempts(SYSTEM, labId, learner.id)
    expect(attempts.map((a) => [a.passed, a.plan?.rules.map((r) => r.met)])).toEqual([
      [false, [false, false]],
      [true, [true, true]],
      [false, [true, true]],
      [false, [false, false]],
    ])
    const cookie = await sessionCookieFor((await makeCoach()).userName)
    const page = await renderRoute(resultsPage as RouteModule, `/admin/lab/${labId}?learner=${learner.id}`, {
      cookie,
      pattern: '/admin/lab/:labId',
    })
    const [first] = page.getAllByTestId('lab-attempt')
    expect(within(first).getByRole('heading', { name: 'The query’s plan', level: 3 })).toBeInTheDocument()
    expect(within(first).getByRole('region', { name: 'The query’s plan' })).toHaveTextContent(/Seq Scan on sale/)
  })

  it('refuses SQL that does not end with a query', async () => {
    await expect(submit('CREATE INDEX ON sale (day)')).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/end with a SELECT/),
    })
  })

  it('leaves nothing behind: no copy keeps the learner’s index', async () => {
    const [{ database, state_copies }] = await rows<{ database: string; state_copies: string[] }>(
      'SELECT database, state_copies FROM labs WHERE id = $1',
      [labId],
    )
    const indexes = `SELECT indexname FROM pg_indexes WHERE tablename = 'sale' ORDER BY 1`
    // both copies at once, so each is read
    const read = await Promise.all(
      state_copies.map(() =>
        runInSandbox({ database, copies: state_copies }, { kind: 'change', statements: [], verify: [indexes] }),
      ),
    )
    for (const outcome of read) {
      if (!outcome.ok) throw new Error(outcome.message)
      expect(outcome.verify[0].rows).toEqual([['sale_pkey']])
    }
    expect(await submit(QUERY)).toMatchObject({ passed: false })
  })

  it('writes the rules back to the folder, and rebuilds the lab with its copies', async () => {
    const folder = await labFolder(SYSTEM, labId)
    expect(folder.definition.exercises[0]).toMatchObject({
      check: 'plan',
      plan: { has: ['Index Scan on sale'], lacks: ['Seq Scan on sale'] },
    })
    expect(parseLabYaml(stringifyLab(folder.definition))).toMatchObject({ ok: true, definition: folder.definition })
    expect(await rebuildLabDatabases(SYSTEM)).toMatchObject({ failed: [] })
    const [{ copies }] = await rows<{ copies: number }>(
      'SELECT cardinality(state_copies) AS copies FROM labs WHERE id = $1',
      [labId],
    )
    expect(copies).toBe(2)
    expect(await submit(`CREATE INDEX ON sale (day); ${QUERY}`)).toMatchObject({ passed: true })
  })

  it('refuses a lab whose solution does not meet its own rules, naming the exercise', async () => {
    const course = await makeCourse()
    const noIndex = LAB.replace('      CREATE INDEX sale_day_idx ON sale (day);\n', '')
    await expect(importOf(noIndex, course.id)).rejects.toMatchObject({
      status: 400,
      message:
        "Exercise by-day: the solution does not meet the exercise's own plan rules: its plan has a Seq Scan on sale; the exercise expects an Index Scan on sale.",
    })
    expect(await rows('SELECT id FROM labs WHERE course_id = $1', [course.id])).toEqual([])
  })
})

describe('plan rules in grading', () => {
  const exercise = async (solution: string, rules: PlanRules): Promise<GradedExercise> => {
    const authored = {
      key: 'x',
      check: 'plan' as const,
      verify: [],
      order: 'auto' as const,
      columns: 'names' as const,
      allow: ['select' as const, 'ddl' as const],
    }
    const solved = await solve(lab, { ...authored, solution, rules })
    return { ...authored, expected: solved.expected, ordered: solved.ordered, plan: { rules, cost: solved.plan!.cost } }
  }
  const PER_DAY = `SELECT d.day, count(s.id) AS n FROM (SELECT DISTINCT day FROM sale WHERE day < date '2020-01-05') AS d
    JOIN sale AS s ON s.day = d.day GROUP BY d.day`
  const CORRELATED = `SELECT d.day, (SELECT count(*) FROM sale AS s WHERE s.day = d.day) AS n
    FROM (SELECT DISTINCT day FROM sale WHERE day < date '2020-01-05') AS d`

  it('has and lacks: a correlated subquery fails a rule against SubPlan, the join passes', async () => {
    const join = await exercise(PER_DAY, { has: ['Hash Join'], lacks: ['SubPlan'] })
    const correlated = await grade(lab, join, CORRELATED)
    expect(correlated.passed).toBe(false)
    expect(correlated.message).toBe(
      'Your query returns the right rows, but its plan has no Hash Join, which the exercise expects (1 more rule is not met).',
    )
    expect(correlated.plan?.rules).toMatchObject([
      { rule: 'has', pattern: 'Hash Join', met: false },
      { rule: 'lacks', pattern: 'SubPlan', met: false },
    ])
    const lacking = await exercise(PER_DAY, { lacks: ['SubPlan'] })
    expect((await grade(lab, lacking, CORRELATED)).message).toBe(
      'Your query returns the right rows, but its plan has a SubPlan; the exercise expects a plan without one.',
    )
    expect(await grade(lab, join, PER_DAY.replace('count(s.id)', 'count(*)'))).toMatchObject({ passed: true })
  })

  it('cost: a plan over the factor of the solution’s fails, one within passes', async () => {
    const cheap = await exercise(`CREATE INDEX ON sale (day); ${QUERY}`, { cost: 2 })
    const over = await grade(lab, cheap, QUERY)
    expect(over.passed).toBe(false)
    expect(over.message).toMatch(
      /^Your query returns the right rows, but its plan's estimated cost is [\d,.]+, more than 2 × the solution's \(at most [\d,.]+\)\.$/,
    )
    const within = await grade(
      lab,
      cheap,
      `CREATE INDEX ON sale (day, amount); SELECT count(*) AS n FROM sale WHERE day = '2021-06-01'`,
    )
    expect(within.plan?.rules).toMatchObject([{ rule: 'cost', factor: 2, met: true }])
    expect(within.passed).toBe(true)
  })
})

describe('portal labs check of plan exercises', () => {
  const folderWith = async (yaml: string) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'plan-lab-'))
    await writeFile(path.join(dir, 'lab.yaml'), yaml)
    await writeFile(path.join(dir, 'data.sql'), DATASET)
    return dir
  }

  it('runs each solution against its rules', async () => {
    const good = await checkLabDirectory(await folderWith(LAB))
    expect(good).toMatchObject({ ok: true, problems: [] })
    expect(good.exercises[0].message).toMatch(
      /^The solution runs and its plan \(estimated cost [\d.]+\) meets the exercise's rules/,
    )
    const bad = await checkLabDirectory(await folderWith(LAB.replace('Index Scan on sale', 'Hash Join')))
    expect(bad.problems).toEqual([
      "by-day: Exercise by-day: the solution does not meet the exercise's own plan rules: its plan has no Hash Join, which the exercise expects.",
    ])
  })

  it('reports what is wrong with the rules by path', async () => {
    const broken = LAB.replace('      has: [Index Scan on sale]\n', '      has: [Index Scna on sale]\n      cost: -1\n')
    const report = await checkLabDirectory(await folderWith(broken))
    expect(report.ok).toBe(false)
    expect(report.problems.join('\n')).toContain('exercises[0].plan.has[0]: Must be a node type')
    expect(report.problems.join('\n')).toContain('exercises[0].plan.cost: Must be more than 0')
    const missing = await checkLabDirectory(await folderWith(LAB.replace(/ {4}plan:\n.*\n.*\n/, '')))
    expect(missing.problems.join('\n')).toContain('exercises[0].plan: Required when check is plan')
  })
})

describe('the demo lab’s plan exercises', () => {
  const DEMO = path.resolve(import.meta.dirname, '../../db/seeds/labs/data-warehousing')
  // the query each prompt starts from: the right rows, by the plan the exercise teaches to avoid
  const STARTING_POINTS: [string, string, RegExp][] = [
    [
      'index-for-big-sales',
      `SELECT store_key, count(*) AS big_lines, sum(sales_amount) AS revenue FROM fact_sales
       WHERE sales_amount >= 1000 GROUP BY store_key ORDER BY store_key`,
      /but its plan has a Seq Scan on fact_sales; the exercise expects an Index Scan on fact_sales/,
    ],
    [
      'correlated-subquery-to-join',
      `SELECT p.product_name, (SELECT sum(f.sales_amount) FROM fact_sales AS f WHERE f.product_key = p.product_key)
         AS revenue FROM dim_product AS p ORDER BY p.product_name`,
      /but its plan has no Hash Join, which the exercise expects \(1 more rule is not met\)/,
    ],
    [
      'materialized-monthly-revenue',
      `SELECT d.month, sum(f.sales_amount) AS revenue FROM fact_sales AS f
       JOIN dim_date AS d ON d.date_key = f.date_key JOIN dim_product AS p ON p.product_key = f.product_key
       WHERE d.year = 2025 AND p.category = 'Toys' GROUP BY d.month ORDER BY d.month`,
      /but its plan has no Scan on monthly_category_revenue, which the exercise expects/,
    ],
  ]

  it('passes each solution and fails the query each prompt starts from, on its plan alone', async () => {
    const course = await makeCourse()
    const folder = await readLabFolder(DEMO)
    const { id: labId } = await importLab(SYSTEM, { folder, course: course.id })
    const learner = await makeLearner()
    await assignCourse(learner.id, course.id)
    for (const [key, sql, message] of STARTING_POINTS) {
      const failed = await attemptExercise(learner, { labId, exercise: key, sql })
      expect({ key, passed: failed.passed, message: failed.message }).toEqual({
        key,
        passed: false,
        message: expect.stringMatching(message),
      })
      expect(failed.missingRows).toEqual([])
      const solution = folder.definition.exercises.find((e) => e.key === key)!.solution
      expect(await attemptExercise(learner, { labId, exercise: key, sql: solution })).toMatchObject({ passed: true })
    }
  }, 60_000)
})

describe('plan exercises on PGlite, in the author’s check', () => {
  it('runs the setup and the final query there, undone before the next exercise, and compares the rows', async () => {
    const dataset = await practiceDataset({ sql: DATASET, name: 'data.sql', files: [] })
    const exercise = (key: string, rows: string[][]) => ({
      key,
      check: 'plan' as const,
      verify: [],
      columns: 'names' as const,
      order: 'auto' as const,
      ordered: false,
      solution: `CREATE INDEX sale_day_idx ON sale (day); ${QUERY}`,
      expected: { result: { columns: ['n'], rows } },
    })
    // the second exercise creates the same index again: the first one's was undone
    expect(await compareEngines(dataset, [exercise('first', [['25']]), exercise('again', [['25']])])).toEqual([])
    const [differs] = await compareEngines(dataset, [exercise('wrong', [['26']])])
    expect(differs).toMatchObject({ key: 'wrong', message: expect.stringMatching(/^PGlite's answer differs/) })
  }, 120_000)
})

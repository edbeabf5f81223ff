import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkPlan, readPlan } from '#app/modules/labs/plan.ts'
import {
  buildLabDatabases,
  closeSandbox,
  dropLabDatabases,
  runInSandbox,
  type LabDatabases,
} from '#app/modules/labs/sandbox.server.ts'

// Plan exercises in the sandbox: the setup statements run on a copy, what they created is analysed, and the
// final query's rows and plan come back; nothing the attempt made outlasts it.

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

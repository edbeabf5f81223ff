import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkPlan, describeNode, parsePattern, readPlan, type PlanNode } from './plan.ts'

// The plans here are EXPLAIN (FORMAT JSON) output from PostgreSQL 18 (work_mem 16 MB) over fact_sales
// (100 000 rows, an index on sale_date) and products (200 rows), as the sandbox gives it.
const planOf = (name: string): PlanNode =>
  readPlan(JSON.parse(readFileSync(path.join(import.meta.dirname, 'plan.fixtures', `${name}.json`), 'utf8')))

const met = (name: string, rules: { has?: string[]; lacks?: string[] }) =>
  checkPlan(planOf(name), rules, 1).map((o) => o.met)

describe('parsePattern', () => {
  it.each([
    ['Seq Scan', { type: 'seq scan' }],
    [
      'index scan on Fact_Sales using fact_sales_date_idx',
      { type: 'index scan', relation: 'fact_sales', index: 'fact_sales_date_idx' },
    ],
    ['  Hash   Join ', { type: 'hash join' }],
    ['Index Scan using fact_sales_pkey', { type: 'index scan', index: 'fact_sales_pkey' }],
    ['Scan on fact_sales', { type: 'scan', relation: 'fact_sales' }],
    ['SubPlan', { type: 'subplan' }],
  ])('reads %j', (text, pattern) => {
    expect(parsePattern(text)).toEqual(pattern)
  })

  it.each(['Index Scna on fact_sales', 'Seq Scan on', 'on fact_sales', '', 'Seq Scan of fact_sales'])(
    'refuses %j',
    (text) => {
      expect(parsePattern(text)).toMatch(/^Must be a node type/)
    },
  )

  it('refuses a table or index on SubPlan and InitPlan', () => {
    expect(parsePattern('SubPlan on fact_sales')).toBe('SubPlan matches a subquery, so it takes no on or using')
  })
})

describe('readPlan', () => {
  it('keeps the type, table, index, rows and cost of each step', () => {
    expect(planOf('index-scan')).toEqual({
      type: 'Index Scan',
      relation: 'fact_sales',
      indexes: ['fact_sales_pkey'],
      rows: 1,
      cost: 8.31,
      children: [],
    })
  })

  it('gives a Bitmap Heap Scan the index of its Bitmap Index Scan', () => {
    const plan = planOf('bitmap-scan')
    expect(describeNode(plan)).toBe('Bitmap Heap Scan on fact_sales using fact_sales_date_idx')
    expect(plan.children.map(describeNode)).toEqual(['Bitmap Index Scan using fact_sales_date_idx'])
  })

  it('marks subqueries run per row and once', () => {
    expect(planOf('subplan').children[0]).toMatchObject({ type: 'Aggregate', subplan: 'SubPlan' })
    expect(planOf('initplan').children[0]).toMatchObject({ type: 'Aggregate', subplan: 'InitPlan' })
  })

  it('refuses what is not a plan', () => {
    expect(() => readPlan([{ Plan: {} }])).toThrow('EXPLAIN gave no plan')
    expect(() => readPlan('Seq Scan')).toThrow('EXPLAIN gave no plan')
  })
})

describe('checkPlan', () => {
  it('finds a node by type, table and index', () => {
    expect(
      met('seq-scan', { has: ['Seq Scan', 'seq scan on fact_sales', 'Seq Scan on products', 'Index Scan'] }),
    ).toEqual([true, true, false, false])
    expect(
      met('index-scan', {
        has: ['Index Scan on fact_sales using fact_sales_pkey', 'Index Scan using fact_sales_date_idx'],
      }),
    ).toEqual([true, false])
  })

  it('takes Index Only and Bitmap Heap Scans as Index Scans, but not the other way round', () => {
    expect(
      met('index-only', {
        has: ['Index Scan on fact_sales using fact_sales_date_idx', 'Index Only Scan', 'Bitmap Heap Scan'],
      }),
    ).toEqual([true, true, false])
    expect(
      met('bitmap-scan', {
        has: ['Index Scan on fact_sales using fact_sales_date_idx', 'Index Only Scan', 'Bitmap Heap Scan'],
      }),
    ).toEqual([true, false, true])
  })

  it('finds joins and subqueries anywhere in the tree', () => {
    expect(met('hash-join', { has: ['Hash Join', 'Seq Scan on products'], lacks: ['SubPlan', 'Nested Loop'] })).toEqual(
      [true, true, true, true],
    )
    expect(met('subplan', { has: ['Hash Join'], lacks: ['SubPlan', 'InitPlan'] })).toEqual([false, false, true])
    expect(met('initplan', { lacks: ['SubPlan', 'InitPlan'] })).toEqual([true, false])
  })

  it('reads any scan of a table with Scan', () => {
    expect(met('bitmap-scan', { lacks: ['Scan on fact_sales', 'Scan on products'] })).toEqual([false, true])
  })

  it('names the nodes that decided a rule', () => {
    expect(checkPlan(planOf('subplan'), { lacks: ['Seq Scan on fact_sales'] }, 1)).toEqual([
      { rule: 'lacks', pattern: 'Seq Scan on fact_sales', met: false, nodes: ['Seq Scan on fact_sales'] },
    ])
  })

  it('holds the cost to a factor of the solution’s', () => {
    const plan = planOf('index-scan') // 8.31
    expect(checkPlan(plan, { cost: 2 }, 4.2)).toEqual([{ rule: 'cost', factor: 2, limit: 8.4, cost: 8.31, met: true }])
    expect(checkPlan(plan, { cost: 2 }, 4.1)[0].met).toBe(false)
    expect(checkPlan(planOf('seq-scan'), { cost: 1.5 }, plan.cost)[0].met).toBe(false)
  })
})

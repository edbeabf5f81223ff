import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkPlan, readPlan } from '#app/modules/labs/plan.ts'
import { renderComponent } from '#tests/render.tsx'
import { PlanTree } from './plan-tree.tsx'

const fixture = (name: string) =>
  readPlan(
    JSON.parse(
      readFileSync(path.join(import.meta.dirname, '../../modules/labs/plan.fixtures', `${name}.json`), 'utf8'),
    ),
  )

describe('PlanTree', () => {
  it('draws the plan as nested lists under a heading, each rule marked met or not met', async () => {
    const tree = fixture('hash-join')
    const rules = checkPlan(
      tree,
      { has: ['Hash Join', 'Index Scan on fact_sales', 'Seq Scan'], lacks: ['SubPlan'] },
      tree.cost,
    )
    const page = await renderComponent(<PlanTree id="x" plan={{ tree, rules }} />)

    const expected = page.getByRole('list', { name: 'What the exercise expects of the plan' })
    const items = Array.from(expected.querySelectorAll(':scope > li')).map((li) => li.textContent)
    expect(items).toEqual([
      '✓ MetHas Hash Join',
      '✗ Not metHas Index Scan on fact_sales',
      '✓ MetHas Seq Scan — your plan has: Seq Scan on fact_sales; Seq Scan on products',
      '✓ MetHas no SubPlan',
    ])

    expect(page.getByRole('heading', { name: 'Your query’s plan' })).toBeInTheDocument()
    const box = page.getByRole('region', { name: 'Your query’s plan' })
    expect(box).toHaveAttribute('tabindex', '0')
    const root = box.querySelector(':scope > ul > li')!
    expect(root.firstElementChild?.textContent).toMatch(new RegExp(`^${tree.type}`))
    // a step's children are a list inside its item, as deep as the plan goes
    const depth = (li: Element): number =>
      Math.max(1, ...Array.from(li.querySelectorAll(':scope > ul > li')).map((c) => 1 + depth(c)))
    const planDepth = (node: typeof tree): number => 1 + Math.max(0, ...node.children.map(planDepth))
    expect(depth(root)).toBe(planDepth(tree))
    expect(box).toHaveTextContent(/Seq Scan on fact_sales · rows ≈ [\d,]+ · cost [\d,.]+/)
  })

  it('says what the cost rule held the plan to', async () => {
    const tree = fixture('seq-scan')
    const rules = checkPlan(tree, { cost: 2 }, 10)
    const page = await renderComponent(<PlanTree id="x" plan={{ tree, rules }} />)
    const rule = page.getByRole('list', { name: 'What the exercise expects of the plan' }).querySelector('li')
    expect(rule).toHaveTextContent(
      `✗ Not metEstimated cost at most 2 × the solution’s (20): yours is ${tree.cost.toLocaleString('en')}`,
    )
  })
})

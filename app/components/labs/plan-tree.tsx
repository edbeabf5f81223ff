import { ScrollBox } from '#app/components/ui/scroll-box.tsx'
import type { PlanNode, RuleOutcome } from '#app/modules/labs/plan.ts'

// A plan exercise's grading: the plan of the learner's final query as nested lists (each step with its table,
// index, estimated rows and cost; the steps it reads from under it), next to the exercise's rules, each met or
// not. Drawn on the server as plain lists, so it reads without JavaScript and a screen reader walks its levels;
// a deep plan scrolls within its own box, never the page.

type Step = PlanNode
type Rule = RuleOutcome

const number = (n: number) => n.toLocaleString('en', { maximumFractionDigits: 2 })

function ruleText(rule: Rule): string {
  if (rule.rule === 'cost')
    return `Estimated cost at most ${number(rule.factor)} × the solution’s (${number(rule.limit)}): yours is ${number(rule.cost)}`
  return rule.rule === 'has' ? `Has ${rule.pattern}` : `Has no ${rule.pattern}`
}

function RuleItem({ rule }: { rule: Rule }) {
  // the steps that matched, when they say more than the pattern: "Index Scan on sale using sale_day_idx"
  const found = rule.rule === 'cost' ? [] : rule.nodes.filter((n) => n.toLowerCase() !== rule.pattern.toLowerCase())
  return (
    <li className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
      <span
        className={`shrink-0 rounded-full px-2 py-0.5 text-xs font-medium ${
          rule.met ? 'bg-emerald-100 text-emerald-800' : 'bg-red-100 text-red-900'
        }`}
      >
        {rule.met ? '✓ Met' : '✗ Not met'}
      </span>
      <span className="min-w-0 [overflow-wrap:anywhere]">
        {ruleText(rule)}
        {found.length > 0 ? (
          <span className="text-slate-600"> — your plan has: {[...new Set(found)].join('; ')}</span>
        ) : null}
      </span>
    </li>
  )
}

function StepItem({ step }: { step: Step }) {
  return (
    <li>
      <div className="whitespace-nowrap py-0.5">
        {step.subplan ? (
          <span className="mr-1 rounded bg-amber-100 px-1 text-xs font-medium text-amber-900">{step.subplan}</span>
        ) : null}
        <strong className="font-semibold text-slate-900">{step.type}</strong>
        {step.relation ? (
          <>
            {' on '}
            <code className="text-slate-900">{step.relation}</code>
          </>
        ) : null}
        {step.indexes.length > 0 ? (
          <>
            {' using '}
            <code className="text-slate-900">{step.indexes.join(', ')}</code>
          </>
        ) : null}
        <span className="text-xs text-slate-600">
          {' '}
          · rows ≈ {number(step.rows)} · cost {number(step.cost)}
        </span>
      </div>
      {step.children.length > 0 ? (
        <ul className="ml-2 border-l border-slate-300 pl-3">
          {step.children.map((child, i) => (
            <StepItem key={i} step={child} />
          ))}
        </ul>
      ) : null}
    </li>
  )
}

/**
 * The learner's plan and the exercise's rules, under headings of `level` (the lab page's grading is under a
 * fourth-level heading, so its default is the fifth).
 */
export function PlanTree({
  id,
  plan,
  level = 'h5',
}: {
  id: string
  plan: { tree: PlanNode; rules: RuleOutcome[] }
  level?: 'h3' | 'h5'
}) {
  const Heading = level
  return (
    <div className="space-y-3 text-sm" data-testid="plan">
      <div>
        <Heading id={`${id}-rules`} className="font-medium text-slate-800">
          What the exercise expects of the plan
        </Heading>
        <ul aria-labelledby={`${id}-rules`} className="mt-1 space-y-1">
          {plan.rules.map((rule, i) => (
            <RuleItem key={i} rule={rule} />
          ))}
        </ul>
      </div>
      <div>
        <Heading id={`${id}-plan`} className="font-medium text-slate-800">
          {level === 'h5' ? 'Your query’s plan' : 'The query’s plan'}
        </Heading>
        <p className="text-xs text-slate-600">
          Each step reads from the steps under it; rows and cost are the planner’s estimates.
        </p>
        <ScrollBox
          labelledBy={`${id}-plan`}
          className="mt-1 max-h-96 overflow-y-auto rounded-md border border-slate-200 p-2"
        >
          <ul className="font-mono text-xs">
            <StepItem step={plan.tree} />
          </ul>
        </ScrollBox>
      </div>
    </div>
  )
}

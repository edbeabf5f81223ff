// Query plans for `check: plan` exercises: the plan PostgreSQL's EXPLAIN (FORMAT JSON) gives, read into
// a small tree (what the learner is shown and the attempt keeps), and the exercise's rules checked
// against it. Pure: running EXPLAIN is the sandbox's.

/** One step of a plan, as the learner sees it: what it does, to which table and by which index. */
export type PlanNode = {
  type: string
  relation?: string
  /** The index the step reads; for a Bitmap Heap Scan, those of the Bitmap Index Scans below it. */
  indexes: string[]
  /** SubPlan or InitPlan when the step runs as a subquery of its parent. */
  subplan?: 'SubPlan' | 'InitPlan'
  rows: number
  cost: number
  children: PlanNode[]
}

/** A node pattern as written in lab.yaml: `<Node Type> [on <relation>] [using <index>]`. */
type PlanPattern = { type: string; relation?: string; index?: string }

/** The node types PostgreSQL's EXPLAIN names, so a misspelt pattern is refused rather than never matching. */
const NODE_TYPES = [
  'Result',
  'ProjectSet',
  'ModifyTable',
  'Append',
  'Merge Append',
  'Recursive Union',
  'BitmapAnd',
  'BitmapOr',
  'Nested Loop',
  'Merge Join',
  'Hash Join',
  'Seq Scan',
  'Sample Scan',
  'Gather',
  'Gather Merge',
  'Index Scan',
  'Index Only Scan',
  'Bitmap Index Scan',
  'Bitmap Heap Scan',
  'Tid Scan',
  'Tid Range Scan',
  'Subquery Scan',
  'Function Scan',
  'Table Function Scan',
  'Values Scan',
  'CTE Scan',
  'Named Tuplestore Scan',
  'WorkTable Scan',
  'Foreign Scan',
  'Custom Scan',
  'Materialize',
  'Memoize',
  'Sort',
  'Incremental Sort',
  'Group',
  'Aggregate',
  'WindowAgg',
  'Unique',
  'SetOp',
  'LockRows',
  'Limit',
  'Hash',
] as const

/**
 * Words a pattern may start with beyond the node types: any scan of a table; a subquery run once per
 * row (SubPlan) or once for the whole query (InitPlan).
 */
const ANY_SCAN = 'scan'
const SUBPLANS = ['SubPlan', 'InitPlan'] as const

/**
 * `Index Scan` stands for any read through an index: an Index Scan, an Index Only Scan, or a Bitmap
 * Heap Scan (whose index is that of its Bitmap Index Scans). Which of them the planner takes depends on
 * how many rows match, which an exercise rarely means to teach; the exact type names match only themselves.
 */
const INDEX_READS = ['index scan', 'index only scan', 'bitmap heap scan']

const PATTERN = /^(.+?)(?:\s+on\s+(\S+?))?(?:\s+using\s+(\S+?))?$/i
const KNOWN_TYPES = new Map<string, string>(
  [...NODE_TYPES, ...SUBPLANS, 'Scan'].map((type) => [type.toLowerCase(), type]),
)

/** A pattern read, or why it cannot be (a message for the author). */
export function parsePattern(text: string): PlanPattern | string {
  const match = PATTERN.exec(text.trim().replace(/\s+/g, ' '))
  const type = match && KNOWN_TYPES.get(match[1].toLowerCase())
  if (!match || !type)
    return `Must be a node type such as Seq Scan, Index Scan or Hash Join, then optionally on <table> and using <index>`
  const [, , relation, index] = match
  if (SUBPLANS.some((s) => s === type) && (relation || index))
    return `${type} matches a subquery, so it takes no on or using`
  return {
    type: type.toLowerCase(),
    ...(relation ? { relation: relation.toLowerCase() } : {}),
    ...(index ? { index: index.toLowerCase() } : {}),
  }
}

type RawNode = Record<string, unknown> & { Plans?: unknown }

/** The tree of a plan as EXPLAIN (FORMAT JSON) gives it: `[{ "Plan": { ... } }]`. */
export function readPlan(explain: unknown): PlanNode {
  const top: unknown = Array.isArray(explain) ? explain[0] : explain
  const plan = top && typeof top === 'object' && 'Plan' in top ? top.Plan : undefined
  if (!isNode(plan)) throw new Error('EXPLAIN gave no plan')
  return readNode(plan)
}

const isNode = (value: unknown): value is RawNode =>
  typeof value === 'object' && value !== null && typeof (value as RawNode)['Node Type'] === 'string'

function readNode(raw: RawNode): PlanNode {
  const children = (Array.isArray(raw.Plans) ? raw.Plans : []).filter(isNode).map(readNode)
  const type = raw['Node Type'] as string
  const relation = typeof raw['Relation Name'] === 'string' ? raw['Relation Name'] : undefined
  const parent = raw['Parent Relationship']
  const index = typeof raw['Index Name'] === 'string' ? [raw['Index Name']] : []
  return {
    type,
    ...(relation ? { relation } : {}),
    indexes: type === 'Bitmap Heap Scan' ? bitmapIndexes(children) : index,
    ...(parent === 'SubPlan' || parent === 'InitPlan' ? { subplan: parent } : {}),
    rows: Number(raw['Plan Rows'] ?? 0),
    cost: Number(raw['Total Cost'] ?? 0),
    children,
  }
}

/** The indexes under a Bitmap Heap Scan, through any BitmapAnd or BitmapOr. */
function bitmapIndexes(children: PlanNode[]): string[] {
  return children.flatMap((c) => (c.type === 'Bitmap Index Scan' ? c.indexes : bitmapIndexes(c.children)))
}

/** Every node of the plan, the root first. */
function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...node.children.flatMap(nodesOf)]
}

function matches(pattern: PlanPattern, node: PlanNode) {
  if (pattern.type === 'subplan' || pattern.type === 'initplan') return node.subplan?.toLowerCase() === pattern.type
  const type = node.type.toLowerCase()
  const typeMatches =
    pattern.type === ANY_SCAN
      ? node.relation !== undefined
      : pattern.type === 'index scan'
        ? INDEX_READS.includes(type)
        : pattern.type === type
  return (
    typeMatches &&
    (pattern.relation === undefined || node.relation?.toLowerCase() === pattern.relation) &&
    (pattern.index === undefined || node.indexes.some((i) => i.toLowerCase() === pattern.index))
  )
}

/** A node in the words of a pattern: "Bitmap Heap Scan on fact_sales using fact_sales_date_idx". */
export function describeNode(node: PlanNode): string {
  const on = node.relation ? ` on ${node.relation}` : ''
  const using = node.indexes.length > 0 ? ` using ${node.indexes.join(', ')}` : ''
  return `${node.subplan ? `${node.subplan}: ` : ''}${node.type}${on}${using}`
}

/** The rules of a plan exercise, as lab.yaml holds them. */
export type PlanRules = { has?: string[]; lacks?: string[]; cost?: number }

/** One rule and whether the plan meets it, with the nodes that decided it (as describeNode words them). */
export type RuleOutcome =
  | { rule: 'has' | 'lacks'; pattern: string; met: boolean; nodes: string[] }
  | { rule: 'cost'; factor: number; limit: number; cost: number; met: boolean }

/**
 * Each rule checked against a plan: each `has` pattern must match some node, no `lacks` pattern any,
 * and the plan's total estimated cost must be at most `cost` times the solution's. Patterns were
 * checked when the lab was read; one that does not parse matches nothing.
 */
export function checkPlan(plan: PlanNode, rules: PlanRules, solutionCost: number): RuleOutcome[] {
  const nodes = nodesOf(plan)
  const found = (text: string) => {
    const pattern = parsePattern(text)
    return typeof pattern === 'string' ? [] : nodes.filter((n) => matches(pattern, n)).map(describeNode)
  }
  const outcomes: RuleOutcome[] = [
    ...(rules.has ?? []).map((pattern) => {
      const hits = found(pattern)
      return { rule: 'has' as const, pattern, met: hits.length > 0, nodes: hits }
    }),
    ...(rules.lacks ?? []).map((pattern) => {
      const hits = found(pattern)
      return { rule: 'lacks' as const, pattern, met: hits.length === 0, nodes: hits }
    }),
  ]
  if (rules.cost !== undefined) {
    const limit = rules.cost * solutionCost
    outcomes.push({ rule: 'cost', factor: rules.cost, limit, cost: plan.cost, met: plan.cost <= limit })
  }
  return outcomes
}

import { z } from 'zod'
import { parsePattern } from './plan.ts'
import { parseSessionScript } from './steps.ts'

// A SQL lab as its author writes it in lab.yaml (docs/labs.md). Parsing applies the defaults, so the
// rest of the portal reads a definition without asking what was left out. The messages follow the
// path of what they are about, as format.ts prints them: "exercises[2].solution: Required".

const STATEMENT_KINDS = ['select', 'dml', 'ddl'] as const
const CHECK_KINDS = ['result', 'state', 'plan', 'sessions'] as const
const SESSIONS = ['A', 'B'] as const
const ISOLATION_LEVELS = ['read committed', 'repeatable read', 'serializable'] as const
const ORDER_RULES = ['auto', 'strict', 'any'] as const
const COLUMN_RULES = ['names', 'positions'] as const

/** What a learner's statement may be: a query, a change to rows (INSERT, UPDATE, DELETE …), or to tables. */
export type StatementKind = (typeof STATEMENT_KINDS)[number]
/**
 * Graded by the rows the learner's query returns, by the state the verify queries read afterwards, by the rows
 * of the final query and its plan, or by what the log of two sessions side by side shows (its steps).
 */
export type CheckKind = (typeof CHECK_KINDS)[number]
/** One of the two sessions of a two-session exercise. */
export type SessionName = (typeof SESSIONS)[number]
/** A transaction isolation level, in the words PostgreSQL's SHOW transaction_isolation answers with. */
export type IsolationLevel = (typeof ISOLATION_LEVELS)[number]
/** Whether the order of the rows counts; `auto` leaves it to the solution's outermost ORDER BY. */
export type OrderRule = (typeof ORDER_RULES)[number]
/** Whether result columns are matched by their names or by where they stand. */
export type ColumnRule = (typeof COLUMN_RULES)[number]

/**
 * What an author may write. A lab is read into memory whole and shown on one page, so each text has
 * a cap well above what a lesson needs.
 */
const LAB_LIMITS = {
  title: 200,
  markdown: 20_000,
  sql: 100_000,
  exercises: 100,
  hints: 20,
  verify: 20,
  steps: 20,
  minutes: 600,
  points: 100,
  patterns: 20,
  pattern: 200,
  costFactor: 1000,
} as const

/** The values a lab takes for the keys its author leaves out; stringifyLab leaves these out again. */
export const LAB_DEFAULTS = { description: '', minutes: 15 } as const
export const EXERCISE_DEFAULTS = {
  check: 'result',
  order: 'auto',
  columns: 'names',
  allow: ['select'],
  points: 1,
  hints: [],
} as const

/** An exercise is known by its key for as long as the lab is in use, so keys are kept plain. */
const EXERCISE_KEY = /^[a-z0-9-]{1,64}$/
/** The dataset is a file beside lab.yaml: a plain name (no folders, so no ..), not hidden. */
const DATASET_NAME = /^[^/\\.\x00-\x1f][^/\\\x00-\x1f]{0,250}\.sql$/i

const text = (max: number) =>
  z
    .string({ required_error: 'Required', invalid_type_error: 'Must be text' })
    .max(max, `Must be at most ${max.toLocaleString('en')} characters`)

/** Text that must say something: a title, a prompt, a query. */
const filled = (max: number) => text(max).refine((v) => v.trim() !== '', 'Must not be empty')

/** A title is shown on one line, in lists and above the exercise. */
const title = filled(LAB_LIMITS.title).refine((v) => !/[\r\n]/.test(v), 'Must be one line')

const wholeNumber = (max: number) =>
  z
    .number({ required_error: 'Required', invalid_type_error: 'Must be a whole number' })
    .int('Must be a whole number')
    .min(1, 'Must be 1 or more')
    .max(max, `Must be at most ${max}`)

const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { errorMap: () => ({ message: `Must be one of ${values.join(', ')}` }) })

const list = <T extends z.ZodTypeAny>(item: T) => z.array(item, { invalid_type_error: 'Must be a list' })

const allow = list(oneOf(STATEMENT_KINDS))
  .min(1, `Must list at least one of ${STATEMENT_KINDS.join(', ')}`)
  .superRefine((kinds, ctx) => {
    const twice = kinds.find((kind, i) => kinds.indexOf(kind) !== i)
    if (twice) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `Lists ${twice} twice` })
  })

const patterns = list(
  filled(LAB_LIMITS.pattern).superRefine((text, ctx) => {
    const pattern = parsePattern(text)
    if (typeof pattern === 'string') ctx.addIssue({ code: z.ZodIssueCode.custom, message: pattern })
  }),
)
  .min(1, 'Must list at least one pattern, or be left out')
  .max(LAB_LIMITS.patterns, `Must list at most ${LAB_LIMITS.patterns} patterns`)

/** What a plan exercise asks of the final query's plan (matching is plan.ts's). */
const PlanRulesFields = z
  .object(
    {
      has: patterns.optional(),
      lacks: patterns.optional(),
      cost: z
        .number({ invalid_type_error: 'Must be a number' })
        .positive('Must be more than 0')
        .max(LAB_LIMITS.costFactor, `Must be at most ${LAB_LIMITS.costFactor}`)
        .optional(),
    },
    { invalid_type_error: 'Must hold rules: has:, lacks: or cost:' },
  )
  .strict()

const PlanRulesSchema = PlanRulesFields.refine(
  (rules) => rules.has || rules.lacks || rules.cost !== undefined,
  'Must hold at least one of has:, lacks:, cost:',
)

/** An SQLSTATE: five digits or capital letters, such as 40P01 (deadlock_detected). */
const SQLSTATE = /^[0-9A-Z]{5}$/

const session = oneOf(SESSIONS)
const inSession = z
  .object({ session, isolation: oneOf(ISOLATION_LEVELS) }, { invalid_type_error: 'Must have session: and isolation:' })
  .strict()

/** The step kinds, in the order docs/labs.md lists them; a step is one of them. */
const STEP_KINDS = ['waits', 'error', 'changed-read', 'same-read', 'committed', 'rolled-back'] as const

const StepSchema = z
  .object(
    {
      waits: session.optional(),
      error: z
        .object(
          {
            session,
            code: z
              .string({ required_error: 'Required', invalid_type_error: 'Must be text' })
              .regex(SQLSTATE, 'Must be an SQLSTATE of five digits or capital letters, such as 40P01'),
          },
          { invalid_type_error: 'Must have session: and code:' },
        )
        .strict()
        .optional(),
      'changed-read': inSession.optional(),
      'same-read': inSession.optional(),
      committed: session.optional(),
      'rolled-back': session.optional(),
    },
    { invalid_type_error: `Must be a step: one of ${STEP_KINDS.join(', ')}` },
  )
  .strict()
  .superRefine((step, ctx) => {
    const kinds = STEP_KINDS.filter((kind) => step[kind] !== undefined)
    if (kinds.length !== 1)
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message:
          kinds.length === 0
            ? `Must be one of ${STEP_KINDS.join(', ')}`
            : `Must be one step, not ${kinds.join(' and ')}`,
      })
  })

/** What the log of a two-session exercise must show, in order (app/modules/labs/steps.ts). */
export type Step = z.output<typeof StepSchema>

const ExerciseFields = z
  .object(
    {
      key: z
        .string({ required_error: 'Required', invalid_type_error: 'Must be text' })
        .regex(EXERCISE_KEY, 'Must be 1 to 64 lowercase letters, digits or hyphens, such as join-orders'),
      title,
      prompt: filled(LAB_LIMITS.markdown),
      solution: filled(LAB_LIMITS.sql),
      check: oneOf(CHECK_KINDS).default(EXERCISE_DEFAULTS.check),
      verify: list(filled(LAB_LIMITS.sql))
        .max(LAB_LIMITS.verify, `Must list at most ${LAB_LIMITS.verify} queries`)
        .optional(),
      plan: PlanRulesSchema.optional(),
      steps: list(StepSchema)
        .min(1, 'Must list at least one step')
        .max(LAB_LIMITS.steps, `Must list at most ${LAB_LIMITS.steps} steps`)
        .optional(),
      order: oneOf(ORDER_RULES).default(EXERCISE_DEFAULTS.order),
      columns: oneOf(COLUMN_RULES).default(EXERCISE_DEFAULTS.columns),
      // a fresh array for each exercise, so changing one exercise's list never changes another's
      allow: allow.default(() => [...EXERCISE_DEFAULTS.allow]),
      points: wholeNumber(LAB_LIMITS.points).default(EXERCISE_DEFAULTS.points),
      hints: list(filled(LAB_LIMITS.markdown))
        .max(LAB_LIMITS.hints, `Must list at most ${LAB_LIMITS.hints} hints`)
        .default(() => []),
    },
    { invalid_type_error: 'Must be an exercise: keys such as key:, title:, prompt: and solution:' },
  )
  .strict()

/** Keys that only a result check reads; written on a two-session exercise they would be ignored, so are refused. */
const RESULT_ONLY_KEYS = ['order', 'columns'] as const

/**
 * The keys as written, before defaults fill them in: `order` and `columns` have defaults, so only the author's
 * text tells whether they were written on a two-session exercise.
 */
const writtenKeys = (raw: unknown, ctx: z.RefinementCtx) => {
  if (typeof raw !== 'object' || raw === null || (raw as { check?: unknown }).check !== 'sessions') return raw
  for (const key of RESULT_ONLY_KEYS)
    if (key in raw)
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [key], message: 'Not allowed when check is sessions' })
  return raw
}

const ExerciseChecks = ExerciseFields.superRefine((exercise, ctx) => {
  // verify queries are what a state check grades by; on a result check they would be ignored, which
  // an author would not expect, so they are refused rather than kept
  if (exercise.check === 'state' && !exercise.verify)
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['verify'], message: 'Required when check is state' })
  else if (exercise.check === 'state' && exercise.verify?.length === 0)
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['verify'], message: 'Must list at least one query' })
  else if (exercise.check !== 'state' && exercise.verify)
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['verify'], message: 'Only allowed when check is state' })
  // the rules are what a plan check grades by, and mean nothing to the other checks
  if (exercise.check === 'plan' && !exercise.plan)
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['plan'], message: 'Required when check is plan' })
  else if (exercise.check !== 'plan' && exercise.plan)
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['plan'], message: 'Only allowed when check is plan' })
  // steps grade a two-session log; the solution of such an exercise is a script for both sessions
  if (exercise.check === 'sessions') {
    const script = parseSessionScript(exercise.solution)
    if (!script.ok) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['solution'], message: script.message })
  }
  if (exercise.check === 'sessions' && !exercise.steps)
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['steps'], message: 'Required when check is sessions' })
  else if (exercise.check !== 'sessions' && exercise.steps)
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['steps'], message: 'Only allowed when check is sessions' })
})

const ExerciseSchema = z.preprocess(writtenKeys, ExerciseChecks)

const LabFields = z
  .object({
    title,
    description: text(LAB_LIMITS.markdown).default(LAB_DEFAULTS.description),
    minutes: wholeNumber(LAB_LIMITS.minutes).default(LAB_DEFAULTS.minutes),
    dataset: z
      .string({ required_error: 'Required', invalid_type_error: 'Must be text' })
      .regex(DATASET_NAME, 'Must be the name of a .sql file in the lab folder, such as dataset.sql (no folders or ..)'),
    exercises: list(ExerciseSchema)
      .min(1, 'Must list at least one exercise')
      .max(LAB_LIMITS.exercises, `Must list at most ${LAB_LIMITS.exercises} exercises`),
  })
  .strict()

export const LabSchema = LabFields.superRefine((lab, ctx) => {
  const first = new Map<string, number>()
  lab.exercises.forEach(({ key }, i) => {
    const earlier = first.get(key)
    if (earlier === undefined) first.set(key, i)
    else
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['exercises', i, 'key'],
        message: `Must be unique: exercises[${earlier}] has the key ${key} too`,
      })
  })
})

/** The keys in the order docs/labs.md lists them, the order stringifyLab writes them in. */
export const LAB_KEYS = LabFields.keyof().options
export const EXERCISE_KEYS = ExerciseFields.keyof().options
export const PLAN_KEYS = PlanRulesFields.keyof().options

export type LabDefinition = z.output<typeof LabSchema>
export type ExerciseDefinition = LabDefinition['exercises'][number]

/** A learner's attempt, as POST /api/labs/{labId}/attempts and the lab page send it. */
export const AttemptSchema = z.object({
  exercise: z
    .string({ required_error: 'exercise is required.', invalid_type_error: 'exercise must be text.' })
    .regex(EXERCISE_KEY, 'exercise must be the key of one of the lab’s exercises.'),
  sql: z
    .string({ required_error: 'sql is required.', invalid_type_error: 'sql must be text.' })
    .refine((v) => v.trim() !== '', 'Write an SQL statement first.'),
})

import { readFileSync } from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { parseLabYaml, stringifyLab } from './format.ts'
import {
  EXERCISE_KEYS,
  LAB_KEYS,
  type CheckKind,
  type ColumnRule,
  type ExerciseDefinition,
  type LabDefinition,
  type OrderRule,
  type StatementKind,
} from './schema.ts'

/** The smallest valid lab, as data; cases change one thing in it and write it as YAML. */
const minimal = () => ({
  title: 'SQL fundamentals',
  dataset: 'dataset.sql',
  exercises: [{ key: 'all-customers', title: 'All customers', prompt: 'List every customer.', solution: 'SELECT 1' }],
})
type Lab = Record<string, unknown> & { exercises: Record<string, unknown>[] }

const errorsOf = (text: string) => {
  const parsed = parseLabYaml(text)
  if (parsed.ok) throw new Error('the lab was expected to be refused')
  return parsed.errors
}
const definitionOf = (text: string) => {
  const parsed = parseLabYaml(text)
  if (!parsed.ok) throw new Error(`the lab was refused: ${parsed.errors.join('; ')}`)
  return parsed.definition
}
const errorsAfter = (change: (lab: Lab) => void) => {
  const lab: Lab = minimal()
  change(lab)
  return errorsOf(stringify(lab))
}
const exercise = (lab: Lab) => lab.exercises[0]
const long = (length: number) => 'x'.repeat(length)

describe('parseLabYaml', () => {
  it('fills in every default', () => {
    expect(definitionOf(stringify(minimal()))).toEqual({
      title: 'SQL fundamentals',
      description: '',
      minutes: 15,
      dataset: 'dataset.sql',
      exercises: [
        {
          key: 'all-customers',
          title: 'All customers',
          prompt: 'List every customer.',
          solution: 'SELECT 1',
          check: 'result',
          order: 'auto',
          columns: 'names',
          allow: ['select'],
          points: 1,
          hints: [],
        },
      ],
    } satisfies LabDefinition)
  })

  it('keeps what the author wrote', () => {
    const check: CheckKind = 'state'
    const order: OrderRule = 'any'
    const columns: ColumnRule = 'positions'
    const allow: StatementKind[] = ['dml', 'select']
    const written: ExerciseDefinition = {
      key: 'raise-prices',
      title: 'Raise prices',
      prompt: 'Raise every price by 10 %.\n\nRound to cents.\n',
      solution: 'UPDATE products\nSET price = round(price * 1.1, 2);\n',
      check,
      verify: ['SELECT id, price FROM products ORDER BY id'],
      order,
      columns,
      allow,
      points: 3,
      hints: ['UPDATE changes rows in place.', 'round(x, 2) keeps two decimals.'],
    }
    const lab = { title: 'Prices', description: 'A shop.\n', minutes: 40, dataset: 'shop.sql', exercises: [written] }
    expect(definitionOf(stringify(lab))).toEqual(lab)
  })

  it('reads an empty value as a key left out', () => {
    const text =
      'title: T\ndescription:\ndataset: d.sql\nexercises:\n  - key: a\n    title:\n    prompt: p\n    solution: s\n    hints:\n'
    expect(errorsOf(text)).toEqual(['exercises[0].title: Required'])
    expect(definitionOf(text.replace('title:\n', 'title: A\n')).exercises[0].hints).toEqual([])
  })

  it('gives each exercise its own default list', () => {
    const lab = minimal()
    lab.exercises.push({ ...lab.exercises[0], key: 'again' })
    const [one, two] = definitionOf(stringify(lab)).exercises
    expect(one.allow).not.toBe(two.allow)
    expect(one.hints).not.toBe(two.hints)
  })

  it.each([
    ['a key twice', 'title: a\ntitle: b\n', ['line 2, column 1: Map keys must be unique']],
    [
      'a tab as indentation',
      'title: a\nexercises:\n\t- key: a\n',
      ['line 3, column 1: Tabs are not allowed as indentation'],
    ],
    ['a quote never closed', 'title: "SQL\ndataset: d.sql\n', ['line 3, column 1: Missing closing "quote']],
    [
      'two documents',
      'title: a\n---\ntitle: b\n',
      [expect.stringMatching(/^line 2, column 1: Source contains multiple documents/)],
    ],
    [
      'a list never closed',
      'title: a\nexercises: [a, b\n',
      [expect.stringMatching(/^line 3, column 1: Flow sequence/)],
    ],
  ])('names the line and column of YAML that does not parse: %s', (_, text, errors) => {
    expect(errorsOf(text)).toEqual(errors)
  })

  it.each([
    ['an empty file', '', 'The file is empty: a lab needs at least title:, dataset: and exercises:'],
    ['only a comment', '# a lab\n', 'The file is empty: a lab needs at least title:, dataset: and exercises:'],
    ['a list', '- title: a\n', 'The file must hold keys such as title:, dataset: and exercises:, one per line'],
    [
      'a line of text',
      'SQL fundamentals\n',
      'The file must hold keys such as title:, dataset: and exercises:, one per line',
    ],
  ])('refuses %s', (_, text, error) => {
    expect(errorsOf(text)).toEqual([error])
  })

  it('refuses aliases that would expand beyond reason', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]']
    for (let i = 1; i < 8; i++)
      levels.push(`${'abcdefgh'[i]}: &${'abcdefgh'[i]} [${`*${'abcdefgh'[i - 1]}, `.repeat(10)}x]`)
    expect(errorsOf(levels.join('\n'))).toEqual([expect.stringMatching(/alias/i)])
  })

  it.each<[string, (lab: Lab) => void, string[]]>([
    // the lab
    ['title left out', (l) => delete l.title, ['title: Required']],
    ['title blank', (l) => (l.title = '  '), ['title: Must not be empty']],
    ['title on two lines', (l) => (l.title = 'SQL\nbasics'), ['title: Must be one line']],
    ['title too long', (l) => (l.title = long(201)), ['title: Must be at most 200 characters']],
    ['title a number', (l) => (l.title = 2024), ['title: Must be text']],
    ['description too long', (l) => (l.description = long(20_001)), ['description: Must be at most 20,000 characters']],
    ['minutes zero', (l) => (l.minutes = 0), ['minutes: Must be 1 or more']],
    ['minutes a fraction', (l) => (l.minutes = 7.5), ['minutes: Must be a whole number']],
    ['minutes as text', (l) => (l.minutes = '15'), ['minutes: Must be a whole number']],
    ['minutes too many', (l) => (l.minutes = 601), ['minutes: Must be at most 600']],
    ['dataset left out', (l) => delete l.dataset, ['dataset: Required']],
    ...[
      'dataset.txt',
      '../dataset.sql',
      '/labs/dataset.sql',
      'data/dataset.sql',
      'data\\dataset.sql',
      '.dataset.sql',
    ].map((name): [string, (lab: Lab) => void, string[]] => [
      `dataset ${name}`,
      (l) => (l.dataset = name),
      ['dataset: Must be the name of a .sql file in the lab folder, such as dataset.sql (no folders or ..)'],
    ]),
    ['exercises left out', (l) => delete (l as Partial<Lab>).exercises, ['exercises: Required']],
    ['no exercises', (l) => (l.exercises = []), ['exercises: Must list at least one exercise']],
    ['exercises not a list', (l) => Object.assign(l, { exercises: 'all' }), ['exercises: Must be a list']],
    [
      'an exercise that is text',
      (l) => Object.assign(l, { exercises: ['all customers'] }),
      ['exercises[0]: Must be an exercise: keys such as key:, title:, prompt: and solution:'],
    ],
    [
      'too many exercises',
      (l) => (l.exercises = Array.from({ length: 101 }, (_, i) => ({ ...exercise(l), key: `e${i}` }))),
      ['exercises: Must list at most 100 exercises'],
    ],
    // an exercise's own keys
    ['key left out', (l) => delete exercise(l).key, ['exercises[0].key: Required']],
    ...['All-Customers', 'all_customers', 'all customers', '', long(65)].map(
      (key): [string, (lab: Lab) => void, string[]] => [
        `key ${JSON.stringify(key.slice(0, 20))}`,
        (l) => (exercise(l).key = key),
        ['exercises[0].key: Must be 1 to 64 lowercase letters, digits or hyphens, such as join-orders'],
      ],
    ),
    [
      'a key used twice',
      (l) => l.exercises.push({ ...exercise(l) }, { ...exercise(l) }),
      [
        'exercises[1].key: Must be unique: exercises[0] has the key all-customers too',
        'exercises[2].key: Must be unique: exercises[0] has the key all-customers too',
      ],
    ],
    ['title left out', (l) => delete exercise(l).title, ['exercises[0].title: Required']],
    ['prompt left out', (l) => delete exercise(l).prompt, ['exercises[0].prompt: Required']],
    [
      'prompt too long',
      (l) => (exercise(l).prompt = long(20_001)),
      ['exercises[0].prompt: Must be at most 20,000 characters'],
    ],
    ['solution left out', (l) => delete exercise(l).solution, ['exercises[0].solution: Required']],
    ['solution blank', (l) => (exercise(l).solution = '\n'), ['exercises[0].solution: Must not be empty']],
    [
      'solution too long',
      (l) => (exercise(l).solution = long(100_001)),
      ['exercises[0].solution: Must be at most 100,000 characters'],
    ],
    [
      'check unknown',
      (l) => (exercise(l).check = 'rows'),
      ['exercises[0].check: Must be one of result, state, plan, sessions'],
    ],
    // verify belongs to a state check, and a state check needs it
    [
      'verify on a result check',
      (l) => (exercise(l).verify = ['SELECT 1']),
      ['exercises[0].verify: Only allowed when check is state'],
    ],
    [
      'verify empty on a result check',
      (l) => (exercise(l).verify = []),
      ['exercises[0].verify: Only allowed when check is state'],
    ],
    // steps belong to a sessions check, and a sessions check needs them
    [
      'steps on a result check',
      (l) => (exercise(l).steps = [{ waits: 'B' }]),
      ['exercises[0].steps: Only allowed when check is sessions'],
    ],
    [
      'a sessions check without steps',
      (l) => Object.assign(exercise(l), { check: 'sessions', solution: 'A: SELECT 1;' }),
      ['exercises[0].steps: Required when check is sessions'],
    ],
    [
      'a sessions check with no step',
      (l) => Object.assign(exercise(l), { check: 'sessions', solution: 'A: SELECT 1;', steps: [] }),
      ['exercises[0].steps: Must list at least one step'],
    ],
    [
      'verify on a sessions check',
      (l) =>
        Object.assign(exercise(l), {
          check: 'sessions',
          solution: 'A: SELECT 1;',
          steps: [{ waits: 'B' }],
          verify: ['SELECT 1'],
        }),
      ['exercises[0].verify: Only allowed when check is state'],
    ],
    // order and columns are read by a result check only: written on a sessions check they are refused
    [
      'order and columns on a sessions check',
      (l) =>
        Object.assign(exercise(l), {
          check: 'sessions',
          solution: 'A: SELECT 1;',
          steps: [{ waits: 'B' }],
          order: 'auto',
          columns: 'positions',
        }),
      [
        'exercises[0].order: Not allowed when check is sessions',
        'exercises[0].columns: Not allowed when check is sessions',
      ],
    ],
    [
      'a step of an unknown kind',
      (l) =>
        Object.assign(exercise(l), {
          check: 'sessions',
          solution: 'A: SELECT 1;',
          steps: [{ waits: 'B' }, { blocks: 'A' }],
        }),
      [
        'exercises[0].steps[1].blocks: Unknown key',
        'exercises[0].steps[1]: Must be one of waits, error, changed-read, same-read, committed, rolled-back',
      ],
    ],
    [
      'two kinds in one step',
      (l) =>
        Object.assign(exercise(l), {
          check: 'sessions',
          solution: 'A: SELECT 1;',
          steps: [{ waits: 'B', committed: 'A' }],
        }),
      ['exercises[0].steps[0]: Must be one step, not waits and committed'],
    ],
    [
      'a step that is no mapping',
      (l) => Object.assign(exercise(l), { check: 'sessions', solution: 'A: SELECT 1;', steps: ['waits B'] }),
      ['exercises[0].steps[0]: Must be a step: one of waits, error, changed-read, same-read, committed, rolled-back'],
    ],
    [
      'a sessions solution with a line of no session',
      (l) =>
        Object.assign(exercise(l), {
          check: 'sessions',
          steps: [{ waits: 'B' }],
          solution: 'BEGIN;',
        }),
      ['exercises[0].solution: Line 1 must start with A: or B:, the session that runs it'],
    ],
    [
      'a step naming a third session',
      (l) => Object.assign(exercise(l), { check: 'sessions', solution: 'A: SELECT 1;', steps: [{ waits: 'C' }] }),
      ['exercises[0].steps[0].waits: Must be one of A, B'],
    ],
    [
      'an error step without an SQLSTATE',
      (l) =>
        Object.assign(exercise(l), {
          check: 'sessions',
          solution: 'A: SELECT 1;',
          steps: [{ error: { session: 'B', code: 'deadlock' } }],
        }),
      ['exercises[0].steps[0].error.code: Must be an SQLSTATE of five digits or capital letters, such as 40P01'],
    ],
    [
      'a read step at an unknown level',
      (l) =>
        Object.assign(exercise(l), {
          check: 'sessions',
          steps: [{ 'same-read': { session: 'A', isolation: 'snapshot' } }],
        }),
      ['exercises[0].steps[0].same-read.isolation: Must be one of read committed, repeatable read, serializable'],
    ],
    [
      'a state check without verify',
      (l) => (exercise(l).check = 'state'),
      ['exercises[0].verify: Required when check is state'],
    ],
    [
      'a state check with no verify query',
      (l) => Object.assign(exercise(l), { check: 'state', verify: [] }),
      ['exercises[0].verify: Must list at least one query'],
    ],
    [
      'a blank verify query',
      (l) => Object.assign(exercise(l), { check: 'state', verify: ['SELECT 1', ' '] }),
      ['exercises[0].verify[1]: Must not be empty'],
    ],
    [
      'too many verify queries',
      (l) => Object.assign(exercise(l), { check: 'state', verify: Array(21).fill('SELECT 1') }),
      ['exercises[0].verify: Must list at most 20 queries'],
    ],
    [
      'verify not a list',
      (l) => Object.assign(exercise(l), { check: 'state', verify: 'SELECT 1' }),
      ['exercises[0].verify: Must be a list'],
    ],
    // plan rules belong to a plan check, and a plan check needs them
    [
      'a plan check without plan',
      (l) => (exercise(l).check = 'plan'),
      ['exercises[0].plan: Required when check is plan'],
    ],
    [
      'plan on a result check',
      (l) => (exercise(l).plan = { has: ['Hash Join'] }),
      ['exercises[0].plan: Only allowed when check is plan'],
    ],
    [
      'verify on a plan check',
      (l) => Object.assign(exercise(l), { check: 'plan', plan: { has: ['Hash Join'] }, verify: ['SELECT 1'] }),
      ['exercises[0].verify: Only allowed when check is state'],
    ],
    [
      'a plan with no rule',
      (l) => Object.assign(exercise(l), { check: 'plan', plan: {} }),
      ['exercises[0].plan: Must hold at least one of has:, lacks:, cost:'],
    ],
    [
      'a plan that is not rules',
      (l) => Object.assign(exercise(l), { check: 'plan', plan: 'Hash Join' }),
      ['exercises[0].plan: Must hold rules: has:, lacks: or cost:'],
    ],
    [
      'a misspelt node type',
      (l) => Object.assign(exercise(l), { check: 'plan', plan: { has: ['Hash Join', 'Index Scna on orders'] } }),
      [
        'exercises[0].plan.has[1]: Must be a node type such as Seq Scan, Index Scan or Hash Join, then optionally on <table> and using <index>',
      ],
    ],
    [
      'a table on SubPlan',
      (l) => Object.assign(exercise(l), { check: 'plan', plan: { lacks: ['SubPlan on orders'] } }),
      ['exercises[0].plan.lacks[0]: SubPlan matches a subquery, so it takes no on or using'],
    ],
    [
      'an empty pattern list',
      (l) => Object.assign(exercise(l), { check: 'plan', plan: { has: [], cost: 2 } }),
      ['exercises[0].plan.has: Must list at least one pattern, or be left out'],
    ],
    [
      'a pattern that is not text',
      (l) => Object.assign(exercise(l), { check: 'plan', plan: { lacks: [3] } }),
      ['exercises[0].plan.lacks[0]: Must be text'],
    ],
    [
      'a cost of zero',
      (l) => Object.assign(exercise(l), { check: 'plan', plan: { cost: 0 } }),
      ['exercises[0].plan.cost: Must be more than 0'],
    ],
    [
      'a cost that is not a number',
      (l) => Object.assign(exercise(l), { check: 'plan', plan: { cost: 'twice' } }),
      ['exercises[0].plan.cost: Must be a number'],
    ],
    [
      'an unknown plan rule',
      (l) => Object.assign(exercise(l), { check: 'plan', plan: { has: ['Hash Join'], uses: ['orders_pkey'] } }),
      ['exercises[0].plan.uses: Unknown key'],
    ],
    [
      'hash for has',
      (l) => Object.assign(exercise(l), { check: 'plan', plan: { hash: ['Hash Join'] } }),
      [
        'exercises[0].plan.hash: Unknown key (did you mean has?)',
        'exercises[0].plan: Must hold at least one of has:, lacks:, cost:',
      ],
    ],
    ['order unknown', (l) => (exercise(l).order = 'sorted'), ['exercises[0].order: Must be one of auto, strict, any']],
    [
      'columns unknown',
      (l) => (exercise(l).columns = 'name'),
      ['exercises[0].columns: Must be one of names, positions'],
    ],
    [
      'allow empty',
      (l) => (exercise(l).allow = []),
      ['exercises[0].allow: Must list at least one of select, dml, ddl'],
    ],
    [
      'allow twice',
      (l) => (exercise(l).allow = ['select', 'dml', 'select']),
      ['exercises[0].allow: Lists select twice'],
    ],
    [
      'allow unknown',
      (l) => (exercise(l).allow = ['select', 'insert']),
      ['exercises[0].allow[1]: Must be one of select, dml, ddl'],
    ],
    ['allow not a list', (l) => (exercise(l).allow = 'select'), ['exercises[0].allow: Must be a list']],
    ['points zero', (l) => (exercise(l).points = 0), ['exercises[0].points: Must be 1 or more']],
    ['points a fraction', (l) => (exercise(l).points = 1.5), ['exercises[0].points: Must be a whole number']],
    ['points too many', (l) => (exercise(l).points = 101), ['exercises[0].points: Must be at most 100']],
    ['hints not a list', (l) => (exercise(l).hints = 'Use JOIN.'), ['exercises[0].hints: Must be a list']],
    ['a blank hint', (l) => (exercise(l).hints = ['Use JOIN.', '']), ['exercises[0].hints[1]: Must not be empty']],
    [
      'too many hints',
      (l) => (exercise(l).hints = Array(21).fill('Use JOIN.')),
      ['exercises[0].hints: Must list at most 20 hints'],
    ],
    // unknown keys are named, with the key that was probably meant
    ['an unknown key', (l) => (l.author = 'Ana'), ['author: Unknown key']],
    [
      'hint for hints',
      (l) => (exercise(l).hint = 'Use JOIN.'),
      ['exercises[0].hint: Unknown key (did you mean hints?)'],
    ],
    ['Title for title', (l) => (l.Title = 'SQL'), ['Title: Unknown key (did you mean title?)']],
    [
      'solutoin for solution',
      (l) => (exercise(l).solutoin = 'SELECT 1'),
      ['exercises[0].solutoin: Unknown key (did you mean solution?)'],
    ],
    [
      'minutes in an exercise',
      (l) => (exercise(l).minutes = 5),
      ['exercises[0].minutes: Unknown key (minutes is a key of the lab, at the top of the file)'],
    ],
    ['points on the lab', (l) => (l.points = 5), ['points: Unknown key (points is a key of each exercise)']],
  ])('refuses %s', (_, change, errors) => {
    expect(errorsAfter(change)).toEqual(errors)
  })

  it('names every problem at once, by its path', () => {
    const text = stringify({
      title: 'SQL',
      dataset: 'dataset.sql',
      minutes: -1,
      exercises: [
        { key: 'a', title: 'A', prompt: 'p', solution: 's' },
        { key: 'b', title: 'B', prompt: 'p', solution: 's', hint: 'h' },
        { key: 'c', title: 'C', prompt: 'p' },
      ],
    })
    expect(errorsOf(text)).toEqual([
      'minutes: Must be 1 or more',
      'exercises[1].hint: Unknown key (did you mean hints?)',
      'exercises[2].solution: Required',
    ])
  })
})

/** A lab with every key set away from its default, and text that YAML must quote or keep exactly. */
const full = (): LabDefinition => ({
  title: 'Orders: a "first" look',
  description: '# Orders\n\nA shop with customers and orders.\n\n- one\n- two\n',
  minutes: 45,
  dataset: 'shop.sql',
  exercises: [
    {
      key: 'top-customers',
      title: 'yes',
      prompt: 'Find the five customers who spent the most.\n\nRound totals to 2 decimals.',
      solution:
        'SELECT c.name, round(sum(o.total), 2) AS spent\nFROM customers c\n  JOIN orders o ON o.customer_id = c.id\nGROUP BY c.name\nORDER BY spent DESC\nLIMIT 5;\n',
      check: 'result',
      order: 'strict',
      columns: 'positions',
      allow: ['select'],
      points: 2,
      hints: [
        '  starts with spaces\nand goes on',
        'ends with blank lines\n\n\n',
        '123',
        'null',
        '# not a comment',
        'tab\there',
      ],
    },
    {
      key: 'cancel-order',
      title: 'Cancel order 7',
      prompt: 'Mark order 7 as cancelled.',
      solution: "UPDATE orders SET status = 'cancelled' WHERE id = 7",
      check: 'state',
      verify: [
        'SELECT id, status FROM orders ORDER BY id',
        "SELECT count(*) FROM orders\r\nWHERE status = 'cancelled'",
      ],
      order: 'any',
      columns: 'names',
      allow: ['dml', 'select'],
      points: 1,
      hints: [],
    },
    {
      key: 'orders-by-day',
      title: 'Orders of one day, fast',
      prompt: 'Make the report of one day read an index.',
      solution: "CREATE INDEX ON orders (placed_on);\nSELECT id FROM orders WHERE placed_on = '2024-03-01'",
      check: 'plan',
      plan: { has: ['Index Scan on orders', 'index only scan'], lacks: ['Seq Scan on orders', 'SubPlan'], cost: 1.5 },
      order: 'auto',
      columns: 'names',
      allow: ['select', 'ddl'],
      points: 1,
      hints: [],
    },
  ],
})

describe('stringifyLab', () => {
  it('writes the keys in the documented order, leaves defaults out and keeps multi-line text as blocks', () => {
    const lab = definitionOf(stringify(minimal()))
    lab.description = 'A shop.\n\nWith customers.\n'
    lab.exercises[0].solution = 'SELECT name\nFROM customers\nORDER BY name;\n'
    lab.exercises.push({ ...lab.exercises[0], key: 'change', check: 'state', verify: ['SELECT 1'], allow: ['dml'] })
    lab.exercises.push({
      ...lab.exercises[0],
      key: 'fast',
      solution: 'SELECT 1',
      check: 'plan',
      plan: { has: ['Hash Join', 'Seq Scan on products'], cost: 2 },
    })
    expect(stringifyLab(lab)).toBe(
      [
        'title: SQL fundamentals',
        'description: |',
        '  A shop.',
        '',
        '  With customers.',
        'dataset: dataset.sql',
        'exercises:',
        '  - key: all-customers',
        '    title: All customers',
        '    prompt: List every customer.',
        '    solution: |',
        '      SELECT name',
        '      FROM customers',
        '      ORDER BY name;',
        '',
        '  - key: change',
        '    title: All customers',
        '    prompt: List every customer.',
        '    solution: |',
        '      SELECT name',
        '      FROM customers',
        '      ORDER BY name;',
        '    check: state',
        '    verify:',
        '      - SELECT 1',
        '    allow: [dml]',
        '',
        '  - key: fast',
        '    title: All customers',
        '    prompt: List every customer.',
        '    solution: SELECT 1',
        '    check: plan',
        '    plan:',
        '      has: [Hash Join, Seq Scan on products]',
        '      cost: 2',
        '',
      ].join('\n'),
    )
  })

  it('round-trips a two-session exercise with every kind of step', () => {
    const lab = definitionOf(
      stringify({
        ...minimal(),
        exercises: [
          {
            ...minimal().exercises[0],
            check: 'sessions',
            solution:
              'A: BEGIN;\nA: UPDATE accounts SET balance = 0 WHERE id = 1;\nB: UPDATE accounts\n  SET balance = 1 WHERE id = 1;\nA: COMMIT;',
            allow: ['select', 'dml'],
            steps: [
              { waits: 'B' },
              { error: { session: 'B', code: '40P01' } },
              { 'changed-read': { session: 'A', isolation: 'read committed' } },
              { 'same-read': { session: 'A', isolation: 'repeatable read' } },
              { committed: 'A' },
              { 'rolled-back': 'B' },
            ],
          },
        ],
      }),
    )
    expect(lab.exercises[0].steps).toHaveLength(6)
    const text = stringifyLab(lab)
    expect(text).toContain('    check: sessions\n    steps:\n      - waits: B\n      - error:\n          session: B\n')
    expect(definitionOf(text)).toEqual(lab)
  })

  it('round-trips a lab with every key set and text YAML must quote', () => {
    const lab = full()
    expect(definitionOf(stringifyLab(lab))).toEqual(lab)
  })

  it('round-trips any valid lab', () => {
    // text made of what YAML treats specially, beside ordinary letters and a few beyond ASCII
    const unit = fc.constantFrom(...'ab Z9\n\n\r\t:#-|>"\'{}[],&*!%@`?~\\é€😀\u00a0\u0085\u2028\ufeff\x00\x7f')
    const anyText = (maxLength: number) => fc.string({ unit, maxLength })
    const filled = (maxLength: number) => anyText(maxLength).filter((t) => t.trim() !== '')
    const title = filled(30).filter((t) => !/[\r\n]/.test(t))
    const pattern = fc
      .tuple(
        fc.constantFrom('Seq Scan', 'index scan', 'Hash Join', 'Bitmap Heap Scan', 'Scan'),
        fc.option(fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/), { nil: undefined }),
      )
      .map(([type, table]) => (table ? `${type} on ${table}` : type))
    const kinds = fc.uniqueArray(fc.constantFrom<StatementKind>('select', 'dml', 'ddl'), { minLength: 1 })
    const exercise = fc.record({
      key: fc.stringMatching(/^[a-z0-9-]{1,64}$/),
      title,
      prompt: filled(60),
      solution: filled(60),
      order: fc.constantFrom<OrderRule>('auto', 'strict', 'any'),
      columns: fc.constantFrom<ColumnRule>('names', 'positions'),
      allow: kinds,
      points: fc.integer({ min: 1, max: 100 }),
      hints: fc.array(filled(30), { maxLength: 3 }),
      verify: fc.option(fc.array(filled(40), { minLength: 1, maxLength: 3 }), { nil: undefined }),
      plan: fc.option(
        fc.record(
          {
            has: fc.array(pattern, { minLength: 1, maxLength: 3 }),
            lacks: fc.array(pattern, { minLength: 1, maxLength: 3 }),
            cost: fc.double({ min: 0.01, max: 1000, noNaN: true }),
          },
          { requiredKeys: ['cost'] },
        ),
        { nil: undefined },
      ),
    })
    const lab = fc.record({
      title,
      description: anyText(60),
      minutes: fc.integer({ min: 1, max: 600 }),
      dataset: fc.stringMatching(/^[a-z0-9_-]{1,20}\.sql$/),
      exercises: fc.uniqueArray(exercise, { minLength: 1, maxLength: 4, selector: (e) => e.key }),
    })
    fc.assert(
      fc.property(lab, (generated) => {
        const definition: LabDefinition = {
          ...generated,
          exercises: generated.exercises.map(({ verify, plan, ...rest }) =>
            verify
              ? { ...rest, check: 'state', verify }
              : plan
                ? { ...rest, check: 'plan', plan }
                : { ...rest, check: 'result' },
          ),
        }
        expect(parseLabYaml(stringifyLab(definition))).toEqual({ ok: true, definition })
      }),
      // the same inputs on every run, so a failure can be run again (FORMAT_SEED=random for new ones)
      { numRuns: 300, seed: process.env.FORMAT_SEED === 'random' ? undefined : 20_261_127 },
    )
    // 300 generated labs, each written and read back: seconds on a busy machine
  }, 30_000)
})

describe('docs/labs.md', () => {
  const guide = readFileSync(path.resolve(import.meta.dirname, '../../../docs/labs.md'), 'utf8')

  it('has an example lab.yaml that is a valid lab, with a result and a state exercise', () => {
    const example = guide.match(/## An example\n[\s\S]*?```yaml\n([\s\S]*?)```/)?.[1]
    const lab = definitionOf(example ?? '')
    expect(lab.exercises.map((e) => e.check)).toEqual(['result', 'state'])
    expect(stringifyLab(lab)).toBe(example)
  })

  it('lists every key in its tables', () => {
    const documented = [...guide.matchAll(/^\| `([a-z]+)` \|/gm)].map((m) => m[1])
    expect(documented).toEqual([...LAB_KEYS, ...EXERCISE_KEYS])
  })
})

import { Document, isMap, isSeq, LineCounter, parseDocument, visit, type YAMLError } from 'yaml'
import type { z } from 'zod'
import {
  EXERCISE_DEFAULTS,
  EXERCISE_KEYS,
  LAB_DEFAULTS,
  LAB_KEYS,
  LabSchema,
  PLAN_KEYS,
  type ExerciseDefinition,
  type LabDefinition,
} from './schema.ts'

// lab.yaml as text: read into a definition with every problem named where an author can find it (a
// line and column for YAML itself, a path such as exercises[2].solution for the lab's rules), and
// written back as an author would write it. Pure: the folder and the zip are folder.server.ts's.

type LabParse = { ok: true; definition: LabDefinition } | { ok: false; errors: string[] }

/** lab.yaml read and checked, with the defaults applied; or every problem found, one line each. */
export function parseLabYaml(text: string): LabParse {
  const lineCounter = new LineCounter()
  // no warnings on the server's stderr: what YAML only warns of (a list as a key) is refused below anyway
  const document = parseDocument(text, { lineCounter, prettyErrors: false, logLevel: 'error' })
  if (document.errors.length > 0) return { ok: false, errors: document.errors.map((e) => yamlError(e, lineCounter)) }
  let data: unknown
  try {
    data = document.toJS()
  } catch (error) {
    // the one failure left once the text parsed: aliases (*name) that would expand beyond reason
    return { ok: false, errors: [`The file cannot be read: ${error instanceof Error ? error.message : String(error)}`] }
  }
  if (data === null || data === undefined)
    return { ok: false, errors: ['The file is empty: a lab needs at least title:, dataset: and exercises:'] }
  if (typeof data !== 'object' || Array.isArray(data))
    return { ok: false, errors: ['The file must hold keys such as title:, dataset: and exercises:, one per line'] }
  const result = LabSchema.safeParse(withoutNulls(data))
  if (result.success) return { ok: true, definition: result.data }
  return { ok: false, errors: result.error.issues.flatMap(issueLines) }
}

function yamlError(error: YAMLError, lines: LineCounter) {
  const { line, col } = lines.linePos(error.pos[0])
  return `line ${line}, column ${col}: ${error.message}`
}

/**
 * The data with every key whose value is empty (`hints:` with nothing after it, or `~`) left out, so an
 * empty key reads as a key not written: its default, or "Required". Items of a list are kept as they are.
 */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls)
  if (value === null || typeof value !== 'object' || !isPlainObject(value)) return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  )
}

const isPlainObject = (value: object) => Object.getPrototypeOf(value) === Object.prototype

/** exercises[2].solution */
function pathText(path: (string | number)[]) {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('')
}

function issueLines(issue: z.ZodIssue): string[] {
  if (issue.code !== 'unrecognized_keys') return [`${pathText(issue.path) || 'lab'}: ${issue.message}`]
  // one line per unknown key, at the key, with the key it was probably meant to be
  const inLab = issue.path.length === 0
  if (issue.path.at(-1) === 'plan')
    return issue.keys.map((key) => {
      const meant = closest(key, PLAN_KEYS)
      return `${pathText([...issue.path, key])}: Unknown key${meant ? ` (did you mean ${meant}?)` : ''}`
    })
  const known: readonly string[] = inLab ? LAB_KEYS : EXERCISE_KEYS
  const other: readonly string[] = inLab ? EXERCISE_KEYS : LAB_KEYS
  const otherPlace = inLab ? 'each exercise' : 'the lab, at the top of the file'
  return issue.keys.map((key) => {
    const meant = other.includes(key) ? undefined : closest(key, known)
    const hint = meant ? ` (did you mean ${meant}?)` : other.includes(key) ? ` (${key} is a key of ${otherPlace})` : ''
    return `${pathText([...issue.path, key])}: Unknown key${hint}`
  })
}

/** The known key a typo is nearest to (two letters off at most, one for a short key), or undefined. */
function closest(key: string, known: readonly string[]) {
  const most = key.length <= 3 ? 1 : 2
  let best: { name: string; distance: number } | undefined
  for (const name of known) {
    const d = editDistance(key.toLowerCase(), name)
    if (d <= most && (!best || d < best.distance)) best = { name, distance: d }
  }
  return best?.name
}

/** Letters to add, remove or change to turn a into b (Levenshtein); keys are short, so the table is small. */
function editDistance(a: string, b: string) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    previous = row
  }
  return previous[b.length]
}

/**
 * lab.yaml for a definition, as an author would write it: keys in the documented order, defaults left
 * out, multi-line SQL and Markdown as `|` blocks, a blank line between exercises. parseLabYaml gives the
 * same definition back.
 */
export function stringifyLab(definition: LabDefinition): string {
  const lab = written(definition, LAB_KEYS, LAB_DEFAULTS)
  // the last key, so replacing it keeps the order
  lab.exercises = definition.exercises.map((exercise) => written(exercise, EXERCISE_KEYS, EXERCISE_DEFAULTS))
  const document = new Document(lab)
  // a block keeps SQL and Markdown as the author sees them; YAML quotes instead any text a block
  // cannot hold exactly (a carriage return, say)
  visit(document, {
    Scalar(_, node) {
      if (typeof node.value === 'string' && node.value.includes('\n')) node.type = 'BLOCK_LITERAL'
    },
  })
  const exercises = document.get('exercises')
  if (isSeq(exercises))
    exercises.items.forEach((item, i) => {
      if (!isMap(item)) return
      if (i > 0) item.spaceBefore = true
      // allow: [select, dml] reads better on one line
      const allow = item.get('allow')
      if (isSeq(allow)) allow.flow = true
      // and so do a plan's patterns: has: [Hash Join, Seq Scan on products]
      const plan = item.get('plan')
      if (isMap(plan))
        for (const key of ['has', 'lacks']) {
          const patterns = plan.get(key)
          if (isSeq(patterns)) patterns.flow = true
        }
    })
  // no folding: a long line of SQL stays one line
  return document.toString({ lineWidth: 0, flowCollectionPadding: false })
}

type Written = Record<string, unknown>

/** The keys of a lab or an exercise that differ from their defaults, in the documented order. */
function written<T extends LabDefinition | ExerciseDefinition>(
  value: T,
  keys: readonly (keyof T & string)[],
  defaults: Written,
): Written {
  const out: Written = {}
  for (const key of keys) {
    const v: unknown = value[key]
    // defaults are text, numbers and lists of text, which JSON compares exactly
    if (v !== undefined && !(key in defaults && JSON.stringify(v) === JSON.stringify(defaults[key]))) out[key] = v
  }
  return out
}

import fc from 'fast-check'

// Inputs for fuzzing the /api (tests/integration/api-fuzz.test.ts): values shaped by a call's JSON
// schema in the OpenAPI document, and so by the very zod schemas its service validates with; the same
// with junk in some places; and junk bodies, queries, path values and file parts.

/** A JSON schema as zod-to-openapi writes one: the keywords the request schemas use. */
export type JsonSchema = {
  $ref?: string
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema
  prefixItems?: JsonSchema[]
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  enum?: unknown[]
  format?: string
  pattern?: string
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  minItems?: number
  maxItems?: number
}

/**
 * A long text made of repeated parts, which fast-check prints as its recipe (not as a megabyte) when it
 * reports a counterexample; JSON.stringify writes the text itself.
 */
export class Long {
  readonly parts: [string, number][]
  constructor(...parts: [string, number][]) {
    this.parts = parts
  }
  get text() {
    return this.parts.map(([part, times]) => part.repeat(times)).join('')
  }
  toJSON() {
    return this.text
  }
  [fc.toStringMethod]() {
    return `Long(${this.parts.map(([part, times]) => `${JSON.stringify(part)} × ${times}`).join(', ')})`
  }
}

/** Strings that have broken parsers, databases and string conversions before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  'Ada\u0000',
  '\ud800',
  '\uffff',
  '\u202e',
  '💥',
  'İ',
  'ǅ',
  '\r\n',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-1',
  '1e309',
  '0x10',
  '1.5',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '{00000000-0000-0000-0000-000000000000}',
  '../../etc/passwd',
  '%00',
  '%zz',
  '%',
  "' OR 1=1 --",
  '"; DROP TABLE users; --',
  '\\',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '2024-02-30',
  '9999-12-31',
  '0000-00-00',
  '13/45/2024',
  'Etc/GMT+99',
  'javascript:alert(1)',
]

/**
 * Values that are not what anything wants: objects whose `toString` is not a function (String(x)
 * throws), prototype keys, lists where one value goes and the reverse.
 */
const TRAP_KEYS = ['toString', 'valueOf', 'toJSON', 'then', 'length', 'constructor', '__proto__']
const TRAPS: unknown[] = [
  { toString: 1 },
  { toString: 'x', valueOf: 'y' },
  { valueOf: 1 },
  JSON.parse('{"__proto__":{"roleId":1,"isAdmin":true}}'),
  {},
  [],
  [[]],
  [null],
  Array.from({ length: 1001 }, () => 0),
]

const NUMBERS = [0, -0, -1, 0.5, 1.5, -1e9, 2 ** 31, 2 ** 53 + 2, 1e21, 1e308, -1e308, 5e-324, 86_401, 100_001, 1e7]

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(...NUMBERS),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(new Long(['x', 70_000])),
  fc.constant(new Long(['é', 300])),
)

const junkKey = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'toString',
    'id',
    '_id',
    'roleId',
    'role',
    'passwordHash',
    'tokenVersion',
  ),
  fc.string({ maxLength: 10 }),
)

/** Any JSON value, often of the wrong type, often a trap. */
export const junkValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    { weight: 4, arbitrary: leaf },
    { weight: 2, arbitrary: fc.constantFrom(...TRAPS) },
    { weight: 2, arbitrary: fc.dictionary(fc.constantFrom(...TRAP_KEYS), leaf, { minKeys: 1, maxKeys: 2 }) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.dictionary(junkKey, tie('value'), { maxKeys: 3 }) },
  ),
})).value

/** A string for a path value, a query value or a field that is not what the call wants. */
export const junkText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  // PostgreSQL cannot store a NUL character in text
  fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })).map(([a, b]) => `${a}\u0000${b}`),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constant('x'.repeat(5000)),
)

/** Known good values for fields by name, offered beside the generated ones. */
export type Hints = Record<string, unknown[]>

export type ShapeOptions = {
  /** put junk in one place or in several, leave out required fields and add unknown ones */
  junk: boolean
  /** ids that exist, for every uuid field: a random uuid finds nothing, a real one gets further */
  ids: string[]
  hints: Hints
  resolve: (ref: string) => JsonSchema
}

const OMIT = Symbol('omit')

/** Values of a JSON schema: valid ones when `junk` is false (as far as a pattern can be generated). */
export function shapedValue(schema: JsonSchema, options: ShapeOptions, name?: string): fc.Arbitrary<unknown> {
  const own = ownValue(schema, options, name)
  return options.junk ? fc.oneof({ weight: 4, arbitrary: own }, { weight: 1, arbitrary: junkValue }) : own
}

function ownValue(schema: JsonSchema, options: ShapeOptions, name?: string): fc.Arbitrary<unknown> {
  if (schema.$ref) return ownValue(options.resolve(schema.$ref), options, name)
  if (schema.allOf)
    return fc
      .tuple(...schema.allOf.map((part) => ownValue(part, options, name)))
      .map((parts) => Object.assign({}, ...parts.filter((part) => part && typeof part === 'object')) as unknown)
  const alternatives = schema.anyOf ?? schema.oneOf
  if (alternatives) return fc.oneof(...alternatives.map((part) => ownValue(part, options, name)))
  const typed = typedValue(schema, options)
  const hinted = name ? options.hints[name] : undefined
  return hinted?.length ? fc.oneof(typed, fc.constantFrom(...hinted)) : typed
}

function typedValue(schema: JsonSchema, options: ShapeOptions): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum)
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? (schema.properties ? 'object' : 'string')]
  return fc.oneof(...types.map((type) => valueOfType(type, schema, options)))
}

function valueOfType(type: string, schema: JsonSchema, options: ShapeOptions): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 })
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true })
    case 'array': {
      if (schema.prefixItems) return fc.tuple(...schema.prefixItems.map((item) => shapedValue(item, options)))
      const minLength = schema.minItems ?? 0
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 4, 4))
      return fc.array(shapedValue(schema.items ?? {}, options), { minLength, maxLength })
    }
    case 'object':
      return objectValue(schema, options)
    default:
      return stringValue(schema, options)
  }
}

function objectValue(schema: JsonSchema, options: ShapeOptions): fc.Arbitrary<unknown> {
  const properties = Object.entries(schema.properties ?? {})
  const required = new Set(schema.required ?? [])
  const field = (name: string, property: JsonSchema) => shapedValue(property, options, name)
  const valid = fc.record(Object.fromEntries(properties.map(([name, property]) => [name, field(name, property)])), {
    requiredKeys: [...required],
  })
  if (!options.junk) return valid
  // a valid object but for one field, which gets a call furthest; or junk, gaps and extras all over
  const oneWrong = fc
    .tuple(valid, fc.constantFrom(...properties.map(([name]) => name), '__proto__'), fc.oneof(junkValue, junkText))
    .map(([value, name, junk]) => withFields(value, { [name]: junk }))
  const fields = properties.map(([name, property]) => [
    name,
    fc.oneof(
      { weight: required.has(name) ? 12 : 1, arbitrary: field(name, property) },
      { weight: 1, arbitrary: fc.constant(OMIT) },
    ),
  ])
  const extra = fc.option(fc.dictionary(junkKey, junkValue, { minKeys: 1, maxKeys: 2 }), { freq: 4, nil: {} })
  const allOver = fc.tuple(fc.record(Object.fromEntries(fields)), extra).map(([given, more]) => {
    const value: Record<string, unknown> = {}
    for (const [name, v] of Object.entries(given)) if (v !== OMIT) value[name] = v
    return withFields(value, more)
  })
  return fc.oneof(oneWrong, allOver)
}

/** The object with these fields set as own properties, `__proto__` too, as JSON.parse makes them. */
function withFields(value: object, fields: Record<string, unknown>) {
  const copy = { ...value }
  for (const [name, v] of Object.entries(fields)) Object.defineProperty(copy, name, { value: v, enumerable: true })
  return copy
}

const STRONG_PASSWORD = fc.string({ unit: 'grapheme-ascii', minLength: 4, maxLength: 20 }).map((s) => `Aa1!${s}`)

function stringValue(schema: JsonSchema, options: ShapeOptions): fc.Arbitrary<unknown> {
  const minLength = schema.minLength ?? 0
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 30, 30))
  if (schema.format === 'uuid')
    return options.ids.length
      ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...options.ids) }, { weight: 1, arbitrary: fc.uuid() })
      : fc.uuid()
  if (schema.format === 'email') return fc.emailAddress()
  if (schema.pattern) {
    let matching: fc.Arbitrary<string>
    try {
      matching = fc.stringMatching(new RegExp(schema.pattern, 'u'))
    } catch {
      // fast-check cannot generate lookaheads: the one such pattern is the password rule
      return STRONG_PASSWORD
    }
    return matching.filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity))
  }
  return fc.oneof(fc.string({ minLength, maxLength }), fc.string({ unit: 'grapheme', minLength, maxLength }))
}

// ——— raw bodies and file parts ———

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'multipart/form-data',
  'application/jsonx',
  '*/*',
  '',
]

/** A body that is not a JSON object, or not JSON at all, or too big, with some content type or none. */
export function rawBody(maxJsonBytes: number) {
  const text = fc.oneof(
    fc.constantFrom(
      '',
      '{',
      '{"a":',
      'null',
      '[]',
      '"text"',
      '1',
      'true',
      '{}garbage',
      '\ufeff{}',
      '{"a":1,"a":2}',
      '{"__proto__":{"roleId":1}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--xyz--\r\n',
    ),
    fc.constantFrom(
      new Long(['[', 20_000], [']', 20_000]),
      new Long(['{"a":', 20_000], ['1', 1], ['}', 20_000]),
      new Long(['{"description":"', 1], ['x', maxJsonBytes - 20], ['"}', 1]),
      new Long(['{"description":"', 1], ['x', maxJsonBytes], ['"}', 1]),
    ),
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.uint8Array({ maxLength: 60 }),
    junkValue.map((value) => JSON.stringify(value) ?? ''),
  )
  return fc.record({ contentType: fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined }), text })
}

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
const SAMPLES = [
  PNG,
  new TextEncoder().encode('GIF89a\x01\x00\x01\x00'),
  Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]),
  new TextEncoder().encode('%PDF-1.7\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n%%EOF\n'),
  Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0]),
  Uint8Array.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
  new TextEncoder().encode('name,email\nAda,ada@example.com\n'),
  new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'),
  new Uint8Array(0),
]

const FILE_NAMES = [
  'x.pdf',
  'cover.png',
  'cover.PNG',
  'Q1; report.pdf',
  'a=b.pdf',
  'a"b.pdf',
  '',
  '.pdf',
  '../../x.png',
  'C:\\x\\y.pdf',
  'ü ñ 💥.png',
  'a\u0000.pdf',
  'x'.repeat(300) + '.pdf',
  'x.pdf.exe',
  'x.csv',
  'x.docx',
  'x.pptx',
  'x.ppt',
  'x.svg',
]

export type FilePart = { name: string; value: string | { bytes: Uint8Array | Long; fileName: string; type: string } }

/** The parts of a multipart body: the documented file fields or others, files of many kinds, or text. */
export function multipartParts(fileFields: string[], oversizeBytes: number): fc.Arbitrary<FilePart[]> {
  const file = fc.record({
    bytes: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...SAMPLES) },
      { weight: 3, arbitrary: fc.uint8Array({ maxLength: 300 }) },
      { weight: 1, arbitrary: fc.constant(new Long(['x', oversizeBytes])) },
    ),
    fileName: fc.oneof(fc.constantFrom(...FILE_NAMES), fc.string({ maxLength: 20 })),
    type: fc.constantFrom('image/png', 'application/pdf', 'text/csv', 'application/octet-stream', '', 'text/html'),
  })
  const part = fc.record({
    name: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...fileFields) }, fc.string({ maxLength: 10 })),
    value: fc.oneof({ weight: 4, arbitrary: file }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }),
  })
  return fc.array(part, { maxLength: 3 })
}

/** A string as a URL path segment; a lone surrogate cannot be %-encoded and stands as `%ED%A0%80`. */
export function pathSegment(value: string) {
  try {
    return encodeURIComponent(value)
  } catch {
    return '%ED%A0%80'
  }
}

import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import fc from 'fast-check'
import { SignJWT } from 'jose'
import pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openApiDocument } from '#app/modules/api-docs/openapi.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { issueToken } from '#app/modules/auth/token.server.ts'
import { closeSandbox } from '#app/modules/labs/sandbox.server.ts'
import { importLab } from '#app/modules/labs/service.server.ts'
import { MAX_JSON_BYTES } from '#app/utils/api.server.ts'
import { getSecrets, resetEnvCache } from '#app/utils/env.server.ts'
import { db } from '#db/client.ts'
import { apiRoutes, routeModule } from '#tests/api-routes.ts'
import {
  assignCourse,
  makeCourse,
  makeDocument,
  makeLearner,
  makePeople,
  makeProgram,
  makeStoredFile,
  PASSWORD,
  recordWatched,
  labFolderOf,
} from '#tests/factories.ts'
import {
  CONTENT_TYPES,
  type FilePart,
  type JsonSchema,
  junkText,
  Long,
  multipartParts,
  pathSegment,
  rawBody,
  shapedValue,
  type ShapeOptions,
} from '#tests/fuzz.ts'
import { call } from '#tests/requests.ts'

// Every /api route, fuzzed (property-based, fast-check): for each route and each kind of caller,
// FUZZ_RUNS calls with path values, queries and bodies made from the route's schema in the OpenAPI
// document (so from the zod schema its service validates with), the same with junk in places, and
// junk bodies. Whatever comes in: never a 5xx, every refusal is JSON with a `message`, and a refused
// call leaves the stored data (every table, and the stored files) as it was.
//
// A failure prints fast-check's seed; FUZZ_SEED=<seed> runs the same inputs again, FUZZ_SEED=random new ones.

/** Calls per route and kind of caller; CI runs the default (some 2,000 calls in all), a longer search sets more. */
const RUNS = Math.max(1, Number(process.env.FUZZ_RUNS) || 8)
// a fixed seed unless asked otherwise: a red CI run then says the change broke something, not the draw
const SEED =
  process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED) || 20_261_125

/**
 * Tables a refused call may write, and why. Everything else must be exactly as before a refusal.
 * - sign_in_events: a refused sign-in is recorded (wrong password, throttled) for admins to read.
 * - rate_limits: a wrong password counts against its address and account, and a refused contact
 *   message still counts against its address.
 */
const WRITTEN_WHEN_REFUSED = new Set(['sign_in_events', 'rate_limits'])

// upload limits of 1 MB, so that a file over every limit is cheap to make and send
for (const kind of ['IMAGE', 'DOCUMENT', 'ASSESSMENT']) process.env[`UPLOAD_MAX_${kind}_MB`] = '1'
resetEnvCache()
const OVER_UPLOAD_LIMIT = 1024 * 1024 + 1

const CALLERS = ['anonymous', 'forged', 'learner', 'coach', 'admin', 'superAdmin'] as const
type Caller = (typeof CALLERS)[number]
type SignedIn = Exclude<Caller, 'anonymous' | 'forged'>

type Body =
  | { kind: 'json'; value: unknown; contentType: string }
  | { kind: 'raw'; text: string | Uint8Array | Long; contentType: string | undefined }
  | { kind: 'multipart'; parts: FilePart[] }

type Input = {
  caller: Caller
  /** the Authorization header of a `forged` caller */
  forged?: string
  method: string
  params: Record<string, string>
  query: [string, string][]
  body?: Body
}

type FuzzRoute = {
  file: string
  /** anyone may make the call: no token needed */
  open: boolean
  method: string
  path: string
  params: { name: string; schema: JsonSchema }[]
  query: { name: string; schema: JsonSchema }[]
  body?: { json: JsonSchema } | { multipart: string[] }
}

type OpenApiOperation = {
  security?: unknown[]
  parameters?: { name: string; in: string; schema: JsonSchema }[]
  requestBody?: { content: Record<string, { schema: JsonSchema }> }
}

/** The documented calls with their route files, and the /api routes that are not calls (their path values only). */
async function fuzzRoutes(): Promise<FuzzRoute[]> {
  const files = await apiRoutes()
  const document = openApiDocument()
  const routes: FuzzRoute[] = []
  for (const [docPath, item] of Object.entries(document.paths ?? {}))
    for (const [method, operation] of Object.entries(item as Record<string, OpenApiOperation>)) {
      const file = files.find((f) => f.path === docPath)?.file
      if (!file) throw new Error(`No route file for ${docPath}`)
      const parameters = operation.parameters ?? []
      const content = operation.requestBody?.content ?? {}
      const multipart = content['multipart/form-data']?.schema
      routes.push({
        file,
        open: !operation.security?.length,
        method: method.toUpperCase(),
        path: docPath,
        params: parameters.filter((p) => p.in === 'path').map(({ name, schema }) => ({ name, schema })),
        query: parameters.filter((p) => p.in === 'query').map(({ name, schema }) => ({ name, schema })),
        body: content['application/json']
          ? { json: content['application/json'].schema }
          : multipart
            ? { multipart: Object.keys(multipart.properties ?? {}) }
            : undefined,
      })
    }
  for (const { file, path: routePath } of files.filter((f) => !routes.some((r) => r.file === f.file))) {
    const names = [...routePath.matchAll(/\{(\w+)\}|\*/g)].map((m) => m[1] ?? '*')
    routes.push({
      file,
      open: true,
      method: 'GET',
      path: routePath,
      params: names.map((name) => ({ name, schema: {} })),
      query: [],
    })
  }
  return routes
}

// ——— the callers and the data they work on ———

type User = Awaited<ReturnType<typeof makeLearner>>
let users: Record<SignedIn, User> & { other: User }
const tokens = {} as Record<SignedIn, string>
let forgedTokens: string[] = []

/** Fresh tokens after an accepted call: a password change ends every token of its user. */
async function refreshTokens() {
  const { User } = await db()
  for (const caller of ['learner', 'coach', 'admin', 'superAdmin'] as const) {
    const user = await User.findByPk(users[caller].id)
    if (user) tokens[caller] = await issueToken(user)
  }
}

/** What the calls of one route work on: made anew for each route, since accepted calls change it. */
type World = { ids: Record<string, string>; allIds: string[]; fileKeys: string[] }
let world: World

async function makeWorld(): Promise<World> {
  const { AssessmentUpload } = await db()
  const { learner, admin } = users
  const course = await makeCourse({
    videos: [{ duration: 100 }, { duration: 200, after: [0] }, { duration: null, visibility: false }],
  })
  const unassigned = await makeCourse({ videos: [{ duration: 60 }] })
  const document = await makeDocument(course.id)
  const scenario = await makeDocument(course.id, { kind: 'scenario' })
  await assignCourse(learner.id, course.id)
  const program = await makeProgram([course.id, unassigned.id])
  await recordWatched(learner.id, course.id, course.videos[0], 40)
  const submitted = await makeStoredFile('assessment', { name: 'work.pdf', uploadedBy: learner.id })
  const assessment = await AssessmentUpload.create({
    userId: learner.id,
    courseId: course.id,
    scenarioId: scenario.id,
    fileKey: submitted.key,
  })
  const image = await makeStoredFile('course_image', { uploadedBy: admin.id })
  const loose = await makeStoredFile('document', { uploadedBy: admin.id })
  const work = await makeStoredFile('assessment', { name: 'answer.pdf', uploadedBy: learner.id })
  const signature = await makeStoredFile('certificate_signature', { uploadedBy: admin.id })
  // a path value by its name, for the plain call of each route
  const ids: Record<string, string> = {
    userId: learner.id,
    courseId: course.id,
    relatedCourseId: course.id,
    videoId: course.videos[1].id,
    documentId: document.id,
    id: assessment.id,
    programId: program.id,
    labId,
  }
  const allIds = [
    ...Object.values(users).map((u) => u.id),
    course.id,
    unassigned.id,
    ...course.videos.map((v) => v.id),
    ...unassigned.videos.map((v) => v.id),
    document.id,
    scenario.id,
    program.id,
    assessment.id,
  ]
  return {
    ids,
    allIds,
    fileKeys: [image.key, loose.key, work.key, submitted.key, document.fileKey, signature.key],
  }
}

/** Good values for fields by name, beside the generated ones, so that some calls get past validation. */
function hints(): ShapeOptions['hints'] {
  const known = Object.values(users)
  return {
    // sign-in and registration: real accounts (wrong passwords, names taken); forgotPassword's field is
    // left unhinted on purpose, since a match mails a link after answering, while later calls run
    email: [...known.map((u) => u.email), ...known.map((u) => u.userName)],
    userName: known.map((u) => u.userName),
    password: [PASSWORD],
    currentPassword: [PASSWORD],
    courseImage: world.fileKeys,
    programImage: world.fileKeys,
    certificateSignature: [...world.fileKeys, null],
    certificateIssuer: ['Northwind Data Academy', '', ' ', 'Line\nbreak'],
    document: world.fileKeys,
    startDate: ['2024-01-31', '01/31/2024', '2024-02-30', '1900-01-01', '9999-12-31'],
    endDate: ['2024-12-31', '12/31/2024', '0001-01-01', '2024-13-01'],
    // the assign calls: dates read, refused (ambiguous, impossible, words) and removed
    dueDate: [
      '2026-12-15',
      '15 Dec 2026',
      '2026-12-15 17:00',
      '2026-12-15T17:00:00Z',
      '12/05/2026',
      '2026-02-30',
      '',
      null,
    ],
    reminderPlan: [{ before: [7, 1], after: [1, 3] }, { before: [], after: [] }, { before: [-1], after: [0] }, null],
    timeZone: ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Mars/Olympus', '+05:00'],
    embedUrl: [
      'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      'https://youtu.be/dQw4w9WgXcQ',
      'https://vimeo.com/76979871',
      'https://player.vimeo.com/video/76979871',
      'https://example.com/video.mp4',
      'javascript:alert(1)',
    ],
    recordedDate: [Date.now(), new Date().toISOString(), 0, -1, 8.64e15 + 1],
    ilearn: forgedTokens,
    exercise: ['swiss', 'empty', 'missing'],
    sql: ["SELECT name FROM city WHERE country = 'CH'", 'DELETE FROM city', 'SELECT nme FROM city', 'COMMIT'],
  }
}

// ——— the inputs ———

function inputs(route: FuzzRoute, caller: Caller): fc.Arbitrary<Input> {
  const components = (openApiDocument().components?.schemas ?? {}) as Record<string, JsonSchema>
  const shape = (junk: boolean): ShapeOptions => ({
    junk,
    ids: world.allIds,
    hints: hints(),
    resolve: (ref) => components[ref.replace('#/components/schemas/', '')] ?? {},
  })
  const method = fc.oneof(
    { weight: 12, arbitrary: fc.constant(route.method) },
    { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH') },
  )
  const params = fc.record(
    Object.fromEntries(
      route.params.map(({ name, schema }) => [
        name,
        fc.oneof(
          { weight: 4, arbitrary: shapedValue(schema, shape(false), name).map(String) },
          { weight: 1, arbitrary: junkText },
        ),
      ]),
    ),
  )
  // each documented value or not, valid or junk, and now and then a value the call does not know
  const query = fc
    .tuple(
      fc.tuple(
        ...route.query.map(({ name, schema }) =>
          fc.option(
            fc
              .oneof(
                shapedValue(schema, shape(false)).map(String),
                fc.constantFrom('0', '-1', '1.5', '1e3', ' 1', '١', '１', '10000000', '501'),
                junkText,
              )
              .map((value): [string, string] => [name, value]),
            { nil: undefined },
          ),
        ),
      ),
      fc.array(fc.tuple(junkText, junkText), { maxLength: 2 }),
    )
    .map(([documented, unknown]) => [...documented.filter((entry) => entry !== undefined), ...unknown])
  const raw = rawBody(MAX_JSON_BYTES).map((b): Body => ({ kind: 'raw', ...b }))
  const body: fc.Arbitrary<Body | undefined> = !route.body
    ? fc.option(raw, { freq: 4, nil: undefined })
    : 'json' in route.body
      ? fc.oneof(
          { weight: 3, arbitrary: jsonBody(shapedValue(route.body.json, shape(false))) },
          { weight: 4, arbitrary: jsonBody(shapedValue(route.body.json, shape(true))) },
          { weight: 2, arbitrary: raw },
        )
      : fc.oneof(
          { weight: 4, arbitrary: multipartParts(route.body.multipart, OVER_UPLOAD_LIMIT).map(multipart) },
          { weight: 1, arbitrary: raw },
        )
  const forged = caller === 'forged' ? fc.constantFrom(...forgedTokens) : fc.constant(undefined)
  return fc.record({ caller: fc.constant(caller), forged, method, params, query, body })
}

const jsonBody = (value: fc.Arbitrary<unknown>) =>
  fc.record({
    kind: fc.constant('json' as const),
    value,
    contentType: fc.oneof({ weight: 9, arbitrary: fc.constant('application/json') }, fc.constantFrom(...CONTENT_TYPES)),
  })
const multipart = (parts: FilePart[]): Body => ({ kind: 'multipart', parts })

/** The call as a client would make it, with its documented method and path values that exist. */
function plainCall(route: FuzzRoute, caller: Caller): Input {
  return {
    caller,
    forged: caller === 'forged' ? forgedTokens[0] : undefined,
    method: route.method,
    params: Object.fromEntries(route.params.map(({ name }) => [name, world.ids[name] ?? 'x'])),
    query: [],
    body: route.body && 'json' in route.body ? { kind: 'json', value: {}, contentType: 'application/json' } : undefined,
  }
}

async function send(route: FuzzRoute, input: Input): Promise<Response> {
  const headers = new Headers()
  if (input.caller === 'forged') headers.set('Authorization', input.forged ?? '')
  else if (input.caller !== 'anonymous') headers.set('Authorization', `Bearer ${tokens[input.caller]}`)
  let body: BodyInit | undefined
  if (input.body && input.method !== 'GET') {
    if (input.body.kind === 'json') {
      body = JSON.stringify(input.body.value)
      headers.set('Content-Type', input.body.contentType)
    } else if (input.body.kind === 'raw') {
      const text = input.body.text
      body = text instanceof Long ? text.text : (text as BodyInit)
      if (input.body.contentType !== undefined) headers.set('Content-Type', input.body.contentType)
    } else {
      const form = new FormData()
      for (const { name, value } of input.body.parts) {
        if (typeof value === 'string') form.append(name, value)
        else {
          const bytes = value.bytes instanceof Long ? value.bytes.text : value.bytes
          form.append(name, new Blob([bytes as BlobPart], { type: value.type }), value.fileName)
        }
      }
      // sent as bytes, as a client's arrive: undici's own FormData stream throws when a reader stops early
      const encoded = new Response(form)
      headers.set('Content-Type', encoded.headers.get('Content-Type') ?? '')
      body = new Uint8Array(await encoded.arrayBuffer())
    }
  }
  const search = new URLSearchParams(input.query).toString()
  const url = route.path.replace(/\{(\w+)\}|\*/g, (_, name?: string) => pathSegment(input.params[name ?? '*'] ?? ''))
  const module = routeModule(route.file)
  return call(input.method === 'GET' ? module.loader : module.action, `${url}${search ? `?${search}` : ''}`, {
    method: input.method,
    headers,
    body,
    params: input.params,
  })
}

// ——— the stored data ———

let client: pg.Client
let digestQuery = ''

/** A digest of every table's rows and of the stored files' names and sizes. */
async function storedData(): Promise<Map<string, string>> {
  const { rows } = await client.query<{ name: string; digest: string }>(digestQuery)
  const state = new Map(rows.map((row) => [row.name, row.digest]))
  state.set('(stored files)', (await listFiles(path.join(process.env.DATA_DIR ?? '', 'uploads'))).join('\n'))
  return state
}

async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => [])
  const files = entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name))
  return (await Promise.all(files.map(async (file) => `${file} ${(await stat(file)).size}`))).sort()
}

const changedParts = (before: Map<string, string>, after: Map<string, string>) =>
  [...after.keys()].filter((name) => before.get(name) !== after.get(name) && !WRITTEN_WHEN_REFUSED.has(name))

// ——— the run ———

const routes = await fuzzRoutes()
/** Statuses answered, by `METHOD /path caller`. */
const answered = new Map<string, Set<number>>()

beforeAll(async () => {
  users = { ...(await makePeople('learner', 'coach', 'admin', 'superAdmin')), other: await makeLearner() }
  await refreshTokens()
  const key = new TextEncoder().encode(getSecrets().jwtSecret)
  const claims = { r_id: 1, ver: 0 }
  const signed = (jwt: SignJWT, secret = key) => jwt.setProtectedHeader({ alg: 'HS256' }).sign(secret)
  forgedTokens = [
    '',
    'Bearer',
    'Bearer ',
    'Bearer null',
    'Basic YWRtaW46YWRtaW4=',
    `Bearer ${'x'.repeat(10_000)}`,
    // no signature, another key, expired, and no expiry at all
    `Bearer ${btoa(JSON.stringify({ alg: 'none' }))}.${btoa(JSON.stringify({ sub: users.admin.id, ...claims }))}.`,
    `Bearer ${await signed(new SignJWT(claims).setSubject(users.admin.id).setExpirationTime('1h'), new Uint8Array(32))}`,
    `Bearer ${await signed(new SignJWT(claims).setSubject(users.admin.id).setExpirationTime(Math.floor(Date.now() / 1000) - 60))}`,
    `Bearer ${await signed(new SignJWT(claims).setSubject(users.superAdmin.id))}`,
    `Bearer ${tokens.admin}x`,
  ]

  labId = await makeLab(users.learner.id)

  client = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await client.connect()
  const { rows } = await client.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  )
  expect(rows.map((r) => r.table_name)).toEqual(expect.arrayContaining(['users', 'courses', 'files', 'sign_in_events']))
  digestQuery = rows
    .map(({ table_name: table }) => {
      const quoted = `"${table.replaceAll('"', '""')}"`
      return `SELECT '${table}' AS name, md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS digest FROM ${quoted} t`
    })
    .join(' UNION ALL ')
})

afterAll(async () => {
  await client?.end()
  await closeSandbox()
})

/** A small SQL lab in a course of the learner's, made once: building it takes the sandbox a while. */
let labId = ''
const LAB_YAML = `title: Fuzzed lab
dataset: data.sql
exercises:
  - key: swiss
    title: Swiss cities
    prompt: The Swiss ones.
    solution: SELECT name FROM city WHERE country = 'CH'
  - key: empty
    title: Empty the cities
    prompt: Delete them all.
    check: state
    allow: [dml]
    solution: DELETE FROM city
    verify: [SELECT count(*) FROM city]
`
async function makeLab(learnerId: string) {
  const course = await makeCourse()
  await assignCourse(learnerId, course.id)
  const datasetSql =
    "CREATE TABLE city (name text, country text); INSERT INTO city VALUES ('Bern', 'CH'), ('Lyon', 'FR');"
  const lab = await importLab(SYSTEM, {
    folder: labFolderOf(LAB_YAML, datasetSql),
    course: course.id,
  })
  return lab.id
}

beforeEach(async () => {
  world = await makeWorld()
  await refreshTokens()
})

describe(`every /api route, fuzzed (FUZZ_RUNS=${RUNS} per caller, FUZZ_SEED=${SEED})`, () => {
  for (const [routeIndex, route] of routes.entries()) {
    it(
      `${route.method} ${route.path}`,
      async () => {
        // a call anyone may make is the same for every signed-in caller
        for (const [callerIndex, caller] of (route.open ? (['anonymous', 'forged'] as const) : CALLERS).entries()) {
          let before = await storedData()
          const property = fc.asyncProperty(inputs(route, caller), async (input) => {
            const response = await send(route, input)
            const text = await response.text()
            const status = response.status
            const key = `${route.method} ${route.path} ${caller}`
            answered.set(key, (answered.get(key) ?? new Set()).add(status))
            const after = await storedData()
            const changed = changedParts(before, after)
            before = after
            if (status < 300 && input.method !== 'GET') await refreshTokens()
            expect(status, text.slice(0, 500)).toBeLessThan(500)
            if (status >= 400) {
              expect(response.headers.get('Content-Type'), text.slice(0, 200)).toMatch(/^application\/json/)
              expect(JSON.parse(text), `${status}`).toMatchObject({ message: expect.any(String) })
              expect(changed, `a ${status} refusal changed stored data`).toEqual([])
            }
          })
          await fc.assert(property, {
            numRuns: RUNS,
            // other inputs for each route and caller, all following from FUZZ_SEED
            seed: SEED + routeIndex * CALLERS.length + callerIndex,
            examples: [[plainCall(route, caller)]],
          })
        }
      },
      60_000 + RUNS * CALLERS.length * 1000,
    )
  }

  it('got past sign-in: every plain GET of existing things answered 200', () => {
    const gets = routes.filter(
      (r) => r.method === 'GET' && r.params.every((p) => p.schema.format === 'uuid') && !r.file.includes('docs'),
    )
    expect(gets.length).toBeGreaterThan(15)
    const refused = gets.filter(
      (r) => !answered.get(`${r.method} ${r.path} ${r.open ? 'anonymous' : 'admin'}`)?.has(200),
    )
    expect(refused.map((r) => r.path)).toEqual([])
  })
})

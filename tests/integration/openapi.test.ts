import { beforeAll, describe, expect, it } from 'vitest'
import { documentedAnswer, documentedCalls, openApiDocument } from '#app/modules/api-docs/openapi.server.ts'
import { REFERENCE_PAGE_POLICY } from '#app/modules/api-docs/reference-page.server.ts'
import { apiRoutes, routeModule } from '#tests/api-routes.ts'
import {
  assignCourse,
  makeAdmin,
  makeCourse,
  makeDocument,
  makeLab,
  makeLearner,
  makeProgram,
  PASSWORD,
  recordLabAttempt,
  recordWatched,
} from '#tests/factories.ts'
import { call } from '#tests/requests.ts'

// The OpenAPI document against the code: every /api route and method has its entry and no entry is
// without its route, and real answers of a sample of calls match the documented schemas.

/** Not calls of the API: the catch-all 404 and the reference page with its files. */
const NOT_CALLS = ['routes/api+/$.ts', 'routes/api+/docs.ts', 'routes/api+/docs_.$file.ts']

/** The methods a route answers, as its own 405 names them: no route handles PATCH, so each refuses it. */
async function methodsOf(file: string): Promise<string[]> {
  const response = await call(routeModule(file).action, '/x', { method: 'PATCH' })
  if (response.status !== 405) throw new Error(`${file} answered PATCH with ${response.status}, not 405`)
  return (response.headers.get('Allow') ?? '').split(/,\s*/).filter(Boolean)
}

describe('the OpenAPI document and the /api routes', () => {
  it('documents every route and method, and nothing else', async () => {
    const routes = await apiRoutes()
    expect(routes.map((r) => r.file)).toEqual(expect.arrayContaining(NOT_CALLS))
    const served: string[] = []
    for (const route of routes.filter((r) => !NOT_CALLS.includes(r.file)))
      for (const method of await methodsOf(route.file)) served.push(`${method} ${route.path}`)
    expect(served.length).toBeGreaterThan(40)
    const documented = documentedCalls()
    expect({
      undocumented: served.filter((c) => !documented.includes(c)),
      withoutRoute: documented.filter((c) => !served.includes(c)),
    }).toEqual({ undocumented: [], withoutRoute: [] })
  })

  it('is OpenAPI 3.1 whose every $ref resolves and whose every call answers 200', () => {
    const document = openApiDocument()
    expect(document.openapi).toBe('3.1.0')
    const refs: string[] = []
    JSON.stringify(document, (key, value: unknown) => {
      if (key === '$ref' && typeof value === 'string') refs.push(value)
      return value
    })
    expect(refs.length).toBeGreaterThan(50)
    const unresolved = refs.filter((ref) => {
      if (!ref.startsWith('#/')) return true
      let node: unknown = document
      for (const part of ref.slice(2).split('/'))
        node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined
      return node === undefined
    })
    expect(unresolved).toEqual([])
    const schemes = Object.keys(document.components?.securitySchemes ?? {})
    for (const [path, item] of Object.entries(document.paths ?? {}))
      for (const [method, operation] of Object.entries(item as Record<string, { responses: object; security: [] }>)) {
        expect(Object.keys(operation.responses), `${method} ${path}`).toContain('200')
        for (const requirement of operation.security)
          expect(schemes).toEqual(expect.arrayContaining(Object.keys(requirement)))
      }
  })

  it('serves the document at /api/openapi.json', async () => {
    const response = await call(routeModule('routes/api+/openapi[.]json.ts').loader, '/api/openapi.json')
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toMatch(/^application\/json/)
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(openApiDocument())))
  })

  it('serves a reference page at /api/docs whose every file comes from this server', async () => {
    const page = await call(routeModule('routes/api+/docs.ts').loader, '/api/docs')
    expect(page.status).toBe(200)
    expect(page.headers.get('Content-Security-Policy')).toBe(REFERENCE_PAGE_POLICY)
    const html = await page.text()
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
    expect(urls.filter((url) => !url.startsWith('/'))).toEqual([])
    const files = urls.filter((url) => url.startsWith('/api/docs/'))
    expect(files).toEqual(['/api/docs/swagger-ui.css', '/api/docs/swagger-ui-bundle.js', '/api/docs/reference.js'])
    const fileRoute = routeModule('routes/api+/docs_.$file.ts')
    for (const url of files) {
      const response = await call(fileRoute.loader, url, { params: { file: url.split('/').at(-1) ?? '' } })
      expect(response.status, url).toBe(200)
      expect(response.headers.get('Content-Type'), url).toMatch(
        url.endsWith('.css') ? /^text\/css/ : /^text\/javascript/,
      )
      expect((await response.arrayBuffer()).byteLength, url).toBe(Number(response.headers.get('Content-Length')))
    }
    expect(
      await (await call(fileRoute.loader, '/api/docs/reference.js', { params: { file: 'reference.js' } })).text(),
    ).toContain("url: '/api/openapi.json'")
    const other = await call(fileRoute.loader, '/api/docs/package.json', { params: { file: 'package.json' } })
    expect(other.status).toBe(404)
  })
})

describe('real answers match the documented schemas', () => {
  let admin: Awaited<ReturnType<typeof makeAdmin>>
  let learner: Awaited<ReturnType<typeof makeLearner>>
  let course: Awaited<ReturnType<typeof makeCourse>>

  beforeAll(async () => {
    admin = await makeAdmin()
    learner = await makeLearner()
    course = await makeCourse({ videos: [{ duration: 100 }, { duration: null, after: [0] }] })
    await makeDocument(course.id)
    await makeDocument(course.id, { kind: 'scenario' })
    await assignCourse(learner.id, course.id)
    await makeProgram([course.id])
    await recordWatched(learner.id, course.id, course.videos[0], 40)
  })

  /** Call a documented route as `token` and check the answer against the document; the body for more checks. */
  async function answer(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    options: { token?: string; json?: unknown; params?: Record<string, string>; query?: string; status?: number },
  ) {
    const route = (await apiRoutes()).find((r) => r.path === path)
    if (!route) throw new Error(`No route for ${path}`)
    const module = routeModule(route.file)
    const response = await call(method === 'GET' ? module.loader : module.action, `${path}${options.query ?? ''}`, {
      method,
      token: options.token,
      json: options.json,
      params: options.params,
    })
    const status = options.status ?? 200
    expect(response.status, `${method} ${path}`).toBe(status)
    const json: unknown = await response.json()
    const checked = documentedAnswer(method, path, status).safeParse(json)
    expect(checked.error?.issues ?? [], `${method} ${path} ${status}`).toEqual([])
    return json as Record<string, unknown[] & Record<string, unknown>>
  }

  it('for signing in, and a refused sign-in', async () => {
    await answer('POST', '/api/user/login', { json: { email: learner.userName, password: PASSWORD } })
    await answer('POST', '/api/user/login', { json: { email: learner.userName, password: 'wrong' }, status: 401 })
  })

  it('for profiles and the user lists', async () => {
    await answer('GET', '/api/user/profile', { token: learner.token })
    await answer('GET', '/api/user/profile/{userId}', { token: admin.token, params: { userId: learner.id } })
    expect((await answer('GET', '/api/user/usersList/user', { token: admin.token })).message.length).toBeGreaterThan(0)
    const page = await answer('GET', '/api/user/usersList/admin', { token: admin.token, query: '?page=1&size=1' })
    expect(page).toMatchObject({ page: 1, size: 1 })
    await answer('GET', '/api/user/usersList/user', { token: learner.token, status: 403 })
  })

  it('for courses, their contents and progress', async () => {
    expect((await answer('GET', '/api/category/coursesList', { token: admin.token })).courses.length).toBeGreaterThan(0)
    await answer('GET', '/api/category/coursesList', { token: admin.token, query: '?page=1&size=1' })
    await answer('GET', '/api/category/courses', { token: learner.token })
    const detail = await answer('GET', '/api/category/course/{courseId}', {
      token: admin.token,
      params: { courseId: course.id },
    })
    expect(detail.message).toMatchObject({ videos: [{}, {}], documents: [{}], scenarios: [{}] })
    await answer('GET', '/api/category/courseMeta/{courseId}', { token: admin.token, params: { courseId: course.id } })
    const assigned = await answer('GET', '/api/category/assignedCourses/{userId}', {
      token: learner.token,
      params: { userId: learner.id },
    })
    expect(assigned.message).toMatchObject({ assignedCourses: [{ _id: course.id }] })
    const progress = await answer('POST', '/api/category/getVideosProgress', {
      token: learner.token,
      json: { userId: learner.id, courseId: course.id },
    })
    expect(progress.data.length).toBe(1)
  })

  it('for programs and the access log, and a refused filter', async () => {
    expect((await answer('GET', '/api/program/getPrograms', { token: learner.token })).data.length).toBeGreaterThan(0)
    const lab = await makeLab(course.id)
    await recordLabAttempt(learner.id, lab.exercises[0].id, true)
    // lab rows only when asked for: the old client reads every row as a video
    const log = await answer('POST', '/api/category/accessLog', { token: admin.token, json: { courses: [course.id] } })
    expect(log.data.length).toBe(1)
    const withLabs = await answer('POST', '/api/category/accessLog', {
      token: admin.token,
      json: { courses: [course.id], includeLabs: true },
    })
    expect(withLabs.data.map((row) => (row as { kind: string }).kind)).toEqual(['lab', 'video'])
    await answer('GET', '/api/category/allusers', { token: admin.token, query: '?page=1&size=10' })
    const refused = await answer('POST', '/api/category/accessLog', {
      token: admin.token,
      json: { startDate: 'someday' },
      status: 400,
    })
    expect(refused).toMatchObject({ errors: { startDate: 'Start date must be a date.' } })
  })

  it('for a refused registration, with its field errors at the top level too', async () => {
    const refused = await answer('POST', '/api/user/register', {
      token: admin.token,
      json: { firstName: 'Al' },
      status: 400,
    })
    expect(refused).toMatchObject({ errors: { firstName: expect.any(String) }, firstName: expect.any(String) })
  })
})

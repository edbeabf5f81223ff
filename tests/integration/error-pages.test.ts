import type http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { type LoaderFunctionArgs } from '@remix-run/node'
import { pino } from 'pino'
import { createElement } from 'react'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { conflict, forbidden } from '#app/modules/errors.ts'
import * as root from '#app/root.tsx'
import * as notFoundPage from '#app/routes/$.tsx'
import * as learnerLayout from '#app/routes/_learner+/_layout.tsx'
import * as learnerCourse from '#app/routes/_learner+/course.$courseId._index.tsx'
import * as publicLayout from '#app/routes/_public+/_layout.tsx'
import * as courseView from '#app/routes/_public+/course-view.$courseId.tsx'
import * as adminLayout from '#app/routes/admin+/_layout.tsx'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { makeAdmin, makeCourse, makeLearner } from '#tests/factories.ts'
import { sessionCookieFor } from '#tests/sessions.ts'
import { standInBuild, type StandInRoute } from '#tests/stand-in-build.ts'
import { createApp } from '../../server/web-server.js'

// Error pages through the web server and Remix's handler, with the real root, layouts and boundary: a
// page loader's refusal answers with its own status (403, 409, not a 500) and says what happened and
// where to go; a failure is a 500 that shows nothing of the error. The route table is written here
// (as security-headers.test.ts does) so no `remix build` is needed; the refusing pages are this
// test's own, mounted in the real layouts.

const REFUSALS: Record<string, () => never> = {
  '403': () => {
    throw forbidden('Only the course’s coach may open this report.')
  },
  '409': () => {
    throw conflict('This export is running; wait for it to finish.')
  },
  '500': () => {
    throw new Error('connection to the database lost at pg/lib/client.js:123')
  },
}

/** A page whose loader refuses as its URL says, through pageLoader like every page's. */
const refusingPage = {
  loader: (args: LoaderFunctionArgs) => pageLoader(args, ({ params }) => REFUSALS[params.status ?? '500']()),
  default: () => null,
  ErrorBoundary: () => createElement(GeneralErrorBoundary),
}

const routes: Record<string, StandInRoute> = {
  root: { id: 'root', path: '', module: root },
  'routes/_learner+/_layout': { id: 'routes/_learner+/_layout', parentId: 'root', module: learnerLayout },
  'routes/_learner+/refused': {
    id: 'routes/_learner+/refused',
    parentId: 'routes/_learner+/_layout',
    path: 'refused/:status',
    module: refusingPage,
  },
  'routes/_learner+/course.$courseId._index': {
    id: 'routes/_learner+/course.$courseId._index',
    parentId: 'routes/_learner+/_layout',
    path: 'course/:courseId',
    index: true,
    module: learnerCourse,
  },
  'routes/admin+/_layout': { id: 'routes/admin+/_layout', parentId: 'root', path: 'admin', module: adminLayout },
  'routes/admin+/refused': {
    id: 'routes/admin+/refused',
    parentId: 'routes/admin+/_layout',
    path: 'refused/:status',
    module: refusingPage,
  },
  'routes/_public+/_layout': { id: 'routes/_public+/_layout', parentId: 'root', module: publicLayout },
  'routes/_public+/course-view.$courseId': {
    id: 'routes/_public+/course-view.$courseId',
    parentId: 'routes/_public+/_layout',
    path: 'course-view/:courseId',
    module: courseView,
  },
  'routes/$': { id: 'routes/$', parentId: 'root', path: '*', module: notFoundPage },
}

const build = () => standInBuild(routes)

let server: http.Server
let base: string
const cookies = { learner: '', admin: '' }

beforeAll(async () => {
  // sign in before the server installs Remix's globals (Headers without getSetCookie)
  const [learner, admin] = await Promise.all([makeLearner(), makeAdmin()])
  cookies.learner = await sessionCookieFor(learner.userName)
  cookies.admin = await sessionCookieFor(admin.userName)
  resetEnvCache()
  const logger = pino({ level: 'silent' }, new Writable({ write: (_line, _encoding, done) => done() }))
  server = createApp({ build: build(), logger, metrics: undefined }).listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

async function page(path: string, cookie?: string) {
  const response = await fetch(`${base}${path}`, { headers: cookie ? { Cookie: cookie } : {}, redirect: 'manual' })
  const html = await response.text()
  // the text a reader sees, without tags, scripts or the data handed to the browser
  const text = html
    .replace(/<script\b[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, ' ')
  return { status: response.status, html, text, response }
}

describe('a page loader refused by its service', () => {
  it('answers 403 with what happened, the reason and a way back to the learner’s home, in the header', async () => {
    const { status, text, html } = await page('/refused/403', cookies.learner)
    expect(status).toBe(403)
    expect(text).toContain('Error 403')
    expect(text).toContain('Not available to you')
    expect(text).toContain('Only the course’s coach may open this report.')
    expect(html).toMatch(/<a[^>]*href="\/courses"[^>]*>Go to My Courses<\/a>/)
    // the learner layout's header is still there, and the page has one main landmark
    expect(html).toContain('aria-label="Main"')
    expect(html.match(/<main[\s>]/g)).toHaveLength(1)
  })

  it('answers 409 with what happened and a way back to the admin dashboard, in the admin layout', async () => {
    const { status, text, html } = await page('/admin/refused/409', cookies.admin)
    expect(status).toBe(409)
    expect(text).toContain('Error 409')
    expect(text).toContain('That cannot be done right now')
    expect(text).toContain('This export is running; wait for it to finish.')
    expect(html).toMatch(/<a[^>]*href="\/admin\/dashboard"[^>]*>Go to the admin dashboard<\/a>/)
    expect(text).toContain('Administration')
    expect(html.match(/<main[\s>]/g)).toHaveLength(1)
  })

  it('answers 404 for an unknown course, with the public home and sign-in for a visitor', async () => {
    const { status, text, html } = await page('/course-view/4f4b3e8e-5a1d-4c5e-9a57-0d6f3f4b7a10')
    expect(status).toBe(404)
    expect(text).toContain('Page not found')
    expect(text).toContain('Course not found.')
    expect(html).toMatch(/<a[^>]*href="\/"[^>]*>Go to the home page<\/a>/)
    expect(html).toMatch(/<a[^>]*href="\/sign-in"[^>]*>Sign in<\/a>/)
    expect(html.match(/<main[\s>]/g)).toHaveLength(1)
  })

  it('still sends a learner back to My Courses with a toast for a course not assigned to them', async () => {
    const course = await makeCourse()
    const { status, response } = await page(`/course/${course.id}`, cookies.learner)
    expect(status).toBe(302)
    expect(new URL(response.headers.get('Location') ?? '', base).pathname).toBe('/courses')
  })
})

describe('a page that fails', () => {
  it('answers 500 saying it went wrong on our side, with no error or stack trace, and a way back', async () => {
    const { status, text, html } = await page('/refused/500', cookies.learner)
    expect(status).toBe(500)
    expect(text).toContain('Something went wrong on our side')
    // what the page shows (Remix itself leaves the error out of the page's data in production)
    expect(text).not.toContain('database lost')
    expect(text).not.toContain('client.js')
    expect(text).not.toMatch(/\bat \S+ \(/)
    expect(html).toMatch(/<a[^>]*href="\/courses"[^>]*>Go to My Courses<\/a>/)
  })
})

import { type LoaderFunctionArgs } from '@remix-run/node'
import { within } from '@testing-library/dom'
import { createElement } from 'react'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { conflict, forbidden } from '#app/modules/errors.ts'
import * as root from '#app/root.tsx'
import * as learnerLayout from '#app/routes/_learner+/_layout.tsx'
import * as learnerCourse from '#app/routes/_learner+/course.$courseId._index.tsx'
import * as notFoundPage from '#app/routes/_public+/$.tsx'
import * as publicLayout from '#app/routes/_public+/_layout.tsx'
import * as courseView from '#app/routes/_public+/course-view.$courseId.tsx'
import * as adminLayout from '#app/routes/admin+/_layout.tsx'
import { pageLoader } from '#app/utils/pages.server.ts'
import { makeCourse } from '#tests/factories.ts'
import { parsePage } from '#tests/render.tsx'
import { signedInPeople, type SignedInPerson } from '#tests/sessions.ts'
import { serve, standInBuild, type OwnRoute } from '#tests/stand-in-build.ts'

// Error pages through the web server and Remix's handler, with the real root, layouts and boundary: a
// page loader's refusal answers with its own status (403, 409, not a 500) and says what happened and
// where to go; a failure is a 500 that shows nothing of the error. The build is a stand-in
// (tests/stand-in-build.ts) so no `remix build` is needed; the refusing pages are this test's own,
// mounted in the real layouts.

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

const appRoutes = {
  root,
  'routes/_learner+/_layout': learnerLayout,
  'routes/_learner+/course.$courseId._index': learnerCourse,
  'routes/admin+/_layout': adminLayout,
  'routes/_public+/_layout': publicLayout,
  'routes/_public+/course-view.$courseId': courseView,
  'routes/_public+/$': notFoundPage,
}
const refusingRoutes: Record<string, OwnRoute> = {
  'routes/_learner+/refused': { parentId: 'routes/_learner+/_layout', path: 'refused/:status', module: refusingPage },
  'routes/admin+/refused': { parentId: 'routes/admin+/_layout', path: 'refused/:status', module: refusingPage },
}

let server: Awaited<ReturnType<typeof serve>>
let base: string
let people: Record<'learner' | 'admin', SignedInPerson>

beforeAll(async () => {
  // sign in before the server installs Remix's globals (Headers without getSetCookie)
  people = await signedInPeople('learner', 'admin')
  server = await serve(await standInBuild(appRoutes, refusingRoutes))
  base = server.base
})

afterAll(() => server.close())

async function page(path: string, cookie?: string) {
  const response = await fetch(`${base}${path}`, { headers: cookie ? { Cookie: cookie } : {}, redirect: 'manual' })
  // the page as a browser shows it, without running its scripts or reading the data handed to them
  return { status: response.status, page: parsePage(await response.text()), response }
}

/**
 * The error page as a reader finds it: the status, what it says, the link back it offers, and one main
 * landmark (the layout's, not a second one of the boundary's).
 */
function expectErrorPage(
  shown: Awaited<ReturnType<typeof page>>,
  expected: { status: number; says: string[]; wayBack: { href: string; name: string } },
) {
  expect(shown.status).toBe(expected.status)
  for (const words of expected.says) expect(shown.page.getByText(words)).toBeVisible()
  expect(shown.page.getByRole('link', { name: expected.wayBack.name })).toHaveAttribute('href', expected.wayBack.href)
  expect(shown.page.getAllByRole('main')).toHaveLength(1)
}

describe('a page loader refused by its service', () => {
  it('answers 403 with what happened, the reason and a way back to the learner’s home, in the header', async () => {
    const shown = await page('/refused/403', people.learner.cookie)
    expectErrorPage(shown, {
      status: 403,
      says: ['Error 403', 'Not available to you', 'Only the course’s coach may open this report.'],
      wayBack: { href: '/courses', name: 'Go to My Courses' },
    })
    // the learner layout's header is still there
    expect(shown.page.getByRole('navigation', { name: 'Main' })).toBeInTheDocument()
  })

  it('answers 409 with what happened and a way back to the admin dashboard, in the admin layout', async () => {
    const shown = await page('/admin/refused/409', people.admin.cookie)
    expectErrorPage(shown, {
      status: 409,
      says: ['Error 409', 'That cannot be done right now', 'This export is running; wait for it to finish.'],
      wayBack: { href: '/admin/dashboard', name: 'Go to the admin dashboard' },
    })
    expect(shown.page.getByText('Administration')).toBeInTheDocument()
  })

  it('answers 404 for an unknown course, with the public home and sign-in for a visitor', async () => {
    const shown = await page('/course-view/4f4b3e8e-5a1d-4c5e-9a57-0d6f3f4b7a10')
    expectErrorPage(shown, {
      status: 404,
      says: ['Page not found', 'Course not found.'],
      wayBack: { href: '/', name: 'Go to the home page' },
    })
    for (const signIn of shown.page.getAllByRole('link', { name: 'Sign in' }))
      expect(signIn).toHaveAttribute('href', '/sign-in')
  })

  it('answers 404 for an address that is no page, under the site header of the one who asked', async () => {
    const learner = await page('/no-such-page', people.learner.cookie)
    expectErrorPage(learner, {
      status: 404,
      says: ['Page not found'],
      wayBack: { href: '/courses', name: 'Go to My Courses' },
    })
    const learnerNav = learner.page.getByRole('navigation', { name: 'Main' })
    expect(within(learnerNav).getByRole('link', { name: 'My Courses' })).toHaveAttribute('href', '/courses')

    const visitor = await page('/no-such-page')
    expect(visitor.status).toBe(404)
    const visitorNav = visitor.page.getByRole('navigation', { name: 'Main' })
    expect(within(visitorNav).getByRole('link', { name: 'Courses' })).toHaveAttribute('href', '/explore-courses')
  })

  it('still sends a learner back to My Courses with a toast for a course not assigned to them', async () => {
    const course = await makeCourse()
    const { status, response } = await page(`/course/${course.id}`, people.learner.cookie)
    expect(status).toBe(302)
    expect(new URL(response.headers.get('Location') ?? '', base).pathname).toBe('/courses')
  })
})

describe('a page that fails', () => {
  it('answers 500 saying it went wrong on our side, with no error or stack trace, and a way back', async () => {
    const { status, page: shown } = await page('/refused/500', people.learner.cookie)
    expect(status).toBe(500)
    expect(shown.getByRole('heading', { level: 1, name: 'Something went wrong on our side' })).toBeVisible()
    // what the page shows (Remix itself leaves the error out of the page's data in production)
    expect(shown.queryByText(/database lost/)).toBeNull()
    expect(shown.queryByText(/client\.js/)).toBeNull()
    expect(shown.queryByText(/\bat \S+ \(/)).toBeNull()
    expect(shown.getByRole('link', { name: 'Go to My Courses' })).toHaveAttribute('href', '/courses')
  })
})

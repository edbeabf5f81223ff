import { randomUUID } from 'node:crypto'
import { SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { BRIDGE_REFUSED } from '#app/modules/bridge/schema.ts'
import {
  bridgeLinkUrl,
  mintBridgeLink,
  purgeSpentBridgeTokens,
  signBridgeToken,
} from '#app/modules/bridge/service.server.ts'
import { loader as bridgeLoader } from '#app/routes/_auth+/ibridge.$ilearn.($courseId).tsx'
import { loader as courseLoader } from '#app/routes/_learner+/course.$courseId._index.tsx'
import { loader as coursesLoader } from '#app/routes/_learner+/courses.tsx'
import { loader as adminLayoutLoader } from '#app/routes/admin+/_layout.tsx'
import {
  action as checkCourseAction,
  loader as checkCourseLoader,
} from '#app/routes/api+/ibridge.checkIbridgeCourses.ts'
import { action as bridgeUserAction, loader as bridgeUserLoader } from '#app/routes/api+/ibridge.user.$ilearn.ts'
import { loader as profileLoader } from '#app/routes/api+/user.profile.ts'
import { getSecrets } from '#app/utils/env.server.ts'
import { db } from '#db/client.ts'
import { portal } from '#tests/cli.ts'
import {
  assignCourse,
  assignProgram,
  makeAdmin,
  makeCoach,
  makeCourse,
  makeLearner,
  makeProgram,
  makeSuperAdmin,
} from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'
import { toastOf } from '#tests/sessions.ts'

// The external bridge (docs/product.md#bridge-links): a partner signs a 5-minute, single-use HS256 token naming the
// learner; the link signs them in and opens the course, or refuses and signs nobody in.

const now = () => Math.floor(Date.now() / 1000)
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** A token as a partner (or an attacker) might make it; by default a valid one. */
async function partnerToken(
  sub: string,
  options: {
    iat?: number
    exp?: number
    jti?: string | null
    alg?: 'HS256' | 'HS512'
    secret?: string
    omit?: ('iat' | 'exp')[]
  } = {},
) {
  const iat = options.iat ?? now()
  const jwt = new SignJWT({}).setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' }).setSubject(sub)
  if (options.jti !== null) jwt.setJti(options.jti ?? randomUUID())
  if (!options.omit?.includes('iat')) jwt.setIssuedAt(iat)
  if (!options.omit?.includes('exp')) jwt.setExpirationTime(options.exp ?? iat + 300)
  return jwt.sign(new TextEncoder().encode(options.secret ?? getSecrets().bridgeSecret))
}

/** The `alg: none` trick: a header, a payload, and no signature at all. */
const unsignedToken = (sub: string) =>
  `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub, jti: randomUUID(), iat: now(), exp: now() + 300 })}.`

/** Open a link path the way the browser does; the route's params as remix-flat-routes gives them. */
function open(linkPath: string, init: RequestInit = {}) {
  const [, , first = '', second] = linkPath.split('/').map(decodeURIComponent)
  const params: Record<string, string> = { ilearn: first }
  if (second !== undefined) params.courseId = second
  return call(bridgeLoader, linkPath, { ...init, params })
}
const courseLink = (token: string, courseId: string) => `/ibridge/${token}/${courseId}`

function sessionCookie(response: Response) {
  return response.headers
    .getSetCookie()
    .find((c) => c.startsWith('__portal_session='))
    ?.split(';')[0]
}

/** A refusal: the status, the reason for the error page, no session cookie, nowhere to go. */
async function expectRefused(response: Response, status: 401 | 403, message: string) {
  expect(response.status).toBe(status)
  expect(response.headers.get('Location')).toBeNull()
  expect(sessionCookie(response)).toBeUndefined()
  expect(await body(response)).toEqual({ message })
}

const checkCourse = (json: unknown) =>
  call(checkCourseAction, '/api/ibridge/checkIbridgeCourses', { method: 'POST', json })
const bridgeUser = (token: string) =>
  call(bridgeUserLoader, `/api/ibridge/user/${token}`, { params: { ilearn: token } })

describe('the /ibridge/{token}/{courseId} link', () => {
  it('signs the learner in and opens a course assigned to them', async () => {
    const learner = await makeLearner()
    const course = await makeCourse({ videos: [{}] })
    await assignCourse(learner.id, course.id)

    const response = await open(courseLink(await partnerToken(learner.email), course.id))
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe(`/course/${course.id}`)
    expect(response.headers.get('Set-Cookie')).toMatch(/HttpOnly/i)
    const cookie = sessionCookie(response)
    expect(cookie).toBeDefined()

    // the cookie is a real session: it opens the learner's pages
    const page = await call(courseLoader, `/course/${course.id}`, {
      headers: { Cookie: cookie! },
      params: { courseId: course.id },
    })
    expect(page.status).toBe(200)
    expect(((await page.json()) as { course: { title: string } }).course.title).toBe(course.title)
    expect((await call(coursesLoader, '/courses', { headers: { Cookie: cookie! } })).status).toBe(200)
  })

  it('finds the learner by external id as well as by email (in any case)', async () => {
    const learner = await makeLearner()
    const course = await makeCourse()
    await assignCourse(learner.id, course.id)
    const { User } = await db()
    await User.update({ externalId: `ext-${learner.id}` }, { where: { id: learner.id } })

    for (const sub of [`ext-${learner.id}`, learner.email.toUpperCase()]) {
      const response = await open(courseLink(await partnerToken(sub), course.id))
      expect(response.headers.get('Location')).toBe(`/course/${course.id}`)
      expect(sessionCookie(response)).toBeDefined()
    }
  })

  it('opens a course assigned through a program', async () => {
    const learner = await makeLearner()
    const course = await makeCourse()
    const program = await makeProgram([course.id])
    await assignProgram(learner.id, program.id)

    const response = await open(courseLink(await partnerToken(learner.email), course.id))
    expect(response.headers.get('Location')).toBe(`/course/${course.id}`)
  })

  it('signs the learner in but opens My Courses with a toast for a course that is not theirs', async () => {
    const learner = await makeLearner()
    const someoneElses = await makeCourse()
    for (const courseId of [someoneElses.id, randomUUID(), 'not-a-course']) {
      const response = await open(courseLink(await partnerToken(learner.email), courseId))
      expect(response.status).toBe(302)
      expect(response.headers.get('Location')).toBe('/courses')
      expect(await toastOf(response)).toMatchObject({ type: 'error', message: 'This course is not assigned to you.' })
      const cookie = sessionCookie(response)
      expect((await call(coursesLoader, '/courses', { headers: { Cookie: cookie! } })).status).toBe(200)
    }
  })
})

describe('the /ibridge/program/{token} and /ibridge/admin/{token} links', () => {
  it('open My Courses for the program link', async () => {
    const learner = await makeLearner()
    const response = await open(`/ibridge/program/${await partnerToken(learner.email)}`)
    expect(response.headers.get('Location')).toBe('/courses')
    expect(await toastOf(response)).toBeUndefined()
    const cookie = sessionCookie(response)
    expect((await call(coursesLoader, '/courses', { headers: { Cookie: cookie! } })).status).toBe(200)
    // a token with no course after it opens My Courses too
    const bare = await open(`/ibridge/${await partnerToken(learner.email)}`)
    expect(bare.headers.get('Location')).toBe('/courses')
    expect(sessionCookie(bare)).toBeDefined()
  })

  it('open the admin dashboard for admins and coaches, never for the super admin', async () => {
    const superAdmin = await makeSuperAdmin()
    await expectRefused(
      await open(`/ibridge/admin/${await partnerToken(superAdmin.email)}`),
      403,
      BRIDGE_REFUSED.superAdmin,
    )
    for (const user of [await makeAdmin(), await makeCoach()]) {
      const response = await open(`/ibridge/admin/${await partnerToken(user.email)}`)
      expect(response.headers.get('Location')).toBe('/admin/dashboard')
      const cookie = sessionCookie(response)
      const dashboard = await call(adminLayoutLoader, '/admin/dashboard', { headers: { Cookie: cookie! } })
      expect(dashboard.status).toBe(200)
    }
  })

  it("refuse a learner's token on the admin link with 403", async () => {
    const learner = await makeLearner()
    const response = await open(`/ibridge/admin/${await partnerToken(learner.email)}`)
    await expectRefused(response, 403, BRIDGE_REFUSED.notAdmin)
  })
})

describe('a token that cannot be used', () => {
  const cases: [string, (sub: string) => Promise<string> | string, string][] = [
    ['signed with another secret', (sub) => partnerToken(sub, { secret: 'not-the-bridge-secret-at-all' }), 'invalid'],
    ['expired', (sub) => partnerToken(sub, { iat: now() - 400, exp: now() - 100 }), 'expired'],
    ['valid for more than 5 minutes', (sub) => partnerToken(sub, { exp: now() + 301 }), 'invalid'],
    ['issued in the future', (sub) => partnerToken(sub, { iat: now() + 3600 }), 'invalid'],
    ['without a jti', (sub) => partnerToken(sub, { jti: null }), 'invalid'],
    ['without an exp', (sub) => partnerToken(sub, { omit: ['exp'] }), 'invalid'],
    ['without an iat', (sub) => partnerToken(sub, { omit: ['iat'], exp: now() + 60 }), 'invalid'],
    ['with alg none', (sub) => unsignedToken(sub), 'invalid'],
    ['signed HS512 with the right secret', (sub) => partnerToken(sub, { alg: 'HS512' }), 'invalid'],
    ['garbage', () => 'this-is-not-a-token', 'invalid'],
    ['a header and payload with a bad signature', (sub) => unsignedToken(sub) + 'c2lnbmF0dXJl', 'invalid'],
    ['for nobody we know', () => partnerToken('nobody-here@example.com'), 'noAccount'],
  ]

  it.each(cases)('is refused when %s, and signs nobody in', async (_, make, reason) => {
    const learner = await makeLearner()
    const course = await makeCourse()
    await assignCourse(learner.id, course.id)
    const token = await make(learner.email)
    const message = BRIDGE_REFUSED[reason as keyof typeof BRIDGE_REFUSED]

    await expectRefused(await open(courseLink(token, course.id)), 401, message)
    await expectRefused(await open(`/ibridge/program/${token}`), 401, message)
    await expectRefused(await open(`/ibridge/admin/${token}`), 401, message)
    await expectRefused(await checkCourse({ ilearn: token, courseId: course.id }), 401, message)
    await expectRefused(await bridgeUser(token), 401, message)
  })

  it('is refused the second time: page then page, page then API, API then page', async () => {
    const learner = await makeLearner()
    const course = await makeCourse()
    await assignCourse(learner.id, course.id)

    const twice = await partnerToken(learner.email)
    expect((await open(courseLink(twice, course.id))).headers.get('Location')).toBe(`/course/${course.id}`)
    await expectRefused(await open(courseLink(twice, course.id)), 401, BRIDGE_REFUSED.used)
    await expectRefused(await open(`/ibridge/program/${twice}`), 401, BRIDGE_REFUSED.used)

    const pageThenApi = await partnerToken(learner.email)
    expect((await open(`/ibridge/program/${pageThenApi}`)).status).toBe(302)
    await expectRefused(await checkCourse({ ilearn: pageThenApi, courseId: course.id }), 401, BRIDGE_REFUSED.used)
    await expectRefused(await bridgeUser(pageThenApi), 401, BRIDGE_REFUSED.used)

    const apiThenPage = await partnerToken(learner.email)
    expect((await bridgeUser(apiThenPage)).status).toBe(200)
    await expectRefused(await open(courseLink(apiThenPage, course.id)), 401, BRIDGE_REFUSED.used)
  })

  it('is refused for a reused jti even in a freshly signed token', async () => {
    const learner = await makeLearner()
    const jti = randomUUID()
    expect((await open(`/ibridge/program/${await partnerToken(learner.email, { jti })}`)).status).toBe(302)
    const again = await partnerToken(learner.email, { jti, iat: now() + 1 })
    await expectRefused(await open(`/ibridge/program/${again}`), 401, BRIDGE_REFUSED.used)
  })

  it('of two uses at the same moment, lets exactly one through', async () => {
    const learner = await makeLearner()
    const token = await partnerToken(learner.email)
    const responses = await Promise.all(Array.from({ length: 5 }, () => open(`/ibridge/program/${token}`)))
    expect(responses.map((r) => r.status).sort()).toEqual([302, 401, 401, 401, 401])
  })

  it('is not spent by a HEAD request (a link checker)', async () => {
    const learner = await makeLearner()
    const token = await partnerToken(learner.email)
    const head = await open(`/ibridge/program/${token}`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(sessionCookie(head)).toBeUndefined()
    expect((await open(`/ibridge/program/${token}`)).headers.get('Location')).toBe('/courses')
  })
})

describe('POST /api/ibridge/checkIbridgeCourses', () => {
  it('answers our token, the course and whether it is assigned', async () => {
    const learner = await makeLearner()
    const course = await makeCourse()
    await assignCourse(learner.id, course.id)
    const response = await checkCourse({ ilearn: await partnerToken(learner.email), courseId: course.id })
    expect(response.status).toBe(200)
    const data = await body<{ token: string }>(response)
    expect(data).toEqual({
      token: expect.any(String) as string,
      course: { _id: course.id, title: course.title },
      courseId: course.id,
      assigned: true,
    })
    const profile = await call(profileLoader, '/api/user/profile', { token: data.token })
    expect((await body<{ user: { _id: string } }>(profile)).user._id).toBe(learner.id)
  })

  it('says assigned: false for a course that is not theirs, or none', async () => {
    const learner = await makeLearner()
    const course = await makeCourse()
    const other = await checkCourse({ ilearn: await partnerToken(learner.email), courseId: course.id })
    expect(await body(other)).toMatchObject({ course: { _id: course.id, title: course.title }, assigned: false })
    const missing = randomUUID()
    const none = await checkCourse({ ilearn: await partnerToken(learner.email), courseId: missing })
    expect(await body(none)).toMatchObject({ course: null, courseId: missing, assigned: false })
  })

  it('answers 400 for a missing field without spending the token, and 405 for GET', async () => {
    const learner = await makeLearner()
    const token = await partnerToken(learner.email)
    const response = await checkCourse({ ilearn: token })
    expect(response.status).toBe(400)
    expect(await body(response)).toMatchObject({ errors: { courseId: 'courseId is required field.' } })
    expect((await checkCourse({ courseId: randomUUID() })).status).toBe(400)
    expect((await open(`/ibridge/program/${token}`)).status).toBe(302)
    expect((await call(checkCourseLoader, '/api/ibridge/checkIbridgeCourses')).status).toBe(405)
  })
})

describe('GET /api/ibridge/user/{ilearn}', () => {
  it('answers our token and the user with their role', async () => {
    for (const user of [await makeLearner(), await makeCoach()]) {
      const response = await bridgeUser(await partnerToken(user.email))
      expect(response.status).toBe(200)
      const data = await body<{ token: string; user: { _id: string; role: { r_id: number } } }>(response)
      expect(data.user).toMatchObject({ _id: user.id, role: { r_id: user.roleId }, email: user.email })
      const profile = await call(profileLoader, '/api/user/profile', { token: data.token })
      expect(profile.status).toBe(200)
    }
  })

  it('answers 405 for POST', async () => {
    expect((await call(bridgeUserAction, '/api/ibridge/user/x', { method: 'POST' })).status).toBe(405)
  })
})

describe('spent tokens', () => {
  it('are forgotten a day after they expire, not before', async () => {
    const { BridgeTokenUse } = await db()
    const hour = 60 * 60 * 1000
    const [old, recent] = [randomUUID(), randomUUID()]
    await BridgeTokenUse.bulkCreate([
      { jti: old, expiresAt: new Date(Date.now() - 25 * hour) },
      { jti: recent, expiresAt: new Date(Date.now() - 23 * hour) },
    ])
    await purgeSpentBridgeTokens()
    expect(await BridgeTokenUse.findByPk(old)).toBeNull()
    expect(await BridgeTokenUse.findByPk(recent)).not.toBeNull()
  })
})

describe('minting links for operators and tests', () => {
  it('signBridgeToken makes tokens the link accepts, and refuses a lifetime over 5 minutes', async () => {
    const learner = await makeLearner()
    const token = await signBridgeToken({ sub: learner.email, ttlSeconds: 60 })
    expect((await open(`/ibridge/program/${token}`)).headers.get('Location')).toBe('/courses')
    await expect(signBridgeToken({ sub: learner.email, ttlSeconds: 301 })).rejects.toThrow(/1 to 300 seconds/)
  })

  it('mintBridgeLink builds the link from PUBLIC_URL for a user named by email, username or external id', async () => {
    const learner = await makeLearner()
    const course = await makeCourse()
    await assignCourse(learner.id, course.id)
    const { url, courseAssigned } = await mintBridgeLink({
      user: learner.userName,
      target: { kind: 'course', courseId: course.id },
    })
    expect(url).toMatch(new RegExp(`^http://portal\\.test/ibridge/[\\w-]+\\.[\\w-]+\\.[\\w-]+/${course.id}$`))
    expect(courseAssigned).toBe(true)
    expect((await open(new URL(url).pathname)).headers.get('Location')).toBe(`/course/${course.id}`)
    expect(bridgeLinkUrl('t.o.k', { kind: 'admin' })).toBe('http://portal.test/ibridge/admin/t.o.k')
    const { User } = await db()
    await User.update({ externalId: `ext-${learner.id}` }, { where: { id: learner.id } })
    for (const named of [learner.email, `ext-${learner.id}`, learner.id]) {
      const minted = await mintBridgeLink({ user: ` ${named} `, target: { kind: 'program' } })
      expect(minted.user.id, named).toBe(learner.id)
    }

    await expect(mintBridgeLink({ user: 'nobody@example.com', target: { kind: 'program' } })).rejects.toThrow(/No user/)
    await expect(mintBridgeLink({ user: learner.email, target: { kind: 'admin' } })).rejects.toThrow(
      BRIDGE_REFUSED.notAdmin,
    )
    const superAdmin = await makeSuperAdmin()
    await expect(mintBridgeLink({ user: superAdmin.userName, target: { kind: 'program' } })).rejects.toThrow(
      BRIDGE_REFUSED.superAdmin,
    )
  })
})

describe('portal bridge link', () => {
  it('prints a working link for a course, by id or title', async () => {
    const learner = await makeLearner()
    const course = await makeCourse()
    await assignCourse(learner.id, course.id)
    const result = await portal(['bridge', 'link', '--user', learner.email, '--course', course.title])
    expect(result).toMatchObject({ code: 0 })
    const url = result.stdout.trim()
    expect(url.startsWith(`http://portal.test/ibridge/`)).toBe(true)
    expect(result.stderr).toMatch(/works once/)
    const response = await open(new URL(url).pathname)
    expect(response.headers.get('Location')).toBe(`/course/${course.id}`)
    expect(sessionCookie(response)).toBeDefined()
  })

  it('prints program and admin links, and explains what it cannot do', async () => {
    const admin = await makeAdmin()
    const adminLink = await portal(['bridge', 'link', '--user', admin.email, '--admin'])
    expect(adminLink.code).toBe(0)
    expect((await open(new URL(adminLink.stdout.trim()).pathname)).headers.get('Location')).toBe('/admin/dashboard')

    const learner = await makeLearner()
    const program = await portal(['bridge', 'link', '--user', learner.email, '--program'])
    expect(new URL(program.stdout.trim()).pathname).toMatch(/^\/ibridge\/program\//)

    expect((await portal(['bridge', 'link'])).code).toBe(2)
    expect((await portal(['bridge', 'link', '--user', learner.email, '--admin', '--program'])).code).toBe(2)
    const learnerAdmin = await portal(['bridge', 'link', '--user', learner.email, '--admin'])
    expect(learnerAdmin.code).toBe(2)
    const nobody = await portal(['bridge', 'link', '--user', 'nobody@example.com'])
    expect(nobody.code).toBe(1)
    expect(nobody.stderr).toContain('portal: No user with')
  })
})

import { SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { action as logoutAction } from '#app/routes/_auth+/logout.tsx'
import { loader as learnerLayoutLoader } from '#app/routes/_learner+/_layout.tsx'
import * as learnerProfilePage from '#app/routes/_learner+/editProfile.tsx'
import { loader as adminLayoutLoader } from '#app/routes/admin+/_layout.tsx'
import * as adminProfilePage from '#app/routes/admin+/editProfile.tsx'
import * as loginRoute from '#app/routes/api+/user.login.ts'
import * as profileRoute from '#app/routes/api+/user.profile.ts'
import { getSecrets } from '#app/utils/env.server.ts'
import { makeAdmin, makeLearner, PASSWORD } from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'
import { sessionCookieFor, toastOf } from '#tests/sessions.ts'

// How sessions end: logout ends the one session on the server, "Log out everywhere" ends all of a
// user's sessions and API tokens, and a token that never expires is not accepted at all.

const opensLearnerPages = async (cookie: string) =>
  (await call(learnerLayoutLoader, '/courses', { headers: { Cookie: cookie } })).status === 200
const apiAccepts = async (token: string) => (await call(profileRoute.loader as never, '/x', { token })).status === 200

async function apiToken(login: string) {
  return (
    await body<{ token: string }>(
      await call(loginRoute.action as never, '/x', {
        method: 'POST',
        json: { email: login, password: PASSWORD },
      }),
    )
  ).token
}

describe('logout', () => {
  it('ends the session on the server: the old cookie no longer opens pages, other sessions do', async () => {
    const learner = await makeLearner()
    const [cookie, otherDevice] = [await sessionCookieFor(learner.userName), await sessionCookieFor(learner.email)]
    expect(await opensLearnerPages(cookie)).toBe(true)
    const out = await call(logoutAction, '/logout', { method: 'POST', headers: { Cookie: cookie } })
    expect(out.headers.get('Location')).toBe('/')
    // a copy of the cookie kept from before the logout
    const replayed = await call(learnerLayoutLoader, '/courses', { headers: { Cookie: cookie } })
    expect(replayed.headers.get('Location')).toBe('/sign-in?redirectTo=%2Fcourses')
    expect(await opensLearnerPages(otherDevice)).toBe(true)
  })
})

describe('log out everywhere', () => {
  const pages = [
    { who: 'a learner', make: makeLearner, page: learnerProfilePage, path: '/editProfile', opens: opensLearnerPages },
    {
      who: 'an admin',
      make: makeAdmin,
      page: adminProfilePage,
      path: '/admin/editProfile',
      opens: async (cookie: string) =>
        (await call(adminLayoutLoader, '/admin/dashboard', { headers: { Cookie: cookie } })).status === 200,
    },
  ]

  for (const { who, make, page, path, opens } of pages) {
    it(`ends every session and API token of ${who}, from a plain form on the profile page`, async () => {
      const [user, bystander] = [await make(), await make()]
      const [here, elsewhere] = [await sessionCookieFor(user.userName), await sessionCookieFor(user.email)]
      const token = await apiToken(user.userName)
      const bystanderCookie = await sessionCookieFor(bystander.userName)
      expect(await opens(elsewhere)).toBe(true)
      expect(await apiAccepts(token)).toBe(true)

      const shown = await call(page.loader as never, path, { headers: { Cookie: here } })
      expect(shown.status).toBe(200)
      const answer = await call(page.action as never, path, {
        method: 'POST',
        headers: { Cookie: here, 'Sec-Fetch-Site': 'same-origin' },
        body: new URLSearchParams({ intent: 'logout-everywhere' }),
      })
      expect(answer.status).toBe(302)
      expect(answer.headers.get('Location')).toBe('/sign-in')
      expect(answer.headers.getSetCookie().join('\n')).toMatch(/__portal_session=;/)
      expect(await toastOf(answer)).toMatchObject({ type: 'success', message: expect.stringMatching(/everywhere/) })

      expect(await opens(here)).toBe(false)
      expect(await opens(elsewhere)).toBe(false)
      expect(await apiAccepts(token)).toBe(false)
      expect(await opens(bystanderCookie)).toBe(true)
      // signing in again works at once
      expect(await opens(await sessionCookieFor(user.userName))).toBe(true)
    })
  }

  it('refuses the form from another site and ends nothing', async () => {
    const learner = await makeLearner()
    const cookie = await sessionCookieFor(learner.userName)
    const answer = await call(learnerProfilePage.action as never, '/editProfile', {
      method: 'POST',
      headers: { Cookie: cookie, 'Sec-Fetch-Site': 'cross-site' },
      body: new URLSearchParams({ intent: 'logout-everywhere' }),
    })
    expect(answer.status).toBe(403)
    expect(await opensLearnerPages(cookie)).toBe(true)
  })
})

describe('tokens', () => {
  it('refuses a validly signed token without an expiry', async () => {
    const learner = await makeLearner()
    const forever = await new SignJWT({ r_id: learner.roleId, ver: 0 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(learner.id)
      .setIssuedAt()
      .sign(new TextEncoder().encode(getSecrets().jwtSecret))
    expect(await apiAccepts(forever)).toBe(false)
    // twice: the second answer may not come from what the process remembers of the first
    expect(await apiAccepts(forever)).toBe(false)
    expect(await apiAccepts(learner.token)).toBe(true)
  })
})

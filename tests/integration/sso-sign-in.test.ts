import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestPasswordReset } from '#app/modules/auth/password-links.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { login, userFromToken } from '#app/modules/auth/service.server.ts'
import { addProvider, updateProvider } from '#app/modules/sso/providers.server.ts'
import { action as logoutAction } from '#app/routes/_auth+/logout.tsx'
import { loader as signInLoader } from '#app/routes/_auth+/sign-in.tsx'
import { loader as startLoader } from '#app/routes/_auth+/sso.$provider.tsx'
import { action as backchannelAction } from '#app/routes/_auth+/sso.$provider_.backchannel-logout.ts'
import { loader as callbackLoader } from '#app/routes/_auth+/sso.$provider_.callback.tsx'
import { sessionToken } from '#app/utils/session.server.ts'
import { query, sql } from '#db/client.ts'
import { makeCourse, makeLearner, makeProgram, makeUser, PASSWORD } from '#tests/factories.ts'
import { signInAtProvider } from '#tests/oidc/browserless.ts'
import { startTestProvider, type TestAccount, type TestProvider } from '#tests/oidc/provider.ts'
import { BASE, body, call } from '#tests/requests.ts'

// Company sign-in against a real OpenID Connect provider (oidc-provider on loopback, its own login pages driven by
// fetch): a first sign-in creates the account and assigns the program its group maps to, the next finds the same
// account by subject, a local account is linked by a verified email, a required provider turns passwords off,
// sign-out goes on to the provider, and a back-channel logout ends the portal session. The attacks a real provider
// never makes are in sso-attacks.test.ts.

const SECRET = 'a-client-secret-of-the-tests'
const SLUG = 'acme'
const callbackPath = `/sso/${SLUG}/callback`

let provider: TestProvider
let receiver: http.Server
let logoutTokens: string[] = []
let programId: string

const alice: TestAccount = {
  sub: 'alice-at-acme',
  email: 'alice@acme.test',
  email_verified: true,
  given_name: 'Alice',
  family_name: 'Adams',
  groups: ['engineers'],
}
const bob: TestAccount = { sub: 'bob-at-acme', email: 'bob@acme.test', email_verified: true, groups: [] }
const carol: TestAccount = { sub: 'carol-at-acme', email: 'carol@acme.test', email_verified: false }
const dave: TestAccount = { sub: 'dave-elsewhere', email: 'dave@elsewhere.test', email_verified: true }

beforeAll(async () => {
  // the back-channel logout URI the provider posts to: a loopback receiver that keeps the tokens for the test to
  // hand to the portal's route, as the web server would
  receiver = http.createServer((req, res) => {
    let data = ''
    req.on('data', (chunk: Buffer) => (data += chunk.toString()))
    req.on('end', () => {
      const token = new URLSearchParams(data).get('logout_token')
      if (token) logoutTokens.push(token)
      res.end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`
  provider = await startTestProvider({
    clients: [
      {
        client_id: 'portal',
        client_secret: SECRET,
        redirect_uris: [`${BASE}${callbackPath}`],
        post_logout_redirect_uris: [`${BASE}/`],
        backchannel_logout_uri: receiverUrl,
      },
    ],
    accounts: [alice, bob, carol, dave],
  })
  const course = await makeCourse()
  programId = (await makeProgram([course.id])).id
  await addProvider(SYSTEM, {
    slug: SLUG,
    name: 'Acme',
    issuer: provider.issuer,
    clientId: 'portal',
    clientSecret: SECRET,
    domains: 'acme.test',
    scopes: 'openid email profile groups',
    createAccounts: true,
    rules: [{ group: 'engineers', kind: 'program', target: programId }],
  })
})

afterAll(async () => {
  await provider?.close()
  await new Promise((resolve) => receiver?.close(resolve))
})

const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0]

/** A whole sign-in as a browser makes it: the button, the provider's login page, back to the callback. */
async function signIn(login: string, start = `/sso/${SLUG}`) {
  const started = await call(startLoader, start, { params: { provider: SLUG } })
  expect(started.status).toBe(302)
  const stateCookie = cookieOf(started, '__portal_sso')!
  const back = await signInAtProvider(started.headers.get('Location')!, login)
  expect(back.startsWith(`${BASE}${callbackPath}`)).toBe(true)
  const url = new URL(back)
  const response = await call(callbackLoader, `${url.pathname}${url.search}`, {
    params: { provider: SLUG },
    headers: { Cookie: stateCookie },
  })
  return {
    response,
    session: cookieOf(response, '__portal_session'),
    callback: `${url.pathname}${url.search}`,
    stateCookie,
  }
}

/** The portal token a session cookie carries, and whose it is. */
const tokenOf = (cookie: string | undefined) =>
  sessionToken(new Request(`${BASE}/`, { headers: { Cookie: cookie ?? '' } }))
const userOf = async (cookie: string | undefined) => userFromToken(await tokenOf(cookie))

const userByEmail = async (email: string) =>
  (
    await query<{ id: string; role_id: number; first_name: string; password_hash: string | null }>(
      sql('SELECT id, role_id, first_name, password_hash FROM users WHERE email = :email'),
      { email },
    )
  )[0]

const eventsOf = (subject: string) =>
  query<{ outcome: string; reason: string | null; user_id: string | null }>(
    sql('SELECT outcome, reason, user_id FROM sign_in_events WHERE subject = :subject ORDER BY id'),
    { subject },
  )

describe('company sign-in through a real OpenID Connect provider', () => {
  it('shows the provider on the sign-in page', async () => {
    const page = await body<{ providers: { slug: string; name: string; domains: string[] }[] }>(
      await call(signInLoader, '/sign-in'),
    )
    expect(page.providers).toEqual([{ slug: SLUG, name: 'Acme', domains: ['acme.test'], required: false }])
  })

  it('sends the person to the provider with PKCE (S256), a state and a nonce', async () => {
    const started = await call(startLoader, `/sso/${SLUG}?email=alice%40acme.test`, { params: { provider: SLUG } })
    const to = new URL(started.headers.get('Location')!)
    expect(to.origin).toBe(new URL(provider.issuer).origin)
    expect(to.searchParams.get('code_challenge_method')).toBe('S256')
    expect(to.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/)
    expect(to.searchParams.get('state')).toBeTruthy()
    expect(to.searchParams.get('nonce')).toBeTruthy()
    expect(to.searchParams.get('redirect_uri')).toBe(`${BASE}${callbackPath}`)
    expect(to.searchParams.get('login_hint')).toBe('alice@acme.test')
  })

  it('creates the account at the first sign-in, with the program of its group, and finds it again by subject', async () => {
    const first = await signIn(alice.sub)
    expect(first.response.status).toBe(302)
    expect(first.response.headers.get('Location')).toBe('/courses')
    const user = await userByEmail(alice.email)
    expect(user).toMatchObject({ role_id: 2, first_name: 'Alice', password_hash: null })
    expect(await userOf(first.session)).toMatchObject({ id: user.id })
    const assigned = await query(
      sql('SELECT 1 FROM program_assignments WHERE user_id = :user AND program_id = :program'),
      { user: user.id, program: programId },
    )
    expect(assigned).toHaveLength(1)

    // the email changes at the provider: the subject still finds the same account
    provider.setAccount({ ...alice, email: 'alice.adams@acme.test' })
    const second = await signIn(alice.sub)
    expect(second.response.status).toBe(302)
    const accounts = await query(sql("SELECT id FROM users WHERE email LIKE 'alice%@acme.test'"), {})
    expect(accounts).toHaveLength(1)
    expect((await eventsOf(alice.sub)).map((e) => [e.outcome, e.user_id])).toEqual([
      ['success', user.id],
      ['success', user.id],
    ])
    provider.setAccount(alice)
  })

  it('links an existing local account by the verified email, which keeps its password', async () => {
    const local = await makeUser({ roleId: 2, email: bob.email })
    const { response } = await signIn(bob.sub)
    expect(response.status).toBe(302)
    const links = await query<{ user_id: string }>(
      sql("SELECT user_id FROM user_identities WHERE subject = 'bob-at-acme'"),
      {},
    )
    expect(links).toEqual([{ user_id: local.id }])
    expect((await userByEmail(bob.email)).password_hash).not.toBeNull()
  })

  it('links an account anew when the person was made again at the provider (a new subject, the same email)', async () => {
    const first = await signIn(alice.sub)
    const user = await userOf(first.session)
    provider.setAccount({ ...alice, sub: 'alice-made-again' })
    const again = await signIn('alice-made-again')
    expect(again.response.status).toBe(302)
    expect((await userOf(again.session))?.id).toBe(user!.id)
    const links = await query<{ subject: string }>(sql('SELECT subject FROM user_identities WHERE user_id = :user'), {
      user: user!.id,
    })
    expect(links).toEqual([{ subject: 'alice-made-again' }])
  })

  it('makes one account when the same person signs in twice at once for the first time', async () => {
    provider.setAccount({ sub: 'kim-at-acme', email: 'kim@acme.test', email_verified: true, groups: ['engineers'] })
    const both = await Promise.all([signIn('kim-at-acme'), signIn('kim-at-acme')])
    expect(both.map((b) => b.response.status)).toEqual([302, 302])
    const ids = await Promise.all(both.map(async (b) => (await userOf(b.session))?.id))
    expect(ids[0]).toBeTruthy()
    expect(ids[1]).toBe(ids[0])
    expect(await query(sql("SELECT 1 FROM users WHERE email = 'kim@acme.test'"), {})).toHaveLength(1)
  })

  it('refuses an email the provider has not verified, and writes nothing', async () => {
    const { response } = await signIn(carol.sub)
    expect(response.status).toBe(403)
    expect((await body<{ message: string }>(response)).message).toMatch(/has not verified your email address/)
    expect(response.headers.get('Set-Cookie') ?? '').not.toContain('__portal_session=ey')
    expect(await userByEmail(carol.email)).toBeUndefined()
    expect(await eventsOf(carol.sub)).toEqual([{ outcome: 'refused', reason: 'email_unverified', user_id: null }])
  })

  it('refuses an email at a domain the provider does not serve', async () => {
    const { response } = await signIn(dave.sub)
    expect(response.status).toBe(403)
    expect((await body<{ message: string }>(response)).message).toMatch(/does not sign in accounts at elsewhere\.test/)
    expect(await userByEmail(dave.email)).toBeUndefined()
    expect((await eventsOf(dave.sub))[0]).toMatchObject({ outcome: 'refused', reason: 'domain' })
  })

  it('refuses an unknown person when the provider creates no accounts', async () => {
    await updateProvider(SYSTEM, SLUG, { createAccounts: false })
    provider.setAccount({ sub: 'erin-at-acme', email: 'erin@acme.test', email_verified: true })
    const { response } = await signIn('erin-at-acme')
    expect(response.status).toBe(403)
    expect((await body<{ message: string }>(response)).message).toBe(
      'There is no portal account for erin@acme.test. Ask an admin of the portal to create one.',
    )
    expect(await userByEmail('erin@acme.test')).toBeUndefined()
    await updateProvider(SYSTEM, SLUG, { createAccounts: true })
  })

  it('refuses a replayed callback, a callback without state, and one from another browser', async () => {
    const first = await signIn(alice.sub)
    expect(first.response.status).toBe(302)
    const replayed = await call(callbackLoader, first.callback, {
      params: { provider: SLUG },
      headers: { Cookie: first.stateCookie },
    })
    expect(replayed.status).toBe(400)
    expect((await body<{ message: string }>(replayed)).message).toMatch(/expired or was already used/)

    const started = await call(startLoader, `/sso/${SLUG}`, { params: { provider: SLUG } })
    const back = new URL(await signInAtProvider(started.headers.get('Location')!, alice.sub))
    // another browser: the same callback address without the state cookie this browser was given
    const planted = await call(callbackLoader, `${back.pathname}${back.search}`, { params: { provider: SLUG } })
    expect(planted.status).toBe(400)
    back.searchParams.delete('state')
    const stateless = await call(callbackLoader, `${back.pathname}${back.search}`, {
      params: { provider: SLUG },
      headers: { Cookie: cookieOf(started, '__portal_sso')! },
    })
    expect(stateless.status).toBe(400)
    for (const refused of [replayed, planted, stateless]) expect(cookieOf(refused, '__portal_session')).toBeUndefined()
  })

  it('goes back only to a path of the portal, never to another site', async () => {
    const { response } = await signIn(
      alice.sub,
      `/sso/${SLUG}?redirectTo=${encodeURIComponent('https://evil.example/x')}`,
    )
    expect(response.headers.get('Location')).toBe('/courses')
    const home = await signIn(alice.sub, `/sso/${SLUG}?redirectTo=${encodeURIComponent('/course/abc')}`)
    expect(home.response.headers.get('Location')).toBe('/course/abc')
  })

  it('turns passwords off for the domains of a required provider', async () => {
    const local = await makeUser({ roleId: 2, email: 'frank@acme.test', userName: 'frankacme' })
    await updateProvider(SYSTEM, SLUG, { required: true })
    try {
      await expect(login({ email: local.email, password: PASSWORD })).rejects.toMatchObject({
        status: 403,
        message: 'Accounts at acme.test sign in with Acme: use the "Sign in with Acme" button.',
      })
      await expect(login({ email: 'frankacme', password: PASSWORD })).rejects.toMatchObject({ status: 403 })
      await expect(requestPasswordReset(local.email)).rejects.toMatchObject({ status: 403 })
      const page = await body<{ providers: { required: boolean }[] }>(await call(signInLoader, '/sign-in'))
      expect(page.providers[0].required).toBe(true)
      // another domain still signs in with its password
      const other = await makeLearner()
      await expect(login({ email: other.email, password: PASSWORD })).resolves.toBeTruthy()
    } finally {
      await updateProvider(SYSTEM, SLUG, { required: false })
    }
  })

  it('signs out through the provider, and a back-channel logout ends the portal session', async () => {
    const { session } = await signIn(alice.sub)
    const token = (await tokenOf(session))!
    expect(await userFromToken(token)).toBeTruthy()
    const out = await call(logoutAction, '/logout', { method: 'POST', headers: { Cookie: session! } })
    const to = new URL(out.headers.get('Location')!)
    expect(to.origin).toBe(new URL(provider.issuer).origin)
    expect(to.searchParams.get('post_logout_redirect_uri')).toBe(`${BASE}/`)
    expect(to.searchParams.get('id_token_hint')).toBeTruthy()
    expect(await userFromToken(token)).toBeUndefined()

    const again = await signIn(alice.sub)
    const second = (await tokenOf(again.session))!
    logoutTokens = []
    expect(await provider.backchannelLogout({ clientId: 'portal', sub: alice.sub })).toBeLessThan(300)
    expect(logoutTokens).toHaveLength(1)
    const form = new URLSearchParams({ logout_token: logoutTokens[0] })
    const refusedForgery = await call(backchannelAction, `/sso/${SLUG}/backchannel-logout`, {
      method: 'POST',
      params: { provider: SLUG },
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: `${logoutTokens[0].slice(0, -4)}AAAA` }).toString(),
    })
    expect(refusedForgery.status).toBe(400)
    expect(await userFromToken(second)).toBeTruthy()
    const ended = await call(backchannelAction, `/sso/${SLUG}/backchannel-logout`, {
      method: 'POST',
      params: { provider: SLUG },
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    })
    expect(ended.status).toBe(200)
    expect(await userFromToken(second)).toBeUndefined()
  })
})

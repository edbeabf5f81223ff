import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { addProvider, updateProvider } from '#app/modules/sso/providers.server.ts'
import { loader as startLoader } from '#app/routes/_auth+/sso.$provider.tsx'
import { loader as callbackLoader } from '#app/routes/_auth+/sso.$provider_.callback.tsx'
import { query, sql } from '#db/client.ts'
import { makeUser } from '#tests/factories.ts'
import { closedPort, startForgedProvider, type ForgedProvider, type Forgery } from '#tests/oidc/forged-provider.ts'
import { BASE, body, call } from '#tests/requests.ts'

// The answers a real provider never gives, from a hand-made one on loopback: each refused with a clear page, no
// account, no link, no session, and the refusal recorded with its reason. Then a provider that is down or slow:
// the page says so within seconds, and once the breaker has opened, at once.

const SLUG = 'forged'
const account = { sub: 'mallory', email: 'mallory@forged.test', email_verified: true }
let forged: ForgedProvider

beforeAll(async () => {
  forged = await startForgedProvider({ clientId: 'portal', account })
  await addProvider(SYSTEM, {
    slug: SLUG,
    name: 'Forged',
    issuer: forged.issuer,
    clientId: 'portal',
    clientSecret: 'forged-secret',
    domains: 'forged.test',
    createAccounts: true,
  })
})

afterAll(async () => {
  await forged?.close()
})

const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0]

/** The button, the forged provider's immediate answer, the callback: what the portal makes of it. */
async function signIn(slug = SLUG) {
  const started = await call(startLoader, `/sso/${slug}`, { params: { provider: slug } })
  if (started.status !== 302) return started
  const authorize = await fetch(started.headers.get('Location')!, { redirect: 'manual' })
  const back = new URL(authorize.headers.get('Location')!)
  expect(`${back.origin}${back.pathname}`).toBe(`${BASE}/sso/${slug}/callback`)
  return call(callbackLoader, `${back.pathname}${back.search}`, {
    params: { provider: slug },
    headers: { Cookie: cookieOf(started, '__portal_sso')! },
  })
}

const nothingWritten = async () => {
  expect(await query(sql("SELECT 1 FROM users WHERE email = 'mallory@forged.test'"), {})).toEqual([])
  expect(await query(sql("SELECT 1 FROM user_identities WHERE subject = 'mallory'"), {})).toEqual([])
}
const lastReason = async () =>
  (
    await query<{ outcome: string; reason: string }>(
      sql('SELECT outcome, reason FROM sign_in_events WHERE provider_id IS NOT NULL ORDER BY id DESC LIMIT 1'),
      {},
    )
  )[0]

describe('a sign-in through a provider, refused', () => {
  const TOKEN_ATTACKS: [Forgery, string, string][] = [
    ['wrong-key', 'an ID token signed by another key', 'token'],
    ['wrong-audience', 'an ID token for another client', 'token'],
    ['expired', 'an expired ID token', 'token'],
    ['wrong-issuer', 'an ID token from another issuer', 'token'],
    ['wrong-nonce', 'an ID token with the nonce of another sign-in', 'nonce'],
    ['no-nonce', 'an ID token without a nonce', 'nonce'],
  ]
  for (const [forgery, what, reason] of TOKEN_ATTACKS)
    it(`refuses ${what}`, async () => {
      forged.forge(forgery)
      const response = await signIn()
      expect(response.status).toBe(400)
      expect((await body<{ message: string }>(response)).message).toBe(
        "Forged's answer could not be trusted, so you were not signed in. Please try again; if it keeps happening, tell an admin of the portal.",
      )
      expect(cookieOf(response, '__portal_session')).toBeUndefined()
      await nothingWritten()
      expect(await lastReason()).toEqual({ outcome: 'refused', reason })
    })

  it('refuses the provider saying no, in its own words', async () => {
    forged.forge('error')
    const response = await signIn()
    expect(response.status).toBe(400)
    expect((await body<{ message: string }>(response)).message).toMatch(/^Forged did not sign you in: /)
    await nothingWritten()
    expect(await lastReason()).toEqual({ outcome: 'refused', reason: 'provider_error' })
  })

  it('refuses a disabled portal account, found by its verified email', async () => {
    forged.forge('none')
    const user = await makeUser({ roleId: 2, email: 'mallory@forged.test' })
    await query(sql('UPDATE users SET disabled_at = now() WHERE id = :id'), { id: user.id })
    try {
      const response = await signIn()
      expect(response.status).toBe(403)
      expect((await body<{ message: string }>(response)).message).toMatch(/This account is disabled/)
      expect(cookieOf(response, '__portal_session')).toBeUndefined()
      expect(await query(sql("SELECT 1 FROM user_identities WHERE subject = 'mallory'"), {})).toEqual([])
      expect(await lastReason()).toEqual({ outcome: 'refused', reason: 'disabled' })
    } finally {
      await query(sql('DELETE FROM users WHERE id = :id'), { id: user.id })
    }
  })

  it('signs in when nothing is forged (the refusals above are the forgeries’)', async () => {
    forged.forge('none')
    const response = await signIn()
    expect(response.status).toBe(302)
    expect(cookieOf(response, '__portal_session')).toBeTruthy()
  })
})

describe('a provider that is down or slow', () => {
  it('answers within seconds that a slow provider is not answering, then at once', async () => {
    await updateProvider(SYSTEM, SLUG, { name: 'Slowco' }) // a changed provider is discovered again
    forged.forge('slow')
    for (let attempt = 1; attempt <= 4; attempt++) {
      const started = performance.now()
      const response = await call(startLoader, `/sso/${SLUG}`, { params: { provider: SLUG } })
      const seconds = (performance.now() - started) / 1000
      expect(response.status).toBe(503)
      expect((await body<{ message: string }>(response)).message).toBe(
        'Slowco sign-in is not answering; try again or use your password where allowed.',
      )
      // each request gives up after 3 s; after three failures the breaker answers without asking
      expect(seconds).toBeLessThan(attempt <= 3 ? 6 : 2)
    }
    const reasons = await query<{ reason: string }>(
      sql("SELECT reason FROM sign_in_events WHERE reason = 'unreachable'"),
      {},
    )
    expect(reasons.length).toBeGreaterThanOrEqual(4)
  })

  it('answers that a provider that is down is not answering', async () => {
    forged.forge('none')
    await addProvider(SYSTEM, {
      slug: 'downco',
      name: 'Downco',
      issuer: forged.issuer,
      clientId: 'portal',
      clientSecret: 'forged-secret',
      domains: 'down.test',
    })
    // the provider goes away: nothing listens where it was any more
    const port = await closedPort()
    await query(sql("UPDATE identity_providers SET issuer = :issuer, updated_at = now() WHERE slug = 'downco'"), {
      issuer: `http://127.0.0.1:${port}`,
    })
    const response = await call(startLoader, '/sso/downco', { params: { provider: 'downco' } })
    expect(response.status).toBe(503)
    expect((await body<{ message: string }>(response)).message).toBe(
      'Downco sign-in is not answering; try again or use your password where allowed.',
    )
  })
})

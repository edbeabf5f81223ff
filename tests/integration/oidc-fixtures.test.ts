import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import * as oidc from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CookieJar, signInAtProvider, signOutAtProvider } from '#tests/oidc/browserless.ts'
import { closedPort, type Forgery, startForgedProvider } from '#tests/oidc/forged-provider.ts'
import { startTestProvider, type TestAccount, type TestProvider } from '#tests/oidc/provider.ts'

// The identity providers company sign-in is tested against, driven with openid-client as the portal
// drives it: discovery, an authorization URL with PKCE (S256), state and nonce, the code grant with the
// ID token checked.

const CLIENT_ID = 'portal'
const CLIENT_SECRET = 'portal-secret'
const SCOPE = 'openid email profile groups'
const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout'

const ann: TestAccount = {
  sub: 'ann-0001',
  email: 'ann@example.com',
  email_verified: true,
  given_name: 'Ann',
  family_name: 'Lee',
  groups: ['staff', 'sql-trainers'],
}

// A stand-in for the portal on loopback: the redirect_uri's host (never called: the sign-in stops at the
// redirect) and the back-channel logout receiver, which keeps every logout_token posted to it.
const logoutTokens: string[] = []
const receiver = createServer(async (req, res) => {
  let body = ''
  for await (const chunk of req) body += chunk
  if (req.method === 'POST' && req.url === '/backchannel')
    logoutTokens.push(new URLSearchParams(body).get('logout_token') ?? '')
  res.writeHead(200).end()
})
let portal = ''
let redirectUri = ''

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  portal = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
  redirectUri = `${portal}/auth/company/callback`
})
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())))

const discover = (
  issuer: string,
  options: { timeout?: number; clientAuth?: oidc.ClientAuth; signatures?: boolean } = {},
) =>
  oidc.discovery(new URL(issuer), CLIENT_ID, CLIENT_SECRET, options.clientAuth, {
    // http issuers on loopback; with enableNonRepudiationChecks the ID token's signature is checked too
    execute: [oidc.allowInsecureRequests, ...(options.signatures ? [oidc.enableNonRepudiationChecks] : [])],
    timeout: options.timeout,
  })

/** An authorization URL with its checks, as the portal builds one. */
async function authorization(config: oidc.Configuration, extra: Record<string, string> = {}) {
  const checks = {
    pkceCodeVerifier: oidc.randomPKCECodeVerifier(),
    expectedState: oidc.randomState(),
    expectedNonce: oidc.randomNonce(),
    idTokenExpected: true,
  }
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: SCOPE,
    code_challenge: await oidc.calculatePKCECodeChallenge(checks.pkceCodeVerifier),
    code_challenge_method: 'S256',
    state: checks.expectedState,
    nonce: checks.expectedNonce,
    ...extra,
  })
  return { url: url.href, checks }
}

/** Sign in at the provider as `login` and redeem the code; the token response. */
async function signIn(config: oidc.Configuration, login: string, jar = new CookieJar()) {
  const { url, checks } = await authorization(config)
  const callback = await signInAtProvider(url, login, jar)
  return oidc.authorizationCodeGrant(config, new URL(callback), checks)
}

describe('the test provider (oidc-provider)', () => {
  let provider: TestProvider
  beforeAll(async () => {
    provider = await startTestProvider({
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris: [`${portal}/auth/company/callback`],
          post_logout_redirect_uris: [`${portal}/`],
          backchannel_logout_uri: `${portal}/backchannel`,
        },
      ],
      accounts: [ann, { sub: 'bob-0002', email: 'bob@example.com', email_verified: false }],
    })
  })
  afterAll(() => provider.close())

  it('signs in by email: the ID token carries email, email_verified, the names and groups, as userinfo does', async () => {
    const config = await discover(provider.issuer) // a string secret: client_secret_post
    const tokens = await signIn(config, ann.email)
    const claims = tokens.claims()!
    expect(claims).toMatchObject({
      iss: provider.issuer,
      aud: CLIENT_ID,
      sub: ann.sub,
      email: ann.email,
      email_verified: true,
      given_name: 'Ann',
      family_name: 'Lee',
      name: 'Ann Lee',
      groups: ['staff', 'sql-trainers'],
    })
    expect(claims.sid).toEqual(expect.any(String))
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, ann.sub)
    expect(userinfo).toMatchObject({ sub: ann.sub, email: ann.email, groups: ann.groups, name: 'Ann Lee' })
    expect(provider.requests).toEqual(expect.arrayContaining(['/.well-known/openid-configuration', '/auth', '/token']))
  })

  it('signs in by sub; a second authorization in the same browser skips the login form and sees new claims', async () => {
    const config = await discover(provider.issuer, { clientAuth: oidc.ClientSecretBasic(CLIENT_SECRET) })
    const jar = new CookieJar()
    const first = await signIn(config, 'bob-0002', jar)
    expect(first.claims()).toMatchObject({ sub: 'bob-0002', email: 'bob@example.com', email_verified: false })
    provider.setAccount({ sub: 'bob-0002', email: 'bob@example.com', email_verified: true, groups: ['admins'] })
    const logins = provider.requests.filter((path) => path.startsWith('/interaction/')).length
    const second = await signIn(config, 'nobody at all', jar) // the form is not shown, so the login is not used
    expect(provider.requests.filter((path) => path.startsWith('/interaction/'))).toHaveLength(logins)
    expect(second.claims()).toMatchObject({ sub: 'bob-0002', email_verified: true, groups: ['admins'] })
    expect(second.claims()!.sid).toBe(first.claims()!.sid)
  })

  it('refuses an unknown login and an authorization without PKCE, back at the redirect_uri with an error', async () => {
    const config = await discover(provider.issuer)
    const unknown = new URL(await signInAtProvider((await authorization(config)).url, 'eve@example.com'))
    expect(unknown.searchParams.get('error')).toBe('access_denied')
    const { url } = await authorization(config)
    const withoutPkce = new URL(url)
    withoutPkce.searchParams.delete('code_challenge')
    withoutPkce.searchParams.delete('code_challenge_method')
    const refused = new URL(await signInAtProvider(withoutPkce.href, ann.email))
    expect(`${refused.origin}${refused.pathname}`).toBe(redirectUri)
    expect(refused.searchParams.get('error')).toBe('invalid_request')
    expect(refused.searchParams.get('error_description')).toMatch(/requires PKCE/)
  })

  it('posts a logout token signed with its published key when the test asks', async () => {
    const config = await discover(provider.issuer)
    logoutTokens.length = 0
    expect(await provider.backchannelLogout({ clientId: CLIENT_ID, sub: ann.sub, sid: 'a-session' })).toBe(200)
    expect(logoutTokens).toHaveLength(1)
    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!))
    const { payload, protectedHeader } = await jwtVerify(logoutTokens[0], jwks, {
      issuer: provider.issuer,
      audience: CLIENT_ID,
      typ: 'logout+jwt',
    })
    expect(protectedHeader.alg).toBe('RS256')
    expect(payload).toMatchObject({ sub: ann.sub, sid: 'a-session', events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } })
    expect(payload.jti).toEqual(expect.any(String))
    expect(payload.exp! - payload.iat!).toBe(120)
    expect(payload).not.toHaveProperty('nonce')
  })

  it('ending the session on its own sign-out page posts its real logout token, with the sub and sid signed in', async () => {
    const config = await discover(provider.issuer)
    const jar = new CookieJar()
    const claims = (await signIn(config, ann.sub, jar)).claims()!
    logoutTokens.length = 0
    const endSession = oidc.buildEndSessionUrl(config, { client_id: CLIENT_ID, post_logout_redirect_uri: `${portal}/` })
    expect(await signOutAtProvider(endSession.href, jar)).toBe(`${portal}/`)
    expect(logoutTokens).toHaveLength(1)
    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!))
    const { payload } = await jwtVerify(logoutTokens[0], jwks, { issuer: provider.issuer, audience: CLIENT_ID })
    expect(decodeProtectedHeader(logoutTokens[0]).typ).toBe('logout+jwt')
    expect(payload).toMatchObject({ sub: ann.sub, sid: claims.sid, events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } })
    expect(payload).not.toHaveProperty('nonce')
    // the provider's session is gone: the next authorization shows the login form again
    const logins = provider.requests.filter((path) => path.startsWith('/interaction/')).length
    await signIn(config, ann.email, jar)
    expect(provider.requests.filter((path) => path.startsWith('/interaction/')).length).toBeGreaterThan(logins)
  })
})

describe('the forged provider', () => {
  let forged: Awaited<ReturnType<typeof startForgedProvider>>
  beforeAll(async () => {
    forged = await startForgedProvider({ clientId: CLIENT_ID, account: ann })
  })
  afterAll(() => forged.close())

  /** A sign-in at the forged provider, forging `forgery` once the configuration is discovered. */
  async function forgedSignIn(forgery: Forgery, signatures = true) {
    forged.forge('none')
    const config = await discover(forged.issuer, { signatures })
    forged.forge(forgery)
    return signIn(config, 'any')
  }

  it('with no forgery, is a correct provider', async () => {
    const tokens = await forgedSignIn('none')
    expect(tokens.claims()).toMatchObject({ iss: forged.issuer, aud: CLIENT_ID, sub: ann.sub, groups: ann.groups })
    expect(forged.requests).toEqual(expect.arrayContaining(['/authorize', '/token', '/jwks']))
  })

  it.each([
    ['wrong-key', 'OAUTH_INVALID_RESPONSE', /JWT signature verification failed/],
    ['wrong-audience', 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', /"aud"/],
    ['expired', 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED', /"exp"/],
    ['wrong-issuer', 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', /"iss"/],
    ['wrong-nonce', 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', /"nonce"/],
    ['no-nonce', 'OAUTH_INVALID_RESPONSE', /"nonce" \(nonce\) claim missing/],
  ] as const)('an ID token forged %s is refused: %s', async (forgery, code, cause) => {
    const refused = forgedSignIn(forgery)
    await expect(refused).rejects.toBeInstanceOf(oidc.ClientError)
    await expect(refused).rejects.toMatchObject({ code, cause: { message: expect.stringMatching(cause) } })
  })

  it('without enableNonRepudiationChecks, openid-client takes an ID token with a wrong signature', async () => {
    // It trusts the token endpoint's answer over the connection alone (over TLS, in production).
    const tokens = await forgedSignIn('wrong-key', false)
    expect(tokens.claims()?.sub).toBe(ann.sub)
  })

  it('sends an error back to the redirect_uri, which the code grant refuses', async () => {
    forged.forge('none')
    const config = await discover(forged.issuer)
    forged.forge('error')
    const { url, checks } = await authorization(config)
    const callback = new URL(await signInAtProvider(url, 'any'))
    expect(callback.searchParams.get('error')).toBe('access_denied')
    expect(callback.searchParams.get('state')).toBe(checks.expectedState)
    await expect(oidc.authorizationCodeGrant(config, callback, checks)).rejects.toMatchObject({
      name: 'AuthorizationResponseError',
      code: 'OAUTH_AUTHORIZATION_RESPONSE_ERROR',
      error: 'access_denied',
    })
  })

  it('when slow, is cut by the timeout in seconds: at discovery, and on the configuration for the code grant', async () => {
    forged.forge('slow')
    let started = Date.now()
    await expect(discover(forged.issuer, { timeout: 1 })).rejects.toMatchObject({
      code: 'OAUTH_TIMEOUT',
      cause: { name: 'TimeoutError' },
    })
    expect(Date.now() - started).toBeLessThan(5_000)

    forged.forge('none')
    const config = await discover(forged.issuer)
    const { url, checks } = await authorization(config)
    const callback = new URL(await signInAtProvider(url, 'any'))
    forged.forge('slow')
    config.timeout = 1
    started = Date.now()
    await expect(oidc.authorizationCodeGrant(config, callback, checks)).rejects.toMatchObject({ code: 'OAUTH_TIMEOUT' })
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('when down (nothing listening), discovery fails with fetch failed, ECONNREFUSED', async () => {
    const port = await closedPort()
    await expect(discover(`http://127.0.0.1:${port}`)).rejects.toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
      cause: { code: 'ECONNREFUSED' },
    })
  })
})

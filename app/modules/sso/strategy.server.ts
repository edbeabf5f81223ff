import { createHash } from 'node:crypto'
import { createCookie, redirect } from '@remix-run/node'
import * as oidc from 'openid-client'
import { Strategy } from 'remix-auth/strategy'
import { getEnv, getSecrets } from '#app/utils/env.server.ts'
import { safeRedirect } from '#app/utils/redirect.ts'
import { query, sql } from '#db/client.ts'
import { recordProviderSignIn, SignInRefused, type PersonClaims } from './accounts.server.ts'
import { askProvider, ProviderUnavailable, providerConfiguration } from './client.server.ts'
import type { Provider } from './providers.server.ts'

// Signing in through a provider as a remix-auth strategy (ADR 041): the authorization code flow with PKCE (S256),
// `state` and `nonce`. The first request (no `code`, no `error`) is sent to the provider; the provider sends the
// person back to the callback, which checks everything before the verify function finds the account:
//   - `state`: the one in the address must be the one this browser was given (a cookie) and one the portal has
//     kept (sso_logins), taken as it is used, so a callback cannot be replayed or planted in another's browser;
//   - the code is exchanged with the PKCE verifier; openid-client checks the ID token's signature against the
//     provider's published keys, its issuer, audience, expiry and `nonce`.
// Whatever is refused is a SignInRefused with the words the person reads, recorded in the sign-in events.

const LOGIN_KEPT_MINUTES = 15
const STATE_COOKIE = '__portal_sso'

let stateCookie: ReturnType<typeof createCookie> | undefined
const cookie = () =>
  (stateCookie ??= createCookie(STATE_COOKIE, {
    httpOnly: true,
    // the provider sends the person back with a top-level GET: Lax cookies go with it
    sameSite: 'lax',
    path: '/sso/',
    maxAge: LOGIN_KEPT_MINUTES * 60,
    secure: getEnv().NODE_ENV === 'production' && getEnv().PUBLIC_URL.startsWith('https:'),
    secrets: [getSecrets().sessionSecret],
  }))

/** The Set-Cookie that drops the state cookie once its sign-in is over. */
export const forgetStateCookie = () => cookie().serialize('', { maxAge: 0 })

const hashOf = (state: string) => createHash('sha256').update(state).digest('base64url')

/** Where the provider sends the person back: registered with the provider as the redirect URI. */
export const callbackUrl = (slug: string) => `${getEnv().PUBLIC_URL}/sso/${slug}/callback`

const KEEP_LOGIN = sql(`
  INSERT INTO sso_logins (state_hash, provider_id, nonce, code_verifier, return_to)
  VALUES (:state, :provider, :nonce, :verifier, :returnTo)`)
const FORGET_OLD_LOGINS = sql(`DELETE FROM sso_logins WHERE created_at < now() - make_interval(mins => :minutes)`)
const TAKE_LOGIN = sql(`
  DELETE FROM sso_logins WHERE state_hash = :state AND provider_id = :provider
     AND created_at >= now() - make_interval(mins => :minutes)
  RETURNING nonce, code_verifier AS "codeVerifier", return_to AS "returnTo"`)

type ProviderSignIn = {
  provider: Provider
  claims: PersonClaims
  idToken: string | undefined
  returnTo: string
  address: string | undefined
}

type Verified = { user: unknown; returnTo: string }

/** The strategy for one provider, made for each request (the provider is the address's). */
export class OpenIdConnectStrategy<User extends Verified> extends Strategy<User, ProviderSignIn> {
  name = 'openid-connect'

  constructor(
    private readonly provider: Provider,
    private readonly address: string | undefined,
    verify: Strategy.VerifyFunction<User, ProviderSignIn>,
  ) {
    super(verify)
  }

  async authenticate(request: Request): Promise<User> {
    const url = new URL(request.url)
    if (!url.searchParams.has('code') && !url.searchParams.has('error') && !url.searchParams.has('state')) {
      try {
        throw await this.start(url)
      } catch (error) {
        if (error instanceof ProviderUnavailable)
          await recordProviderSignIn({ provider: this.provider, address: this.address, refused: 'unreachable' })
        throw error
      }
    }
    return this.callback(request, url)
  }

  /** Off to the provider, with a fresh state, nonce and PKCE challenge. */
  private async start(url: URL): Promise<Response> {
    const configuration = await providerConfiguration(this.provider)
    const state = oidc.randomState()
    const nonce = oidc.randomNonce()
    const verifier = oidc.randomPKCECodeVerifier()
    const returnTo = safeRedirect(url.searchParams.get('redirectTo'), '')
    if (Math.random() < 0.05) await query(FORGET_OLD_LOGINS, { minutes: LOGIN_KEPT_MINUTES })
    await query(KEEP_LOGIN, { state: hashOf(state), provider: this.provider.id, nonce, verifier, returnTo })
    const parameters: Record<string, string> = {
      redirect_uri: callbackUrl(this.provider.slug),
      scope: this.provider.scopes,
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }
    const hint = url.searchParams.get('email')
    if (hint && hint.length <= 254) parameters.login_hint = hint
    const to = oidc.buildAuthorizationUrl(configuration, parameters)
    return redirect(to.href, { headers: { 'Set-Cookie': await cookie().serialize(state) } })
  }

  private async callback(request: Request, url: URL): Promise<User> {
    const provider = this.provider
    const refuse = async (error: SignInRefused, subject?: string): Promise<never> => {
      await recordProviderSignIn({ provider, subject, address: this.address, refused: error.reason })
      throw error
    }
    const state = url.searchParams.get('state') ?? ''
    const kept: unknown = await cookie().parse(request.headers.get('Cookie'))
    const login =
      state && kept === state
        ? (
            await query<{ nonce: string; codeVerifier: string; returnTo: string }>(TAKE_LOGIN, {
              state: hashOf(state),
              provider: provider.id,
              minutes: LOGIN_KEPT_MINUTES,
            })
          )[0]
        : undefined
    if (!login)
      return refuse(
        new SignInRefused(
          'state',
          'This sign-in has expired or was already used, so nobody was signed in. Please start again.',
        ),
      )
    const error = url.searchParams.get('error')
    if (error) {
      const description = (url.searchParams.get('error_description') ?? error).slice(0, 200)
      return refuse(new SignInRefused('provider_error', `${provider.name} did not sign you in: ${description}`))
    }
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>
    try {
      const configuration = await providerConfiguration(provider)
      // the address the provider sent the person to, as the portal gave it (not as a proxy rewrote it)
      const current = new URL(`${callbackUrl(provider.slug)}${url.search}`)
      tokens = await askProvider(provider.id, () =>
        oidc.authorizationCodeGrant(
          configuration,
          current,
          {
            pkceCodeVerifier: login.codeVerifier,
            expectedState: state,
            expectedNonce: login.nonce,
            idTokenExpected: true,
          },
          { redirect_uri: callbackUrl(provider.slug) },
        ),
      )
    } catch (error) {
      if (error instanceof ProviderUnavailable) {
        await recordProviderSignIn({ provider, address: this.address, refused: 'unreachable' })
        throw error
      }
      return refuse(refusalOf(provider, error))
    }
    const idClaims = tokens.claims() as PersonClaims | undefined
    if (!idClaims?.sub) return refuse(new SignInRefused('token', untrusted(provider.name)))
    const claims = { ...(await userInfo(provider, tokens.access_token, idClaims.sub)), ...idClaims }
    try {
      return await this.verify({
        provider,
        claims,
        idToken: tokens.id_token,
        returnTo: login.returnTo,
        address: this.address,
      })
    } catch (error) {
      if (error instanceof SignInRefused) return refuse(error, claims.sub)
      throw error
    }
  }
}

const untrusted = (name: string) =>
  `${name}'s answer could not be trusted, so you were not signed in. Please try again; if it keeps happening, tell an admin of the portal.`

/** What openid-client refused, in the person's words; the reason kept for admins. */
function refusalOf(provider: Provider, error: unknown): SignInRefused {
  if (error instanceof oidc.AuthorizationResponseError || error instanceof oidc.ResponseBodyError) {
    const description = (error.error_description ?? error.error).slice(0, 200)
    return new SignInRefused('provider_error', `${provider.name} did not sign you in: ${description}`)
  }
  // openid-client names the failed check in the messages of the error and its causes
  let words = ''
  for (let e: unknown = error; e instanceof Error; e = e.cause) words += ` ${e.message}`
  const reason = /"nonce"/.test(words) ? 'nonce' : 'token'
  return new SignInRefused(reason, untrusted(provider.name))
}

/** The provider's userinfo, when it has the endpoint; its claims count only for the same subject. */
async function userInfo(provider: Provider, accessToken: string, subject: string): Promise<Record<string, unknown>> {
  try {
    const configuration = await providerConfiguration(provider)
    if (!configuration.serverMetadata().userinfo_endpoint) return {}
    return await askProvider(provider.id, () => oidc.fetchUserInfo(configuration, accessToken, subject))
  } catch {
    // the ID token is what counts; userinfo only fills in what it leaves out
    return {}
  }
}

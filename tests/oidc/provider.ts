import { randomBytes, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { text } from 'node:stream/consumers'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import Provider, { type Context } from 'oidc-provider'

// A real OpenID Connect provider (oidc-provider) on 127.0.0.1 for company sign-in tests: in-memory
// storage, its own development pages for the login form and the sign-out confirmation, PKCE (S256)
// required, the authorization code flow only, and back-channel logout.
//
// A sign-in is: authorize → the login form (any password; the login is an account's sub or email) →
// back to the redirect_uri with a code. Consent is never asked: every requested scope is granted.
//
// Signing out at the provider posts a real logout token to every client with a backchannel_logout_uri
// that the session signed in to: GET /session/end (with client_id, or id_token_hint, and optionally a
// registered post_logout_redirect_uri), then on its page click "Yes, sign me out" (the button
// `name="logout" value="yes"`), which posts the page's form to /session/end/confirm. "No, stay signed in"
// still logs out the one client named in the request, and posts its logout token too.

export type TestAccount = {
  sub: string
  email: string
  email_verified: boolean
  given_name?: string
  family_name?: string
  groups?: string[]
}

export type TestClient = {
  client_id: string
  client_secret: string
  redirect_uris: string[]
  post_logout_redirect_uris?: string[]
  backchannel_logout_uri?: string
}

export type TestProvider = {
  /** http://127.0.0.1:PORT, also the prefix of every endpoint (/.well-known/openid-configuration, /auth …) */
  issuer: string
  /** the path of every request the provider was sent, in order */
  requests: string[]
  /** add an account, or change the claims of the account with that sub for later sign-ins */
  setAccount(account: TestAccount): void
  /**
   * Post a logout token for `sub` and/or `sid` to the client's backchannel_logout_uri, signed with the
   * provider's own key, as the provider does when a session ends; resolves to the answer's status.
   */
  backchannelLogout(logout: { clientId: string; sub?: string; sid?: string }): Promise<number>
  close(): Promise<void>
}

const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout'
const LOGOUT_TOKEN_LIFETIME = '2m' // the provider's own logout tokens live 120 s
const HOUR = 60 * 60
// The provider's own pages @import a web font from the internet; a browser here must not reach out for it.
const NO_OUTSIDE_STYLES = "style-src 'self' 'unsafe-inline'"

/** The claims each scope releases, in the ID token and at the userinfo endpoint alike. */
const SCOPE_CLAIMS = {
  openid: ['sub'],
  email: ['email', 'email_verified'],
  profile: ['name', 'given_name', 'family_name'],
  groups: ['groups'],
}

function claimsOf(account: TestAccount) {
  const name = [account.given_name, account.family_name].filter(Boolean).join(' ')
  return { ...account, ...(name ? { name } : {}) }
}

export async function startTestProvider(options: {
  clients: TestClient[]
  accounts: TestAccount[]
}): Promise<TestProvider> {
  const accounts = new Map(options.accounts.map((account) => [account.sub, account]))
  const byLogin = (login: string) =>
    accounts.get(login) ?? [...accounts.values()].find((account) => account.email === login)

  // The issuer names the port, so the server listens before the provider exists.
  const requests: string[] = []
  let handle: ReturnType<Provider['callback']> = (_req, res) => res.writeHead(503).end()
  const server = createServer((req, res) => {
    requests.push(new URL(req.url ?? '/', 'http://provider.invalid').pathname)
    res.setHeader('content-security-policy', NO_OUTSIDE_STYLES)
    handle(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const kid = randomUUID()
  const signingKey = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' }

  const provider: Provider = new Provider(issuer, {
    clients: options.clients.map((client) => ({
      ...client,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      // client_secret_post is accepted as well: oidc-provider takes either for a client with a secret
      token_endpoint_auth_method: 'client_secret_basic',
      // the logout token then carries the session's sid, as the ID tokens do, beside sub
      ...(client.backchannel_logout_uri ? { backchannel_logout_session_required: true } : {}),
    })),
    jwks: { keys: [signingKey] },
    // each provider signs its own cookies: two on 127.0.0.1 share a browser's cookies (ports do not part them)
    cookies: { keys: [randomBytes(32).toString('hex')] },
    claims: SCOPE_CLAIMS,
    // the scopes' claims go into the ID token too, not only to the userinfo endpoint
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      backchannelLogout: { enabled: true },
    },
    ttl: { AccessToken: HOUR, AuthorizationCode: 60, IdToken: HOUR, Interaction: HOUR, Session: HOUR, Grant: HOUR },
    async findAccount(_ctx: Context, id: string) {
      const account = accounts.get(id)
      return account && { accountId: account.sub, claims: async () => claimsOf(account) }
    },
    // No consent page: the session's grant for the client (or a new one) is given every scope asked for.
    async loadExistingGrant(ctx: Context) {
      const { client, account, session, result } = ctx.oidc
      if (!client || !account) return undefined
      const grantId = result?.consent?.grantId ?? session.grantIdFor(client.clientId)
      const grant =
        (grantId && (await provider.Grant.find(grantId))) ||
        new provider.Grant({ accountId: account.accountId, clientId: client.clientId })
      grant.addOIDCScope([...ctx.oidc.requestParamOIDCScopes].join(' '))
      await grant.save()
      return grant
    },
    // oidc-provider refuses to send back-channel logouts to loopback and private addresses (its fetch
    // dispatcher drops such connections); the receivers in these tests are on 127.0.0.1
    fetch: (url: string, { dispatcher: _loopbackRefused, ...init }: RequestInit & { dispatcher?: unknown }) =>
      fetch(url, init),
  })

  // The development login form makes its "login" field the session's account id. Here the field takes an
  // account's sub or its email, so the login is answered before the form's own handler, with the sub.
  provider.use(async (ctx, next) => {
    if (ctx.method !== 'POST' || !/^\/interaction\/[^/]+$/.test(ctx.path)) return next()
    const { prompt } = await provider.interactionDetails(ctx.req, ctx.res)
    if (prompt.name !== 'login') return next()
    const login = new URLSearchParams(await text(ctx.req as IncomingMessage)).get('login') ?? ''
    const account = byLogin(login)
    ctx.respond = false
    await provider.interactionFinished(
      ctx.req,
      ctx.res,
      account
        ? { login: { accountId: account.sub } }
        : { error: 'access_denied', error_description: `no test account signs in as ${login}` },
      { mergeWithLastSubmission: false },
    )
  })
  // Failures the provider only reports as events: a test sees them in its output.
  provider.on('server_error', (_ctx: unknown, error: Error) => console.error('test provider:', error))
  provider.on('backchannel.error', (_ctx: unknown, error: Error) =>
    console.error('test provider: back-channel logout failed:', error.message, error.cause ?? ''),
  )
  handle = provider.callback()

  return {
    issuer,
    requests,
    setAccount(account) {
      accounts.set(account.sub, account)
    },
    async backchannelLogout({ clientId, sub, sid }) {
      const uri = options.clients.find((client) => client.client_id === clientId)?.backchannel_logout_uri
      if (!uri) throw new Error(`client ${clientId} has no backchannel_logout_uri`)
      if (!sub && !sid) throw new Error('a logout token names a sub, a sid or both')
      const token = new SignJWT({ events: { [BACKCHANNEL_LOGOUT_EVENT]: {} }, ...(sid ? { sid } : {}) })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'logout+jwt' })
        .setIssuer(issuer)
        .setAudience(clientId)
        .setIssuedAt()
        .setExpirationTime(LOGOUT_TOKEN_LIFETIME)
        .setJti(randomUUID())
      if (sub) token.setSubject(sub)
      const response = await fetch(uri, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ logout_token: await token.sign(privateKey) }),
      })
      await response.body?.cancel()
      return response.status
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeAllConnections()
      }),
  }
}

import { createHash, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { text } from 'node:stream/consumers'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import type { TestAccount } from './provider.ts'

// A hand-made OpenID Connect provider on 127.0.0.1 for what a real one never does: ID tokens signed by
// the wrong key, for another client, expired, from another issuer, with the wrong nonce or none, an error
// sent back from the authorization endpoint, or no answer for half a minute. With no forgery it is a
// correct provider: discovery, JWKS, authorization (no page: straight back with a code), token with PKCE
// (S256) checked, userinfo. Any client secret is taken; only the client_id is checked.

export type Forgery =
  | 'none'
  | 'wrong-key' // signed by another key that carries the published key's kid
  | 'wrong-audience'
  | 'expired' // exp an hour ago, iat two hours ago
  | 'wrong-issuer'
  | 'wrong-nonce'
  | 'no-nonce'
  | 'error' // the authorization endpoint answers access_denied
  | 'slow' // every endpoint, discovery included, answers after 30 s

export type ForgedProvider = {
  issuer: string
  /** the path of every request the provider was sent, in order */
  requests: string[]
  /** what the provider gets wrong from now on */
  forge(forgery: Forgery): void
  /** the account whose claims the next ID tokens and userinfo answers carry */
  setAccount(account: TestAccount): void
  close(): Promise<void>
}

const SLOW_MS = 30_000
const ID_TOKEN_LIFETIME = 5 * 60
const HOUR = 60 * 60

type Authorization = { redirectUri: string; nonce?: string; codeChallenge: string }

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
  res.end(JSON.stringify(body))
}

function redirect(res: ServerResponse, to: string, params: Record<string, string | undefined>) {
  const url = new URL(to)
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value)
  res.writeHead(302, { location: url.href }).end()
}

/** The client_id a token request authenticates as, by HTTP Basic or in the form. */
function clientIdOf(req: IncomingMessage, form: URLSearchParams) {
  const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '')
  if (!basic) return form.get('client_id')
  return decodeURIComponent(Buffer.from(basic[1], 'base64').toString().split(':')[0])
}

export async function startForgedProvider(options: {
  clientId: string
  account: TestAccount
}): Promise<ForgedProvider> {
  const { clientId } = options
  let account = options.account
  let forgery: Forgery = 'none'

  const published = await generateKeyPair('RS256', { extractable: true })
  const other = await generateKeyPair('RS256')
  const kid = randomUUID()
  const jwks = { keys: [{ ...(await exportJWK(published.publicKey)), kid, alg: 'RS256', use: 'sig' }] }

  const codes = new Map<string, Authorization>()
  const accessTokens = new Set<string>()
  const requests: string[] = []
  const waits = new Set<NodeJS.Timeout>()

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer)
    requests.push(url.pathname)
    const answer = () =>
      route(req, res, url).catch((error: Error) =>
        send(res, 500, { error: 'server_error', error_description: error.message }),
      )
    if (forgery !== 'slow') return void answer()
    const wait = setTimeout(() => {
      waits.delete(wait)
      void answer()
    }, SLOW_MS)
    waits.add(wait)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  function idToken(nonce: string | undefined) {
    const now = Math.floor(Date.now() / 1000)
    const iat = forgery === 'expired' ? now - 2 * HOUR : now
    const name = [account.given_name, account.family_name].filter(Boolean).join(' ')
    const claims = {
      ...account,
      ...(name ? { name } : {}),
      ...(forgery === 'no-nonce' ? {} : { nonce: forgery === 'wrong-nonce' ? randomUUID() : nonce }),
    }
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(forgery === 'wrong-issuer' ? 'http://127.0.0.1:1/another-issuer' : issuer)
      .setAudience(forgery === 'wrong-audience' ? 'another-client' : clientId)
      .setSubject(account.sub)
      .setIssuedAt(iat)
      .setExpirationTime(forgery === 'expired' ? now - HOUR : now + ID_TOKEN_LIFETIME)
      .sign(forgery === 'wrong-key' ? other.privateKey : published.privateKey)
  }

  async function route(req: IncomingMessage, res: ServerResponse, url: URL) {
    const query = url.searchParams
    switch (url.pathname) {
      case '/.well-known/openid-configuration':
        return send(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          userinfo_endpoint: `${issuer}/userinfo`,
          end_session_endpoint: `${issuer}/logout`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code'],
          subject_types_supported: ['public'],
          scopes_supported: ['openid', 'email', 'profile', 'groups'],
          claims_supported: ['sub', 'email', 'email_verified', 'name', 'given_name', 'family_name', 'groups'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          code_challenge_methods_supported: ['S256'],
          id_token_signing_alg_values_supported: ['RS256'],
        })
      case '/jwks':
        return send(res, 200, jwks)
      case '/authorize': {
        const redirectUri = query.get('redirect_uri')
        if (query.get('client_id') !== clientId || !redirectUri) return send(res, 400, { error: 'invalid_request' })
        const state = query.get('state') ?? undefined
        if (forgery === 'error')
          return redirect(res, redirectUri, {
            error: 'access_denied',
            error_description: 'The user refused to sign in',
            state,
          })
        const codeChallenge = query.get('code_challenge')
        if (!codeChallenge || query.get('code_challenge_method') !== 'S256')
          return redirect(res, redirectUri, {
            error: 'invalid_request',
            error_description: 'PKCE S256 required',
            state,
          })
        const code = randomUUID()
        codes.set(code, { redirectUri, nonce: query.get('nonce') ?? undefined, codeChallenge })
        return redirect(res, redirectUri, { code, state })
      }
      case '/token': {
        const form = new URLSearchParams(await text(req))
        if (clientIdOf(req, form) !== clientId) return send(res, 401, { error: 'invalid_client' })
        const code = form.get('code') ?? ''
        const authorization = codes.get(code)
        codes.delete(code) // a code is good once
        const verifier = form.get('code_verifier') ?? ''
        const challenge = createHash('sha256').update(verifier).digest('base64url')
        if (
          form.get('grant_type') !== 'authorization_code' ||
          !authorization ||
          authorization.redirectUri !== form.get('redirect_uri') ||
          authorization.codeChallenge !== challenge
        )
          return send(res, 400, { error: 'invalid_grant' })
        const accessToken = randomUUID()
        accessTokens.add(accessToken)
        return send(res, 200, {
          access_token: accessToken,
          token_type: 'Bearer',
          expires_in: HOUR,
          id_token: await idToken(authorization.nonce),
        })
      }
      case '/userinfo': {
        const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1]
        if (!token || !accessTokens.has(token)) return send(res, 401, { error: 'invalid_token' })
        return send(res, 200, account)
      }
      case '/logout': {
        const back = query.get('post_logout_redirect_uri')
        if (back) return redirect(res, back, { state: query.get('state') ?? undefined })
        res.writeHead(200, { 'content-type': 'text/plain' }).end('Signed out')
        return
      }
      default:
        return send(res, 404, { error: 'not_found' })
    }
  }

  return {
    issuer,
    requests,
    forge(next) {
      forgery = next
    },
    setAccount(next) {
      account = next
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const wait of waits) clearTimeout(wait)
        waits.clear()
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeAllConnections() // a 'slow' request still waiting is cut, not waited for
      }),
  }
}

/** A port on 127.0.0.1 that nothing listens on: a provider that is down. */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
  return port
}

import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose'
import * as oidc from 'openid-client'
import { getEnv } from '#app/utils/env.server.ts'
import { query, sql } from '#db/client.ts'
import { readToken } from '../auth/token.server.ts'
import { askProvider, knownConfiguration, ProviderUnavailable, providerConfiguration } from './client.server.ts'
import { loadProvider, type Provider } from './providers.server.ts'

// Signing out of a session opened through a provider, both ways:
//   - the person signs out of the portal: the portal session ends as always, and the browser is sent on to the
//     provider's end-session endpoint (RP-initiated logout) with the ID token as the hint, to come back to the
//     portal's landing page; a provider without the endpoint, or not answering, is skipped;
//   - the provider says a person's session there ended (back-channel logout): a logout token, signed with the
//     provider's keys for the portal's client, names the subject or the provider's session, and every portal
//     session opened from it ends at once (ended_sessions, which every request checks).

const TAKE_SESSION = sql(`
  DELETE FROM sso_sessions s USING identity_providers p
   WHERE s.session_id = :session AND p.id = s.provider_id
  RETURNING p.slug, s.id_token AS "idToken"`)

/** Where to send the browser after the portal session ended: the provider's end-session address, if it has one. */
export async function providerSignOutUrl(portalToken: string | undefined): Promise<string | undefined> {
  const session = await readToken(portalToken)
  if (!session) return undefined
  const [row] = await query<{ slug: string; idToken: string | null }>(TAKE_SESSION, { session: session.sid })
  if (!row) return undefined
  const provider = await loadProvider(row.slug)
  if (!provider) return undefined
  try {
    const configuration = await (knownConfiguration(provider.id) ?? providerConfiguration(provider))
    if (!configuration.serverMetadata().end_session_endpoint) return undefined
    const parameters: Record<string, string> = {
      post_logout_redirect_uri: `${getEnv().PUBLIC_URL}/`,
      client_id: provider.clientId,
    }
    if (row.idToken) parameters.id_token_hint = row.idToken
    return oidc.buildEndSessionUrl(configuration, parameters).href
  } catch {
    // signed out of the portal all the same; the provider's own session is the provider's
    return undefined
  }
}

/** A logout token the portal does not accept: answered 400, nothing ended. */
export class LogoutTokenRefused extends Error {
  override name = 'LogoutTokenRefused'
}

const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout'
const LOGOUT_TOKEN_MAX_AGE = '10m'

const keySets = new Map<string, { uri: string; keys: ReturnType<typeof createRemoteJWKSet> }>()

function keysOf(provider: Provider, uri: string) {
  const kept = keySets.get(provider.id)
  if (kept?.uri === uri) return kept.keys
  const keys = createRemoteJWKSet(new URL(uri), { timeoutDuration: 3000 })
  keySets.set(provider.id, { uri, keys })
  return keys
}

const END_SESSIONS = sql(`
  WITH ended AS (
    DELETE FROM sso_sessions
     WHERE provider_id = :provider
       AND (CAST(:subject AS text) IS NULL OR subject = :subject)
       AND (CAST(:providerSession AS text) IS NULL OR provider_session = :providerSession)
    RETURNING session_id, expires_at)
  INSERT INTO ended_sessions (session_id, expires_at) SELECT session_id, expires_at FROM ended
  ON CONFLICT (session_id) DO NOTHING
  RETURNING session_id`)

/**
 * A back-channel logout from the provider `slug`: the logout token checked (signature by the provider's keys,
 * issuer, audience the portal's client id, recent, the logout event, no nonce, a subject or a session), then the
 * portal sessions it names ended. Answers how many ended.
 */
export async function backchannelLogout(slug: string, logoutToken: string | null): Promise<number> {
  const provider = await loadProvider(slug)
  if (!provider) throw new LogoutTokenRefused('No identity provider has that name.')
  if (!logoutToken) throw new LogoutTokenRefused('The logout_token is missing.')
  const configuration = await providerConfiguration(provider)
  const metadata = configuration.serverMetadata()
  if (!metadata.jwks_uri) throw new LogoutTokenRefused('The provider publishes no keys.')
  let payload: Record<string, unknown>
  try {
    const verified = await askProvider(provider.id, () =>
      jwtVerify(logoutToken, keysOf(provider, metadata.jwks_uri!), {
        issuer: metadata.issuer,
        audience: provider.clientId,
        maxTokenAge: LOGOUT_TOKEN_MAX_AGE,
        requiredClaims: ['iat', 'jti', 'events'],
      }),
    )
    payload = verified.payload
  } catch (error) {
    if (error instanceof ProviderUnavailable) throw error
    if (error instanceof joseErrors.JOSEError)
      throw new LogoutTokenRefused(`The logout token is not valid: ${error.message}`)
    throw error
  }
  const events = payload.events
  if (!events || typeof events !== 'object' || !(BACKCHANNEL_EVENT in events))
    throw new LogoutTokenRefused('The logout token carries no back-channel logout event.')
  if ('nonce' in payload) throw new LogoutTokenRefused('A logout token carries no nonce.')
  const subject = typeof payload.sub === 'string' ? payload.sub : null
  const providerSession = typeof payload.sid === 'string' ? payload.sid : null
  if (!subject && !providerSession)
    throw new LogoutTokenRefused('The logout token names neither a subject nor a session.')
  const ended = await query(END_SESSIONS, { provider: provider.id, subject, providerSession })
  return ended.length
}

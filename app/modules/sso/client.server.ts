import * as oidc from 'openid-client'
import CircuitBreaker from 'opossum'

// The portal as an OpenID Connect client of each provider (openid-client). What a provider publishes (its
// discovery document, then its keys, which openid-client fetches and caches itself) is kept per process for
// CONFIGURATION_KEPT_MS. Every request to a provider is cut after REQUEST_TIMEOUT_SECONDS, and goes through
// that provider's circuit breaker: after BREAKER_FAILURES requests in a row that found it down or slow, the
// portal stops asking for BREAKER_RESET_MS and says at once that it is not answering, so a dead provider
// costs a sign-in page no more than a moment and the rest of the portal nothing.

const REQUEST_TIMEOUT_SECONDS = 3
const CONFIGURATION_KEPT_MS = 60 * 60 * 1000
const BREAKER_FAILURES = 3
const BREAKER_RESET_MS = 30_000

/** What the client needs of a provider's row. */
export type ProviderClient = {
  id: string
  issuer: string
  clientId: string
  clientSecret: string
  /** changes whenever the row does, so a changed provider is discovered again */
  version: string
}

/** A provider that is down, slow, or answers with something that is no OpenID Connect. */
export class ProviderUnavailable extends Error {
  override name = 'ProviderUnavailable'
}

const isLoopback = (issuer: string) => ['localhost', '127.0.0.1', '[::1]'].includes(new URL(issuer).hostname)

/** Whether an error from openid-client means the provider did not answer as a provider should. */
export function isUnreachable(error: unknown): boolean {
  if (error instanceof ProviderUnavailable || error instanceof TypeError) return true
  if (error instanceof Error && (error as { code?: string }).code === 'EOPENBREAKER') return true
  if (!(error instanceof oidc.ClientError)) return false
  const cause = error.cause as { status?: number } | undefined
  switch (error.code) {
    case 'OAUTH_TIMEOUT':
    case 'OAUTH_ABORT':
    case 'OAUTH_RESPONSE_IS_NOT_JSON':
      return true
    case 'OAUTH_RESPONSE_IS_NOT_CONFORM':
      return typeof cause?.status !== 'number' || cause.status >= 500 || cause.status === 404
    default:
      return isNetworkError(error.cause)
  }
}

/**
 * A request that got no answer at all (refused, reset, no such host): Node's fetch says so with a TypeError, the
 * fetch the web server installs (Remix's) with a FetchError of type "system".
 */
const isNetworkError = (cause: unknown) =>
  cause instanceof TypeError ||
  (cause instanceof Error && cause.name === 'FetchError' && (cause as { type?: string }).type === 'system')

type Task<T> = () => Promise<T>
const breakers = new Map<string, CircuitBreaker<[Task<unknown>], unknown>>()

function breakerOf(providerId: string) {
  let breaker = breakers.get(providerId)
  if (!breaker) {
    breaker = new CircuitBreaker((task: Task<unknown>) => task(), {
      timeout: false, // each request has its own timeout
      volumeThreshold: BREAKER_FAILURES,
      // open only when every request of the window failed (opossum opens above the percentage)
      errorThresholdPercentage: 99,
      rollingCountTimeout: BREAKER_RESET_MS,
      resetTimeout: BREAKER_RESET_MS,
      // a refused token or a wrong code is the provider answering: only silence opens the circuit
      errorFilter: (error: unknown) => !isUnreachable(error),
    })
    breakers.set(providerId, breaker)
  }
  return breaker
}

/**
 * A request to a provider through its breaker: a provider down or slow (now, or lately) is a
 * ProviderUnavailable; other errors (a token refused, an OAuth error) pass as they are.
 */
export async function askProvider<T>(providerId: string, task: Task<T>): Promise<T> {
  try {
    return (await breakerOf(providerId).fire(task)) as T
  } catch (error) {
    if (isUnreachable(error)) throw new ProviderUnavailable('The identity provider is not answering.', { cause: error })
    throw error
  }
}

const configurations = new Map<string, { version: string; at: number; configuration: Promise<oidc.Configuration> }>()

/** The provider's configuration, discovered (and kept) through its breaker. */
export function providerConfiguration(provider: ProviderClient): Promise<oidc.Configuration> {
  const kept = configurations.get(provider.id)
  if (kept && kept.version === provider.version && Date.now() - kept.at < CONFIGURATION_KEPT_MS)
    return kept.configuration
  const configuration = askProvider(provider.id, () => discover(provider))
  configurations.set(provider.id, { version: provider.version, at: Date.now(), configuration })
  // a failed discovery is not kept: the next sign-in asks again (the breaker decides how soon)
  configuration.catch(() => {
    if (configurations.get(provider.id)?.configuration === configuration) configurations.delete(provider.id)
  })
  return configuration
}

/** Read a provider's discovery document (the issuer it names must be the one given). */
export async function discover(provider: Pick<ProviderClient, 'issuer' | 'clientId' | 'clientSecret'>) {
  const configuration = await oidc.discovery(
    new URL(provider.issuer),
    provider.clientId,
    undefined,
    oidc.ClientSecretBasic(provider.clientSecret),
    {
      timeout: REQUEST_TIMEOUT_SECONDS,
      // the ID token's signature is checked against the provider's published keys, not taken on trust because it
      // came over the token endpoint's TLS connection (openid-client skips the check otherwise)
      execute: [oidc.enableNonRepudiationChecks, ...(isLoopback(provider.issuer) ? [oidc.allowInsecureRequests] : [])],
    },
  )
  configuration.timeout = REQUEST_TIMEOUT_SECONDS
  return configuration
}

/** The cached configuration, if there is one, without asking the provider (a sign-out must not wait on it). */
export function knownConfiguration(providerId: string): Promise<oidc.Configuration> | undefined {
  return configurations.get(providerId)?.configuration
}

/** Forget a provider's configuration and breaker (it was changed or removed). */
export function forgetProvider(providerId: string) {
  configurations.delete(providerId)
  breakers.get(providerId)?.shutdown()
  breakers.delete(providerId)
}

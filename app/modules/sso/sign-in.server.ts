import { Authenticator } from 'remix-auth'
import type { SessionUser } from '../auth/service.server.ts'
import { notFound } from '../errors.ts'
import { accountFor, openSession, recordProviderSignIn, SignInRefused } from './accounts.server.ts'
import { ProviderUnavailable } from './client.server.ts'
import { loadProvider } from './providers.server.ts'
import { OpenIdConnectStrategy } from './strategy.server.ts'

// A sign-in through a provider, start and callback alike: the strategy for the address's provider, whose verify
// function finds (or links, or creates) the account and opens the portal's usual session.

type ProviderSignInResult = { user: SessionUser; token: string; returnTo: string }

/** What a page says when a provider does not answer. */
export const notAnswering = (name: string) =>
  `${name} sign-in is not answering; try again or use your password where allowed.`

/**
 * Sign in through the provider `slug`: throws the redirect to the provider (the first request), or answers the
 * account and session (the callback). Refusals are SignInRefused (with the person's words), a provider down or
 * slow is ProviderUnavailable, an unknown provider a 404.
 */
export async function signInThroughProvider(
  request: Request,
  slug: string,
  address: string | undefined,
): Promise<ProviderSignInResult> {
  const provider = await loadProvider(slug)
  if (!provider) throw notFound('No identity provider has that name.')
  if (!provider.clientSecret) {
    // the key that sealed it was replaced: nothing the person can do, and the provider must not be asked
    await recordProviderSignIn({ provider, address, refused: 'unreachable' })
    throw new ProviderUnavailable(`The client secret of ${provider.name} cannot be read; it must be set again.`)
  }
  const strategy = new OpenIdConnectStrategy<ProviderSignInResult>(provider, address, async (signIn) => {
    const user = await accountFor(signIn.provider, signIn.claims)
    const session = await openSession(signIn.provider, user, signIn.claims, signIn.idToken)
    await recordProviderSignIn({ provider, subject: signIn.claims.sub, userId: user.id, address: signIn.address })
    return { ...session, returnTo: signIn.returnTo }
  })
  return new Authenticator<ProviderSignInResult>().use(strategy, 'oidc').authenticate('oidc', request)
}

export { ProviderUnavailable, SignInRefused }

import { json, redirect } from '@remix-run/node'
import { landingPath } from '#app/modules/auth/permissions.ts'
import { loadProvider } from '#app/modules/sso/providers.server.ts'
import type { Refusal } from '#app/modules/sso/schema.ts'
import {
  notAnswering,
  ProviderUnavailable,
  SignInRefused,
  signInThroughProvider,
} from '#app/modules/sso/sign-in.server.ts'
import { forgetStateCookie } from '#app/modules/sso/strategy.server.ts'
import { clientAddress } from '#app/utils/client-address.server.ts'
import { safeRedirect } from '#app/utils/redirect.ts'
import { commitToken } from '#app/utils/session.server.ts'

// The two addresses of a sign-in through a provider: /sso/<provider> sends the person there, /sso/<provider>/callback
// is where the provider sends them back. Either answers with the page of what went wrong, never a stack trace.

/** What the page shows when the sign-in did not happen. */
export type SsoProblem = { provider: { slug: string; name: string }; message: string; retry: boolean }

/** Refusals of a sign-in that went wrong on the way (400); the others refuse the person (403). */
const ANSWERED_BADLY = new Set<Refusal>(['state', 'nonce', 'token', 'provider_error'])

export async function ssoLoader(request: Request, slug: string) {
  try {
    const { user, token, returnTo } = await signInThroughProvider(request, slug, clientAddress(request))
    const to = safeRedirect(returnTo, landingPath(user.roleId))
    const headers = new Headers()
    headers.append('Set-Cookie', await commitToken(request, token))
    headers.append('Set-Cookie', await forgetStateCookie())
    return redirect(to, { headers })
  } catch (error) {
    if (error instanceof Response) throw error
    const provider = await loadProvider(slug)
    const named = { slug, name: provider?.name ?? slug }
    if (error instanceof ProviderUnavailable)
      // eslint-disable-next-line portal/one-error-path -- the sign-in's own page (try again, back to sign in), no refusal
      return json<SsoProblem>({ provider: named, message: notAnswering(named.name), retry: true }, { status: 503 })
    if (error instanceof SignInRefused)
      return json<SsoProblem>(
        { provider: named, message: error.message, retry: error.reason !== 'disabled' },
        { status: ANSWERED_BADLY.has(error.reason) ? 400 : 403 },
      )
    throw error
  }
}

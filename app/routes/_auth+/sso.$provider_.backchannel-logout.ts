import type { ActionFunctionArgs } from '@remix-run/node'
import { invalid } from '#app/modules/errors.ts'
import { ProviderUnavailable } from '#app/modules/sso/client.server.ts'
import { backchannelLogout, LogoutTokenRefused } from '#app/modules/sso/logout.server.ts'
import { apiRoute, methodNotAllowed } from '#app/utils/api.server.ts'

// /sso/<provider>/backchannel-logout: the provider's server tells the portal that a person's session there ended
// (OpenID Connect Back-Channel Logout): a form POST with a signed logout_token. 200 when the sessions it names are
// ended (or there were none), 400 with `{ message }` for a token the portal does not accept. Registered with the
// provider as the client's back-channel logout URI; it carries no cookie, so no session or same-site check.

const NO_STORE = { 'Cache-Control': 'no-store' }
const MAX_BODY = 64 * 1024

export const action = apiRoute(async ({ request, params }: ActionFunctionArgs) => {
  if (request.method !== 'POST') return methodNotAllowed(['POST'])
  const form = (request.headers.get('Content-Type') ?? '').startsWith('application/x-www-form-urlencoded')
    ? new URLSearchParams((await request.text()).slice(0, MAX_BODY))
    : new URLSearchParams()
  try {
    await backchannelLogout(params.provider ?? '', form.get('logout_token'))
  } catch (error) {
    if (error instanceof LogoutTokenRefused) throw invalid(error.message)
    if (error instanceof ProviderUnavailable) throw invalid("The provider's keys could not be read; send it again.")
    throw error
  }
  return new Response(null, { status: 200, headers: NO_STORE })
})

export const loader = apiRoute(async () => methodNotAllowed(['POST']))

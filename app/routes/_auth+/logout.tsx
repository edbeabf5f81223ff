import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { providerSignOutUrl } from '#app/modules/sso/logout.server.ts'
import { pageAction } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { endPageSession, isSameSiteRequest, sessionToken } from '#app/utils/session.server.ts'

// Logout ends the session, on the server too, and goes to the landing page. Only POST logs out, so a link cannot.
// A session opened through a company's provider goes on to that provider's sign-out, which sends the browser
// back to the landing page.
export const action = (args: ActionFunctionArgs) => pageAction(args, logOut)

async function logOut({ request }: ActionFunctionArgs) {
  // another site may not sign a visitor out
  if (!isSameSiteRequest(request)) return redirect('/')
  const token = await sessionToken(request)
  const cookie = await endPageSession(request)
  const to = (await providerSignOutUrl(token)) ?? '/'
  return redirect(to, { headers: { 'Set-Cookie': cookie } })
}

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, () => redirect('/'))

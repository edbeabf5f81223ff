import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { pageAction } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { endPageSession, isSameSiteRequest } from '#app/utils/session.server.ts'

// Logout ends the session, on the server too, and goes to the landing page. Only POST logs out, so a link cannot.
export const action = (args: ActionFunctionArgs) => pageAction(args, logOut)

async function logOut({ request }: ActionFunctionArgs) {
  // another site may not sign a visitor out
  if (!isSameSiteRequest(request)) return redirect('/')
  return redirect('/', { headers: { 'Set-Cookie': await endPageSession(request) } })
}

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, () => redirect('/'))

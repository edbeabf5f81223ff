import { redirect, type ActionFunctionArgs } from '@remix-run/node'
import { endPageSession, isSameSiteRequest } from '#app/utils/session.server.ts'

// Logout ends the session, on the server too, and goes to the landing page. Only POST logs out, so a link cannot.
export async function action({ request }: ActionFunctionArgs) {
  // another site may not sign a visitor out
  if (!isSameSiteRequest(request)) return redirect('/')
  return redirect('/', { headers: { 'Set-Cookie': await endPageSession(request) } })
}

export async function loader() {
  return redirect('/')
}

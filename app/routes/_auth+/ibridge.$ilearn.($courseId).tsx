import { json, redirect, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { isRouteErrorResponse, Link, useRouteError } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Spinner } from '#app/components/ui/spinner.tsx'
import { BRIDGE_ADVICE, BRIDGE_HEADING, BRIDGE_REFUSED, parseBridgePath } from '#app/modules/bridge/schema.ts'
import { signInWithBridgeLink } from '#app/modules/bridge/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { commitToken } from '#app/utils/session.server.ts'
import { redirectWithError } from '#app/utils/toast.server.ts'

// The external-bridge link (docs/product.md#bridge-links): /ibridge/{token}/{courseId},
// /ibridge/program/{token}, /ibridge/admin/{token}. The loader does the work, so the link signs in
// and redirects without JavaScript; a link it cannot use gets an error page, and nobody is signed in.

export const meta: MetaFunction = () => [
  { title: `Signing you in · ${PRODUCT_NAME}` },
  { name: 'robots', content: 'noindex' },
]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request, params }: LoaderFunctionArgs) {
  // a link checker's HEAD must not spend a single-use link
  if (request.method === 'HEAD') return json(null)
  const link = parseBridgePath(params.ilearn ?? '', params.courseId)
  // a refused link is its error page (below), kept by no cache
  const signedIn = await signInWithBridgeLink(link)
  const headers = new Headers({ 'Set-Cookie': await commitToken(request, signedIn.token), 'Cache-Control': 'no-store' })
  if (signedIn.notice) return redirectWithError(signedIn.to, signedIn.notice, { headers })
  return redirect(signedIn.to, { headers })
}

/** What shows while the server works (and to a HEAD request): the loader answers with a redirect. */
export default function BridgeSignIn() {
  return (
    <div className="card flex w-full max-w-md flex-col items-center gap-4 p-8 text-center">
      <Spinner label="Please wait" size="md" className="text-brand-600" />
      <p className="text-lg font-semibold" aria-hidden>
        Please wait
      </p>
      <p className="text-sm text-slate-600">Signing you in…</p>
    </div>
  )
}

export function ErrorBoundary() {
  const error = useRouteError()
  if (!isRouteErrorResponse(error) || (error.status !== 401 && error.status !== 403)) return <GeneralErrorBoundary />
  const data: unknown = error.data
  const reason =
    data && typeof data === 'object' && 'message' in data && typeof data.message === 'string'
      ? data.message
      : BRIDGE_REFUSED.invalid
  return (
    <div className="card w-full max-w-md p-8">
      <h1 className="text-2xl font-bold">{BRIDGE_HEADING}</h1>
      <p className="mt-3 font-medium text-slate-800">{reason}</p>
      <p className="mt-2 text-slate-600">{BRIDGE_ADVICE}</p>
      <Link to="/sign-in" className="btn-primary mt-6 inline-flex">
        Sign in
      </Link>
    </div>
  )
}

import { isRouteErrorResponse, Link, useRouteError, useRouteLoaderData } from '@remix-run/react'
import { can } from '#app/modules/auth/permissions.ts'
import type { loader as rootLoader } from '#app/root.tsx'

const TEXTS: Record<number, { title: string; body: string }> = {
  400: { title: 'That request was not understood', body: 'Check what you entered and try again.' },
  401: { title: 'Please sign in', body: 'Your session has ended. Sign in again to continue.' },
  403: {
    title: 'Not available to you',
    body: 'Your account does not have access to this page. If you think it should, ask your administrator.',
  },
  404: { title: 'Page not found', body: 'The page you asked for does not exist or has moved.' },
  409: {
    title: 'That cannot be done right now',
    body: 'Something else changed it first, or it is not ready yet. Go back and try again.',
  },
  413: { title: 'That is too large', body: 'Send something smaller and try again.' },
  429: { title: 'Too many tries', body: 'Wait a minute, then try again.' },
}

const SERVER_ERROR = {
  title: 'Something went wrong on our side',
  body: 'We could not load this page. Try again in a moment; if it keeps happening, tell your administrator.',
}

/** Where to go from an error page: the home of whoever is signed in, or the public home. */
function useHome() {
  const user = useRouteLoaderData<typeof rootLoader>('root')?.user ?? null
  if (!user) return { to: '/', label: 'Go to the home page', signedIn: false }
  return can({ roleId: user.roleId }, 'enter:admin-area')
    ? { to: '/admin/dashboard', label: 'Go to the admin dashboard', signedIn: true }
    : { to: '/courses', label: 'Go to My Courses', signedIn: true }
}

/**
 * Every page's error boundary (root, the layouts and the pages): what happened in plain words, the
 * refusal's own reason when the server gave one (a 4xx from a service), and a link back home. A 500
 * never shows its error. Root's and the layouts' boundaries stand in for the whole page, so theirs is the
 * page's `main` landmark; a page's own is drawn inside its layout's `main`, so it is a plain block.
 */
export function GeneralErrorBoundary({ landmark = false }: { landmark?: boolean }) {
  const Box = landmark ? 'main' : 'div'
  const error = useRouteError()
  const home = useHome()
  const status = isRouteErrorResponse(error) ? error.status : 500
  const text = TEXTS[status] ?? SERVER_ERROR
  const data: unknown = isRouteErrorResponse(error) ? error.data : undefined
  const reason =
    status < 500 && data && typeof data === 'object' && 'message' in data && typeof data.message === 'string'
      ? data.message
      : undefined
  if (status >= 500) console.error(error)
  return (
    <Box className="mx-auto flex min-h-[60vh] max-w-xl flex-col items-center justify-center gap-4 px-6 text-center">
      <p className="text-sm font-semibold text-brand-600">Error {status}</p>
      <h1 className="text-2xl font-bold">{text.title}</h1>
      {reason && reason !== text.title ? <p className="font-medium text-slate-800">{reason}</p> : null}
      <p className="text-slate-600">{text.body}</p>
      <div className="flex gap-3">
        <Link to={home.to} className="btn-primary" reloadDocument>
          {home.label}
        </Link>
        {!home.signedIn || status === 401 ? (
          <Link to="/sign-in" className="btn-secondary">
            Sign in
          </Link>
        ) : null}
      </div>
    </Box>
  )
}

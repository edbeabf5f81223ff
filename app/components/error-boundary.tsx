import { isRouteErrorResponse, Link, useRouteError } from '@remix-run/react'

const TEXTS: Record<number, { title: string; body: string }> = {
  400: { title: 'That request was not understood', body: 'Check what you entered and try again.' },
  401: { title: 'Please sign in', body: 'Your session has ended. Sign in again to continue.' },
  403: { title: 'Not available to you', body: 'Your account does not have access to this page.' },
  404: { title: 'Page not found', body: 'The page you asked for does not exist or has moved.' },
}

/** What went wrong and what to do, in the product's tone; never a stack trace. */
export function GeneralErrorBoundary() {
  const error = useRouteError()
  const status = isRouteErrorResponse(error) ? error.status : 500
  // a refusal that says why (text a form cannot take) is shown in its own words
  const reason =
    isRouteErrorResponse(error) && status === 400 ? (error.data as { message?: unknown })?.message : undefined
  const text = TEXTS[status] ?? {
    title: 'Something went wrong',
    body: 'We could not load this page. Try again in a moment; if it keeps happening, tell your administrator.',
  }
  if (status >= 500) console.error(error)
  return (
    <main className="mx-auto flex min-h-[60vh] max-w-xl flex-col items-center justify-center gap-4 px-6 text-center">
      <p className="text-sm font-semibold text-brand-600">Error {status}</p>
      <h1 className="text-2xl font-bold">{text.title}</h1>
      <p className="text-slate-600">{typeof reason === 'string' && reason ? reason : text.body}</p>
      <div className="flex gap-3">
        <Link to="/" className="btn-primary" reloadDocument>
          Go to the home page
        </Link>
        {status === 401 ? (
          <Link to="/sign-in" className="btn-secondary">
            Sign in
          </Link>
        ) : null}
      </div>
    </main>
  )
}

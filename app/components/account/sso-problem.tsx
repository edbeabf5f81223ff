import { Link } from '@remix-run/react'

/** The page of a sign-in through a provider that did not happen: why, and where to go from there. */
export function SsoProblemCard({
  provider,
  message,
  retry,
}: {
  provider: { slug: string; name: string }
  message: string
  retry: boolean
}) {
  return (
    <div className="card w-full max-w-md p-8">
      <h1 className="text-2xl font-bold">Not signed in</h1>
      <p role="alert" className="mt-4 rounded-md bg-red-50 p-4 text-sm text-red-900">
        {message}
      </p>
      <div className="mt-6 flex flex-wrap gap-3">
        {retry ? (
          <Link to={`/sso/${provider.slug}`} className="btn-primary" reloadDocument>
            Try {provider.name} again
          </Link>
        ) : null}
        <Link to="/sign-in" className="btn-secondary">
          Back to sign in
        </Link>
      </div>
    </div>
  )
}

import { json, type LoaderFunctionArgs } from '@remix-run/node'
import { Outlet, useLoaderData, useRouteLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { SiteHeader } from '#app/components/layout/site-header.tsx'
import type { loader as rootLoader } from '#app/root.tsx'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireUser } from '#app/utils/session.server.ts'

// Every learner page needs a signed-in user; a visitor goes to /sign-in and comes back after.
export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request)
  return json({ user })
}

export default function LearnerLayout() {
  const { user } = useLoaderData<typeof loader>()
  const root = useRouteLoaderData<typeof rootLoader>('root')
  return (
    <>
      <SiteHeader user={user} marketingUrl={root?.marketingUrl ?? null} />
      <main className="mx-auto max-w-7xl px-4 py-8 sm:px-6">
        <Outlet />
      </main>
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary landmark />
}

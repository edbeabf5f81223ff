import { Outlet, useRouteLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { SiteHeader } from '#app/components/layout/site-header.tsx'
import type { loader as rootLoader } from '#app/root.tsx'

// Public pages: the visitor header, or the signed-in user's (a learner gets My Courses, Explore and search).
export default function PublicLayout() {
  const root = useRouteLoaderData<typeof rootLoader>('root')
  return (
    <>
      <SiteHeader user={root?.user ?? null} marketingUrl={root?.marketingUrl ?? null} />
      <Outlet />
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary landmark />
}

import { Outlet, useRouteLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { SiteHeader } from '#app/components/layout/site-header.tsx'
import type { loader as rootLoader } from '#app/root.tsx'

export default function AuthLayout() {
  const root = useRouteLoaderData<typeof rootLoader>('root')
  return (
    <>
      <SiteHeader user={null} marketingUrl={root?.marketingUrl ?? null} />
      <main className="flex min-h-[calc(100vh-4rem)] items-start justify-center px-4 py-16">
        <Outlet />
      </main>
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary landmark />
}

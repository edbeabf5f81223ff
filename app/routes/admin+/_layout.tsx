import { json, type LoaderFunctionArgs } from '@remix-run/node'
import { Outlet, useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { AdminSideMenu } from '#app/components/layout/admin-side-menu.tsx'
import { Logo } from '#app/components/layout/logo.tsx'
import { UserMenu } from '#app/components/layout/user-menu.tsx'
import { ROLE_NAMES, type RoleId } from '#app/modules/auth/roles.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'

// The guard of every /admin page: super admin, admin or coach; anyone else is turned away.
export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  return json({ user })
}

export default function AdminLayout() {
  const { user } = useLoaderData<typeof loader>()
  return (
    <div className="flex min-h-screen">
      <aside className="hidden w-60 shrink-0 bg-brand-900 md:block">
        <div className="flex h-16 items-center px-4 text-white">
          <span className="font-semibold">Administration</span>
        </div>
        <AdminSideMenu user={user} />
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="flex h-16 items-center gap-4 border-b border-slate-200 bg-white px-4 sm:px-6">
          <Logo to="/admin/dashboard" />
          <span className="ml-auto rounded-full bg-slate-100 px-2.5 py-1 text-xs font-medium text-slate-600">
            {ROLE_NAMES[user.roleId as RoleId]}
          </span>
          <UserMenu user={user} />
        </header>
        <details className="border-b border-slate-200 bg-brand-900 md:hidden">
          <summary className="cursor-pointer px-4 py-2 text-sm font-medium text-white">Menu</summary>
          <AdminSideMenu user={user} />
        </details>
        <main className="flex-1 px-4 py-8 sm:px-6">
          <Outlet />
        </main>
      </div>
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary landmark />
}

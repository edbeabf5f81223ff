import { json, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useLoaderData, useRouteLoaderData } from '@remix-run/react'
import { Toaster } from 'sonner'
import { GeneralErrorBoundary } from './components/error-boundary.tsx'
import { FlashMessage } from './components/flash-message.tsx'
import stylesheet from './tailwind.css'
import { PRODUCT_NAME } from './utils/brand.ts'
import { getEnv } from './utils/env.server.ts'
import { useNonce } from './utils/nonce.ts'
import { pageLoader } from './utils/pages.server.ts'
import { getSessionUser } from './utils/session.server.ts'
import { getToast } from './utils/toast.server.ts'

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: stylesheet },
  { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
]

export const meta: MetaFunction = () => [
  { title: `${PRODUCT_NAME} — database and data-warehousing training` },
  {
    name: 'description',
    content: 'Courses on SQL, data modelling, ETL and data warehousing, with honest progress tracking.',
  },
]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadRoot)

async function loadRoot({ request }: LoaderFunctionArgs) {
  const [user, { toast, headers }] = await Promise.all([getSessionUser(request), getToast(request)])
  return json({ user: user ?? null, toast: toast ?? null, marketingUrl: getEnv().MARKETING_URL ?? null }, { headers })
}

/** The signed-in user (or null) anywhere in the tree. */
export function useOptionalUser() {
  return useRouteLoaderData<typeof loader>('root')?.user ?? null
}

export function Layout({ children }: { children: React.ReactNode }) {
  // the page's Content-Security-Policy runs Remix's inline scripts by this nonce only
  const nonce = useNonce()
  return (
    <html lang="en" className="h-full">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body className="min-h-full">
        {children}
        {/* at most 3 notifications, 3 s each, bottom right */}
        <Toaster position="bottom-right" visibleToasts={3} duration={3000} closeButton />
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  )
}

export default function App() {
  const { toast } = useLoaderData<typeof loader>()
  return (
    <>
      <FlashMessage flash={toast} />
      <Outlet />
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary landmark />
}

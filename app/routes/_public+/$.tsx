import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { notFound } from '#app/modules/errors.ts'
import { pageLoader } from '#app/utils/pages.server.ts'

// Unknown pages: a 404 with the site's error page, under the site's header (a visitor's, a learner's or
// the admin side's link), so the way on is where it always is.
export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage() {
  // the error page's own title, so it shows no reason beside it: there is nothing more to say
  throw notFound('Page not found')
}

export default function NotFound() {
  return null
}

// the public layout draws the header only, so this error page is the page's main landmark
export function ErrorBoundary() {
  return <GeneralErrorBoundary landmark />
}

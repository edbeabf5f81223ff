import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'

// Unknown pages: a 404 with the site's error page.
export async function loader() {
  throw new Response('Not found', { status: 404 })
}

export default function NotFound() {
  return null
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

import { json, type HeadersFunction, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { CertificateStatement } from '#app/components/certificates/certificate-card.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { publicCertificate } from '#app/modules/certificates/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { clientAddress } from '#app/utils/client-address.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'

// The public page a certificate's link and QR code open: anyone, signed in or not, sees whether it is valid
// and what it states; never the learner's email, nor why it was revoked. Kept out of search engines.

// The page itself, as well as its data: no search engine indexes it, found or not. The page holds the
// signed-in user's menu, so only its data (the same for everyone) may be kept by a shared cache.
export const headers: HeadersFunction = () => ({ 'X-Robots-Tag': 'noindex, nofollow' })

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  const c = data?.certificate
  const title = c ? `Certificate: ${c.title} · ${PRODUCT_NAME}` : `Certificate · ${PRODUCT_NAME}`
  return [
    { title },
    { name: 'robots', content: 'noindex, nofollow' },
    { property: 'og:title', content: title },
    ...(c
      ? [
          {
            property: 'og:description',
            content: `${c.state === 'valid' ? 'Valid' : 'Revoked'}: ${c.learnerName} completed the ${c.kind} ${c.title}.`,
          },
        ]
      : []),
  ]
}

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ params, request }: LoaderFunctionArgs) {
  const certificate = await publicCertificate(params.code ?? '', { address: clientAddress(request) })
  return json(
    { certificate },
    // the state may change (a revoke): a cache may keep it a minute, never longer
    { headers: { 'Cache-Control': 'public, max-age=60', 'X-Robots-Tag': 'noindex, nofollow' } },
  )
}

export default function VerifyCertificate() {
  const { certificate } = useLoaderData<typeof loader>()
  return (
    <main className="mx-auto max-w-2xl px-4 py-10 sm:px-6">
      <p className="mb-4 text-sm text-slate-600">Certificate check</p>
      <section className="card p-6" aria-label="Certificate">
        <CertificateStatement certificate={certificate} headingLevel={1} />
      </section>
      <p className="mt-6 text-sm text-slate-600">
        This page is the {PRODUCT_NAME}’s own record of the certificate: what it shows is what was issued.{' '}
        <Link to="/verify" className="text-brand-700 underline">
          Check another code
        </Link>
      </p>
    </main>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

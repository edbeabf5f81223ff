import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { CertificateStatement } from '#app/components/certificates/certificate-card.tsx'
import { CopyLink } from '#app/components/certificates/copy-link.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { linkedInAddUrl } from '#app/modules/certificates/linkedin.ts'
import { listCertificates } from '#app/modules/certificates/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireUser } from '#app/utils/session.server.ts'

export const meta: MetaFunction = () => [{ title: `My Certificates · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request)
  // one's own, the admin side's too (who may read everyone's)
  const certificates = await listCertificates(user, { userId: user.id, limit: 1000 })
  return json({ certificates })
}

/** A learner's certificates, each with what it takes to show it: the PDF, the link, LinkedIn, the credential. */
export default function MyCertificates() {
  const { certificates } = useLoaderData<typeof loader>()
  return (
    <>
      <h1 className="text-2xl font-bold">My Certificates</h1>
      {certificates.length === 0 ? (
        <div className="card mt-8 p-10 text-center">
          <h2 className="text-lg font-semibold">No certificates yet</h2>
          <p className="mt-2 text-slate-600">
            When you complete a course or program that gives a certificate, it appears here within a few seconds.
          </p>
          <Link to="/courses" className="btn-primary mt-6">
            Go to My Courses
          </Link>
        </div>
      ) : (
        <ul className="mt-6 space-y-6">
          {certificates.map((c) => (
            <li key={c.id} id={`certificate-${c.code}`} className="card scroll-mt-20 p-6">
              <CertificateStatement certificate={c} />
              {c.state === 'valid' ? (
                <div className="mt-6 space-y-4 border-t border-slate-100 pt-4">
                  <div className="flex flex-wrap gap-3">
                    <a href={c.pdfUrl} className="btn-primary" download>
                      Download PDF
                    </a>
                    <a href={linkedInAddUrl(c)} className="btn-secondary" target="_blank" rel="noopener noreferrer">
                      Add to LinkedIn
                      <span className="sr-only"> (opens LinkedIn in a new tab)</span>
                    </a>
                    <a href={`/certificates/${c.code}/credential`} className="btn-secondary" download>
                      Download credential
                    </a>
                  </div>
                  <CopyLink url={c.verifyUrl} label="Public link: anyone who opens it sees that it is valid" />
                </div>
              ) : (
                <p className="mt-4 text-sm text-slate-600">
                  This certificate was revoked; its public link says so. Ask your administrator if you think it is a
                  mistake.
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

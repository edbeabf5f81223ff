import { hoursText } from '#app/modules/certificates/facts.ts'
import { formatLongDate } from '#app/utils/format.ts'

type Stated = {
  code: string
  kind: 'course' | 'program'
  title: string
  learnerName: string
  issuerName: string
  issuedAt: string
  minutes: number
  state: 'valid' | 'revoked'
  revokedAt: string | null
}

/** What a certificate states, with its state first: the verify page and My Certificates draw it alike. */
export function CertificateStatement({
  certificate: c,
  headingLevel = 2,
}: {
  certificate: Stated
  headingLevel?: 1 | 2
}) {
  const Heading = headingLevel === 1 ? 'h1' : 'h2'
  return (
    <div className="space-y-4">
      <p
        className={
          c.state === 'valid'
            ? 'inline-flex items-center gap-2 rounded-full bg-emerald-50 px-3 py-1 text-sm font-semibold text-emerald-800'
            : 'inline-flex items-center gap-2 rounded-full bg-red-50 px-3 py-1 text-sm font-semibold text-red-800'
        }
      >
        <span aria-hidden>{c.state === 'valid' ? '✓' : '✕'}</span>
        {c.state === 'valid'
          ? 'Valid certificate'
          : `Revoked on ${c.revokedAt ? formatLongDate(c.revokedAt) : 'an earlier date'}`}
      </p>
      <Heading className="text-2xl font-bold break-words">{c.learnerName}</Heading>
      <p className="text-slate-700">
        completed the {c.kind} <strong className="break-words">{c.title}</strong>
      </p>
      <dl className="grid grid-cols-1 gap-3 text-sm sm:grid-cols-2">
        <div>
          <dt className="text-slate-500">Date</dt>
          <dd className="font-medium">{formatLongDate(c.issuedAt)}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Hours</dt>
          <dd className="font-medium">{hoursText(c.minutes)}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Issued by</dt>
          <dd className="font-medium break-words">{c.issuerName}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Certificate code</dt>
          <dd className="font-mono font-medium break-all">{c.code}</dd>
        </div>
      </dl>
    </div>
  )
}

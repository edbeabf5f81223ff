import type { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Actor } from '../auth/roles.ts'
import { csvRecords } from '../csv/writer.server.ts'
import { certificateHours } from './facts.ts'
import { staffCertificateStream, type CertificateView, type StaffCertificateView } from './service.server.ts'

// The Certificates page's Export CSV: every certificate of the filter on screen, through the CSV toolkit the
// other exports use (a formula in a name or a title is neutralised). The columns are those of
// `portal certificates list --csv`, with the learner's email after their name.

type Column<T> = [string, (c: T) => string | number | null]

/** A certificate's columns in a CSV or a table, `portal certificates list`'s among them: the header, the cell. */
export const CERTIFICATE_COLUMNS: Column<CertificateView>[] = [
  ['code', (c) => c.code],
  ['state', (c) => c.state],
  ['kind', (c) => c.kind],
  ['title', (c) => c.title],
  ['learner', (c) => c.learnerName],
  ['issued', (c) => c.issuedAt],
  ['hours', (c) => certificateHours(c.minutes)],
  ['issuer', (c) => c.issuerName],
  ['revoked at', (c) => c.revokedAt],
  ['revoked reason', (c) => c.revokedReason],
  ['verify URL', (c) => c.verifyUrl],
]

/** The admin side's export: the same, with the learner's email after their name. */
const learnerAt = CERTIFICATE_COLUMNS.findIndex(([header]) => header === 'learner') + 1
const COLUMNS: Column<StaffCertificateView>[] = [
  ...CERTIFICATE_COLUMNS.slice(0, learnerAt),
  ['email', (c) => c.learnerEmail],
  ...CERTIFICATE_COLUMNS.slice(learnerAt),
]

/**
 * The CSV of a filter, as a function that writes it into `sink` (ending it) and resolves when done. A refused
 * actor or filter is refused here, before anything is written; a failure part-way destroys `sink`.
 */
export function certificatesCsv(actor: Actor, input: unknown) {
  const rows = staffCertificateStream(actor, input)
  return async (sink: Writable, signal?: AbortSignal) => {
    const [records, csv] = csvRecords(
      COLUMNS.map(([header]) => header),
      (c: StaffCertificateView) => COLUMNS.map(([, cell]) => cell(c)),
    )
    await Promise.all([rows(records, signal), pipeline([records, csv, sink], { signal })])
  }
}

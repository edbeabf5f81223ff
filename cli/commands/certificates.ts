import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Command } from 'commander'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { CERTIFICATE_COLUMNS } from '#app/modules/certificates/export.server.ts'
import {
  backfillCertificates,
  listCertificates,
  reissueCertificate,
  revokeCertificate,
  type CertificateView,
} from '#app/modules/certificates/service.server.ts'
import { csvRecords } from '#app/modules/csv/writer.server.ts'
import { courseOf, programOf, userOf } from '../courses.ts'
import { withDatabase } from '../database.ts'
import { UsageError, plural, textTable as table, usageOf } from '../output.ts'

// `portal certificates …`: certificates of completion, as the admin side sees them. Data (a table, CSV,
// JSON) goes to stdout, what happened to stderr. A certificate that is not there, is revoked already, or
// certificates switched off exit 1; wrong input (an unknown course, a missing reason) exits 2.

type SubjectOptions = { course?: string; program?: string }

/** Exactly one of `--course` and `--program`, checked before the database is opened. */
function checkSubject(options: SubjectOptions) {
  if ((options.course === undefined) === (options.program === undefined))
    throw new UsageError('pass one of --course or --program.')
}

/** The course or program of `--course` or `--program`, as the service takes it, and its title. */
async function subjectOf(options: SubjectOptions) {
  if (options.course !== undefined) {
    const { id, title } = await courseOf(options.course)
    return { courseId: id, title }
  }
  const { id, title } = await programOf(options.program!)
  return { programId: id, title }
}

const COLUMNS = CERTIFICATE_COLUMNS
const HEADER = COLUMNS.map(([header]) => header)
const cellsOf = (c: CertificateView) => COLUMNS.map(([, cell]) => cell(c))

/** The list's fields as the options that set them, so a refusal names the flag to fix. */
const FLAG_OF: Record<string, string> = {
  userId: '--user',
  courseId: '--course',
  programId: '--program',
  state: '--state',
  q: '--q',
  limit: '--limit',
}

type ListOptions = SubjectOptions & {
  user?: string
  state?: string
  q?: string
  limit: string
  json?: boolean
  csv?: boolean
}

const describe = (c: CertificateView) => `${c.code}, ${c.learnerName}'s certificate of "${c.title}"`

export function registerCertificates(program: Command) {
  const certificates = program
    .command('certificates')
    .description('certificates of completion: give the missing ones, list, revoke, re-issue')

  certificates
    .command('issue')
    .description(
      "give the certificates a course's or program's complete learners lack (those who completed before certificates were switched on)",
    )
    .option('--course <course>', "the course's id or exact title")
    .option('--program <program>', "the program's id or exact title")
    .option('--dry-run', 'list who would get one; give none')
    .option('--json', 'print the result as JSON')
    .action(async (options: SubjectOptions & { dryRun?: boolean; json?: boolean }) => {
      checkSubject(options)
      const { title, result } = await withDatabase(async () => {
        const { title, ...subject } = await subjectOf(options)
        return { title, result: await backfillCertificates(SYSTEM, { ...subject, dryRun: Boolean(options.dryRun) }) }
      })
      const count = plural(result.issued.length, 'certificate')
      if (options.json) console.log(JSON.stringify(result, null, 2))
      else if (result.issued.length)
        console.log(
          table([
            result.dryRun ? ['LEARNER'] : ['LEARNER', 'CODE'],
            ...result.issued.map((i) => (result.dryRun ? [i.learnerName] : [i.learnerName, i.code ?? ''])),
          ]),
        )
      console.error(
        result.dryRun ? `Dry run, nothing given: ${count} to give for "${title}".` : `Gave ${count} for "${title}".`,
      )
    })

  certificates
    .command('list')
    .description('the certificates, newest first')
    .option('--course <course>', "only this course's, by id or exact title")
    .option('--program <program>', "only this program's, by id or exact title")
    .option('--user <user>', "only this learner's, by id, email or username")
    .option('--state <state>', 'only valid or only revoked ones')
    .option('--q <text>', "only those whose learner's name, title or code holds the text")
    .option('--limit <n>', 'how many certificates to list (1 to 1000)', '100')
    .option('--json', 'print the certificates as JSON')
    .option('--csv', 'print the certificates as CSV')
    .action(async (options: ListOptions) => {
      if (options.json && options.csv) throw new UsageError('--json and --csv cannot be combined.')
      const found = await withDatabase(async () =>
        listCertificates(SYSTEM, {
          courseId: options.course === undefined ? undefined : (await courseOf(options.course)).id,
          programId: options.program === undefined ? undefined : (await programOf(options.program)).id,
          userId: options.user === undefined ? undefined : (await userOf(options.user)).id,
          state: options.state,
          q: options.q,
          limit: options.limit,
        }).catch((error) => usageOf(error, (field) => FLAG_OF[field] ?? 'input')),
      )
      if (options.json) return console.log(JSON.stringify(found, null, 2))
      if (options.csv) return pipeline([Readable.from(found), ...csvRecords(HEADER, cellsOf), process.stdout])
      if (!found.length) return console.error('No certificates.')
      console.log(
        table([
          HEADER.map((header) => header.toUpperCase()),
          ...found.map((c) => cellsOf(c).map((cell) => String(cell ?? ''))),
        ]),
      )
    })

  certificates
    .command('revoke')
    .description('revoke a valid certificate; the verify page then says it is revoked')
    .argument('<code>', "the certificate's code")
    .requiredOption('--reason <text>', 'why, kept for the admin side (never shown on the verify page)')
    .option('--json', 'print the certificate as JSON')
    .action(async (code: string, options: { reason: string; json?: boolean }) => {
      const revoked = await withDatabase(() =>
        revokeCertificate(SYSTEM, code, { reason: options.reason }).catch((error) => usageOf(error)),
      )
      if (options.json) console.log(JSON.stringify(revoked, null, 2))
      console.error(`Revoked ${describe(revoked)}.`)
    })

  certificates
    .command('reissue')
    .description(
      "give a new certificate stating the learner's name and the title as they are now; the old one is revoked",
    )
    .argument('<code>', "the old certificate's code")
    .option('--json', 'print the new certificate as JSON')
    .action(async (code: string, options: { json?: boolean }) => {
      const given = await withDatabase(() => reissueCertificate(SYSTEM, code))
      if (options.json) console.log(JSON.stringify(given, null, 2))
      console.error(`Re-issued ${code} as ${describe(given)}; the old one is revoked.`)
    })
}

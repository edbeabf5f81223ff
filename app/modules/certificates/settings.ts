import { z } from 'zod'
import { fileRef, flag, keptFlag } from '../content/schema.ts'

// A course's or program's certificate settings as the admin pages' form and the /api's edit calls send them
// (docs/certificates.md#switching-them-on). Certificates on need an issuer's name: every certificate states it,
// and the database refuses a course or program that gives them without one.

export const ISSUER_REQUIRED = 'Enter the issuer’s name: every certificate states it.'
const NO_SIGNATURE = 'Choose a signature image.'

const issuerName = z
  .string({ invalid_type_error: 'The issuer’s name is text.' })
  .trim()
  .max(200, 'The issuer’s name is at most 200 characters.')
  // printed on one line of the PDF
  .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, 'The issuer’s name is one line of text.')

/**
 * The fields the /api's edit calls (editCourseDetails, editProgram) take beside their own, each left out to
 * keep what is stored.
 */
export const CertificateFields = z.object({
  certificates: keptFlag.describe('certificates of completion given for it; left out keeps the setting'),
  certificateIssuer: issuerName
    .optional()
    .describe('the issuer’s name every certificate states; needed while certificates are on'),
  certificateSignature: z
    .preprocess((value) => (value === '' ? null : value), fileRef(NO_SIGNATURE).nullable())
    .optional()
    .describe(
      'the key of a signature image uploaded with addCertificateSignature (PNG or JPEG); null removes it, ' +
        'left out keeps it',
    ),
  issueToCompleted: flag(false).describe(
    'with certificates on: give them, through the background jobs, to learners who completed before',
  ),
})

/**
 * The Certificate settings form of a course's or program's page: the switch, the issuer, a signature (a new
 * file, or the current one's JSON), a box to remove the current signature and one to issue to learners who
 * completed before.
 */
export const CertificateSettingsFormSchema = z
  .object({
    certificates: flag(false),
    certificateIssuer: issuerName.default(''),
    certificateSignature: fileRef(NO_SIGNATURE).optional(),
    removeCertificateSignature: flag(false),
    issueToCompleted: flag(false),
  })
  .superRefine((value, context) => {
    if (value.certificates && value.certificateIssuer === '')
      context.addIssue({ code: 'custom', path: ['certificateIssuer'], message: ISSUER_REQUIRED })
  })

/** What the page says once the settings are saved. */
export const certificatesSavedMessage = ({ certificates, queued }: { certificates: boolean; queued: boolean }) =>
  `Certificate settings saved: certificates are ${certificates ? 'on' : 'off'}.` +
  (queued ? ' Learners who already completed are being given theirs in the background.' : '')

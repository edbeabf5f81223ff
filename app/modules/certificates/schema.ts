import { z } from 'zod'
import { isUuid } from '../ids.ts'
import { listLimit } from '../list-limit.ts'

const id = (what: string) =>
  z
    .string()
    .refine(isUuid, { message: `${what} id is not valid.` })
    .optional()

/** The certificates a list asks for (My Certificates, the Certificates page, `portal certificates list`). */
export const CertificateListQuerySchema = z.object({
  userId: id('A user'),
  courseId: id('A course'),
  programId: id('A program'),
  /** the learner's name, the title or the code, in part */
  q: z.string().trim().max(200, 'Search is at most 200 characters.').optional(),
  state: z.enum(['valid', 'revoked'], { errorMap: () => ({ message: 'State must be valid or revoked.' }) }).optional(),
  limit: listLimit(100),
})

/** The Certificates page's filter and its export: the list's, without a limit (the page pages it, the export is all of it). */
export const CertificateFilterSchema = CertificateListQuerySchema.omit({ limit: true })

export const RevokeSchema = z.object({
  reason: z
    .string({ required_error: 'Enter a reason.' })
    .trim()
    .min(1, 'Enter a reason.')
    .max(500, 'A reason is at most 500 characters.'),
})

/** Backfill: a course or a program whose complete learners get the certificates they lack. */
export const BackfillSchema = z
  .object({ courseId: id('A course'), programId: id('A program'), dryRun: z.boolean().default(false) })
  .refine((v) => Boolean(v.courseId) !== Boolean(v.programId), { message: 'Name one course or one program.' })

import { z } from 'zod'
import { ACCOUNT_DISABLED } from '../auth/schema.ts'

// The external bridge (docs/product.md#bridge-links): what a partner system's sign-in link may say, and what we
// answer when it cannot be used. Shared by the /ibridge page, the /api/ibridge calls and the CLI.

/** A bridge token lives at most this long (exp − iat), and may be used once. */
export const BRIDGE_TOKEN_MAX_LIFETIME_SECONDS = 5 * 60

/**
 * The reasons a link is refused, in plain words; none says more about accounts than "no account", but for the
 * link's own user, vouched for by the partner's signature, that their account is disabled.
 */
export const BRIDGE_REFUSED = {
  invalid: 'This sign-in link is not valid.',
  expired: 'This sign-in link has expired.',
  used: 'This sign-in link has already been used.',
  noAccount: 'There is no account for this sign-in link.',
  notAdmin: 'This sign-in link opens the admin area, which your account cannot use.',
  superAdmin: 'The super admin signs in with a username and password only.',
  disabled: ACCOUNT_DISABLED,
} as const

export const BRIDGE_HEADING = 'This sign-in link cannot be used'
export const BRIDGE_ADVICE =
  'Ask for a new link from the system you came from, or sign in with your username and password.'

/** The toast when the link's course is not the learner's; they land on My Courses. */
export const COURSE_NOT_ASSIGNED = 'This course is not assigned to you.'

const text = (label: string, max: number) =>
  z
    .string({ required_error: `${label} is required field.`, invalid_type_error: `${label} must be a string.` })
    .trim()
    .min(1, `${label} is required field.`)
    .max(max, `${label} is too long.`)

/** POST /api/ibridge/checkIbridgeCourses { ilearn, courseId }. */
export const CheckBridgeCourseSchema = z.object({
  ilearn: text('ilearn', 4096),
  courseId: text('courseId', 100),
})
export type CheckBridgeCourseInput = z.infer<typeof CheckBridgeCourseSchema>

/** Which page a link opens: `/ibridge/{token}/{courseId}`, `/ibridge/program/{token}`, `/ibridge/admin/{token}`. */
export type BridgeTarget = { kind: 'course'; courseId: string } | { kind: 'program' } | { kind: 'admin' }

/** Read the two path segments: the keywords program and admin come first, a token never equals them. */
export function parseBridgePath(first: string, second: string | undefined): { token: string; target: BridgeTarget } {
  if (first === 'program' || first === 'admin') return { token: second ?? '', target: { kind: first } }
  if (second === undefined || second === '') return { token: first, target: { kind: 'program' } }
  return { token: first, target: { kind: 'course', courseId: second } }
}

/** The path of a link to the target, with the token where the route expects it. */
export function bridgePath(token: string, target: BridgeTarget) {
  const t = encodeURIComponent(token)
  if (target.kind === 'course') return `/ibridge/${t}/${encodeURIComponent(target.courseId)}`
  return `/ibridge/${target.kind}/${t}`
}

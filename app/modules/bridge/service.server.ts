import { randomUUID } from 'node:crypto'
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import { Op, UniqueConstraintError } from 'sequelize'
import { getEnv, getSecrets } from '#app/utils/env.server.ts'
import { db } from '#db/client.ts'
import type { User } from '#db/models/index.ts'
import { can } from '../auth/permissions.ts'
import { toSessionUser, type SessionUser } from '../auth/service.server.ts'
import { issueToken } from '../auth/token.server.ts'
import { canOpenCourse } from '../courses/access.server.ts'
import { forbidden, invalid, notFound, unauthorized } from '../errors.ts'
import { isUuid } from '../ids.ts'
import { findUserRecord, getProfile } from '../users/service.server.ts'
import {
  BRIDGE_REFUSED,
  BRIDGE_TOKEN_MAX_LIFETIME_SECONDS,
  bridgePath,
  COURSE_NOT_ASSIGNED,
  type BridgeTarget,
  type CheckBridgeCourseInput,
} from './schema.ts'

// The external bridge (docs/product.md#bridge-links): a partner system signs a short-lived HS256 JWT with
// BRIDGE_SECRET naming the learner (`sub` = email or external id); we accept it once, sign that
// user in with our own session token, and say where they go. Pages, /api and the CLI all come here.

/** Partner clocks drift a little; more than this and the token is refused. */
const CLOCK_TOLERANCE_SECONDS = 30
/** Spent jtis are kept this long after their token expired, then purged. */
const KEEP_SPENT_SECONDS = 24 * 60 * 60
const PURGE_EVERY_MS = 10 * 60 * 1000
/** Far above any real token; longer input is refused before any work. */
const MAX_TOKEN_LENGTH = 4096
const MAX_CLAIM_LENGTH = 255

const bridgeKey = () => new TextEncoder().encode(getSecrets().bridgeSecret)

type BridgeClaims = { sub: string; jti: string; exp: number }

/** Check signature, algorithm and claims; throw 401 with the reason in plain words. */
async function verifyBridgeToken(token: string): Promise<BridgeClaims> {
  if (!token || token.length > MAX_TOKEN_LENGTH) throw unauthorized(BRIDGE_REFUSED.invalid)
  let payload
  try {
    // HS256 only: `alg: none`, other HMACs and every asymmetric algorithm are refused by jose here
    ;({ payload } = await jwtVerify(token, bridgeKey(), {
      algorithms: ['HS256'],
      requiredClaims: ['sub', 'jti', 'iat', 'exp'],
      maxTokenAge: BRIDGE_TOKEN_MAX_LIFETIME_SECONDS,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    }))
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw unauthorized(BRIDGE_REFUSED.expired)
    if (error instanceof joseErrors.JOSEError || error instanceof TypeError) throw unauthorized(BRIDGE_REFUSED.invalid)
    throw error
  }
  const { sub, jti, iat, exp } = payload
  const claim = (value: unknown): value is string =>
    typeof value === 'string' && value.trim() !== '' && value.length <= MAX_CLAIM_LENGTH
  if (!claim(sub) || !claim(jti) || typeof iat !== 'number' || typeof exp !== 'number')
    throw unauthorized(BRIDGE_REFUSED.invalid)
  // a long-lived token is refused outright, even while it is still within its own lifetime
  if (exp - iat > BRIDGE_TOKEN_MAX_LIFETIME_SECONDS || exp <= iat) throw unauthorized(BRIDGE_REFUSED.invalid)
  return { sub: sub.trim(), jti, exp }
}

/** The account a token names: its external id first (the partner's own key), else its email. */
async function findBridgeUser(sub: string): Promise<User | null> {
  const { User } = await db()
  return (await User.findOne({ where: { externalId: sub } })) ?? (await User.findOne({ where: { email: sub } }))
}

/** Spend the jti: the insert is the acceptance, so of two racing uses exactly one succeeds. */
async function spendJti(jti: string, exp: number) {
  const { BridgeTokenUse } = await db()
  try {
    await BridgeTokenUse.create({ jti, expiresAt: new Date(exp * 1000) })
  } catch (error) {
    if (error instanceof UniqueConstraintError) throw unauthorized(BRIDGE_REFUSED.used)
    throw error
  }
  await purgeSpentBridgeTokensNowAndThen()
}

let lastPurge = 0
async function purgeSpentBridgeTokensNowAndThen() {
  if (Date.now() - lastPurge < PURGE_EVERY_MS) return
  lastPurge = Date.now()
  await purgeSpentBridgeTokens()
}

/** Forget jtis whose tokens expired more than a day ago; their tokens are refused as expired anyway. */
export async function purgeSpentBridgeTokens(now = new Date()): Promise<number> {
  const { BridgeTokenUse } = await db()
  return BridgeTokenUse.destroy({
    where: { expiresAt: { [Op.lt]: new Date(now.getTime() - KEEP_SPENT_SECONDS * 1000) } },
  })
}

/**
 * Verify a bridge token, find its user, check that the target suits them, then spend the token and
 * issue our own session token. Any refusal throws (401, or 403 for a learner on an admin link) and
 * signs nobody in; the token is spent only when it is accepted.
 */
async function redeem(token: string, target: BridgeTarget): Promise<{ user: SessionUser; token: string }> {
  const claims = await verifyBridgeToken(token)
  const user = await findBridgeUser(claims.sub)
  if (!user) throw unauthorized(BRIDGE_REFUSED.noAccount)
  const refused = bridgeRefusal(user, target)
  if (refused) throw forbidden(refused)
  await spendJti(claims.jti, claims.exp)
  return { user: toSessionUser(user), token: await issueToken(user) }
}

/**
 * Whom a link may sign in, and where: never a disabled account, never the super admin; the admin area only for
 * the admin side.
 */
function bridgeRefusal(user: User, target: BridgeTarget): string | null {
  if (user.disabledAt) return BRIDGE_REFUSED.disabled
  // a partner system holding the bridge secret must not become the super admin
  if (!can(user, 'sign-in:bridge')) return BRIDGE_REFUSED.superAdmin
  if (target.kind === 'admin' && !can(user, 'enter:admin-area')) return BRIDGE_REFUSED.notAdmin
  return null
}

/** May the user open this course? It must exist, and be theirs directly or through a program. */
async function openableCourse(user: SessionUser, courseId: string) {
  if (!isUuid(courseId)) return { course: null, assigned: false }
  const { Course } = await db()
  const course = await Course.findByPk(courseId, { attributes: ['id', 'title'] })
  if (!course) return { course: null, assigned: false }
  return { course, assigned: await canOpenCourse(user, course.id) }
}

type BridgeSignIn = {
  user: SessionUser
  /** our own session token, for the cookie session */
  token: string
  /** where the browser goes next */
  to: string
  /** an error toast to show there, when the link's course is not theirs */
  notice?: string
}

/** The /ibridge page: sign the link's user in and choose the page it opens. */
export async function signInWithBridgeLink(link: { token: string; target: BridgeTarget }): Promise<BridgeSignIn> {
  const { user, token } = await redeem(link.token, link.target)
  const { target } = link
  if (target.kind === 'admin') return { user, token, to: '/admin/dashboard' }
  if (target.kind === 'program') return { user, token, to: '/courses' }
  const { course, assigned } = await openableCourse(user, target.courseId)
  if (course && assigned) return { user, token, to: `/course/${course.id}` }
  return { user, token, to: '/courses', notice: COURSE_NOT_ASSIGNED }
}

/** POST /api/ibridge/checkIbridgeCourses: sign in through the token and say whether the course is theirs. */
export async function checkBridgeCourse(input: CheckBridgeCourseInput) {
  const { user, token } = await redeem(input.ilearn, { kind: 'course', courseId: input.courseId })
  const { course, assigned } = await openableCourse(user, input.courseId)
  return {
    token,
    course: course ? { _id: course.id, title: course.title } : null,
    courseId: input.courseId,
    assigned,
  }
}

/** GET /api/ibridge/user/{ilearn}: sign in through the token and answer the user (as /api/user/profile does). */
export async function bridgeUser(ilearn: string) {
  const { user, token } = await redeem(ilearn, { kind: 'program' })
  return { token, user: await getProfile(user, user.id) }
}

/**
 * Sign a bridge token as a partner system would. For the CLI and tests only: the app itself never
 * signs these, it only accepts them.
 */
export async function signBridgeToken({
  sub,
  ttlSeconds = BRIDGE_TOKEN_MAX_LIFETIME_SECONDS,
  jti = randomUUID(),
}: {
  sub: string
  ttlSeconds?: number
  jti?: string
}): Promise<string> {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > BRIDGE_TOKEN_MAX_LIFETIME_SECONDS)
    throw invalid(`The link's lifetime must be 1 to ${BRIDGE_TOKEN_MAX_LIFETIME_SECONDS} seconds.`)
  const iat = Math.floor(Date.now() / 1000)
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(bridgeKey())
}

/** The full link, built from PUBLIC_URL (never from a request's Host header). */
export function bridgeLinkUrl(token: string, target: BridgeTarget) {
  return `${getEnv().PUBLIC_URL}${bridgePath(token, target)}`
}

/**
 * `portal bridge link`: a working link for an existing account (found by external id, email,
 * username or id) to the target; an admin link only for the admin side.
 */
export async function mintBridgeLink(options: {
  user: string
  target: BridgeTarget
  ttlSeconds?: number
}): Promise<{ url: string; user: SessionUser; expiresAt: Date; courseAssigned?: boolean }> {
  const identifier = options.user.trim()
  if (!identifier) throw invalid('Name the user: an email or an external id.')
  const { User } = await db()
  const user = (await User.findOne({ where: { externalId: identifier } })) ?? (await findUserRecord(identifier))
  if (!user) throw notFound(`No user with the email, external id, username or id "${identifier}".`)
  // a link the app would refuse is not made
  const refused = bridgeRefusal(user, options.target)
  if (refused) throw invalid(`No link for ${user.userName}: ${refused}`)
  // the token names the user the way a partner would: their external id if they have one, else their email
  const sub = user.externalId ?? user.email
  const ttlSeconds = options.ttlSeconds ?? BRIDGE_TOKEN_MAX_LIFETIME_SECONDS
  const token = await signBridgeToken({ sub, ttlSeconds })
  const sessionUser = toSessionUser(user)
  const courseAssigned =
    options.target.kind === 'course' ? (await openableCourse(sessionUser, options.target.courseId)).assigned : undefined
  return {
    url: bridgeLinkUrl(token, options.target),
    user: sessionUser,
    expiresAt: new Date(Date.now() + ttlSeconds * 1000),
    courseAssigned,
  }
}

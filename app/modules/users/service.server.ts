import { Op, UniqueConstraintError } from 'sequelize'
import { db, mapRows, pipeQuery, type RowStream, sequelize, transaction } from '#db/client.ts'
import type { User } from '#db/models/index.ts'
import type { DueFilter } from '../assignments/due-filter.ts'
import { dueFilterSql } from '../assignments/due.server.ts'
import { createPasswordLink, mailPasswordLink, replacePassword } from '../auth/password-links.server.ts'
import { hashPassword, verifyPassword } from '../auth/password.server.ts'
import { can, requirePermission } from '../auth/permissions.ts'
import { ADMIN_ROLES, ROLE, ROLE_BY_NAME, type Actor, type RoleId } from '../auth/roles.ts'
import { toSessionUser, type SessionUser } from '../auth/service.server.ts'
import { TIME_ZONE_CHOICE_MESSAGE } from '../deadlines/due.ts'
import { defaultTimeZone, reminderSettings } from '../deadlines/service.server.ts'
import { conflict, forbidden, invalid, notFound } from '../errors.ts'
import { isUuid } from '../ids.ts'
import { searchPattern } from '../search.ts'
import {
  NewCoachSchema,
  NewUserSchema,
  parsePasswordInput,
  PasswordChangeSchema,
  listedZone,
  ProfileSchema,
  type NewCoachInput,
  type NewUserInput,
  RegisterSchema,
  type RegisterInput,
  type PasswordChangeInput,
  type ProfileInput,
} from './schema.ts'

export const DUPLICATE_EMAIL = 'Email already exists.'
export const DUPLICATE_USERNAME = 'UserName already exists.'

export const CREATE_ROLE_DENIED = 'You do not have permission to create this kind of account.'

/** Admins give accounts the learner and coach roles; only the super admin gives the admin roles. */
export const mayCreateRole = (actor: Actor, roleId: RoleId) =>
  can(actor, ADMIN_ROLES.includes(roleId) ? 'manage:admins' : 'manage:people')

/**
 * Create an account. Admins create learners and coaches; only the super admin creates admins
 * (docs/product.md#roles). A duplicate email or username is a 409 naming the field.
 */
export async function createUser(actor: Actor, input: NewUserInput): Promise<SessionUser> {
  const data = NewUserSchema.parse(input)
  const roleId: RoleId = ROLE_BY_NAME[data.role]
  if (!mayCreateRole(actor, roleId)) throw forbidden(CREATE_ROLE_DENIED)

  return toSessionUser(await insertUser(data, roleId, await hashPassword(data.password)))
}

/** A new account row: a taken email or username answers 409 naming the field the old client reads. */
async function insertUser(data: NewCoachInput, roleId: RoleId, passwordHash: string | null) {
  const { User } = await db()
  await assertUnique(data.email, data.userName)
  try {
    return await User.create({
      firstName: data.firstName,
      lastName: data.lastName,
      userName: data.userName,
      email: data.email.toLowerCase(),
      passwordHash,
      roleId,
    })
  } catch (error) {
    // Lost a race with another create: the database's unique index has the last word.
    if (error instanceof UniqueConstraintError)
      throw duplicate(error.errors[0]?.path === 'user_name' ? 'userName' : 'email')
    throw error
  }
}

async function assertUnique(email: string, userName: string) {
  const { User } = await db()
  const clash = await User.findOne({ where: { [Op.or]: [{ email }, { userName }] }, attributes: ['email', 'userName'] })
  if (!clash) return
  throw duplicate(clash.email.toLowerCase() === email.toLowerCase() ? 'email' : 'userName')
}

function duplicate(field: 'email' | 'userName') {
  const message = field === 'email' ? DUPLICATE_EMAIL : DUPLICATE_USERNAME
  return conflict(message, { [field]: message })
}

/** A user as the old client's lists (usersList) read one. */
export type UserRow = {
  _id: string
  firstName: string
  lastName: string
  userName: string
  email: string
  role: { r_id: number }
  createdAt: string
  /** the account is disabled: it cannot sign in (docs/product.md#disabled-accounts) */
  disabled: boolean
}

function userRow(user: User): UserRow {
  return {
    _id: user.id,
    firstName: user.firstName,
    lastName: user.lastName,
    userName: user.userName,
    email: user.email,
    role: { r_id: user.roleId },
    createdAt: user.createdAt.toISOString(),
    disabled: user.disabledAt !== null,
  }
}

/** The profile the old client reads: the user with role and assignments, and their due-date choices. */
type Profile = UserRow & {
  assignedCourses: string[]
  assignedPrograms: string[]
  programsEnrolled: string[]
  /** the zone due dates are read in: the learner's own, or the portal's default */
  timeZone: string
  /** whether reminder mails about due dates go to them: false only where learners may turn them off and did */
  reminderMails: boolean
}

/** A learner reads only their own profile; the admin side reads anyone's. */
export async function getProfile(actor: Actor, userId: string): Promise<Profile> {
  if (actor.id !== userId) requirePermission(actor, 'read:people')
  if (!isUuid(userId)) throw notFound('User not found.')
  const { User, CourseAssignment, ProgramAssignment } = await db()
  const user = await User.findByPk(userId)
  if (!user) throw notFound('User not found.')
  const [courses, programs] = await Promise.all([
    CourseAssignment.findAll({ where: { userId }, attributes: ['courseId'], order: [['createdAt', 'ASC']] }),
    ProgramAssignment.findAll({ where: { userId }, attributes: ['programId'], order: [['createdAt', 'ASC']] }),
  ])
  const programIds = programs.map((p) => p.programId)
  const { learnersMayOptOut } = await reminderSettings()
  return {
    ...userRow(user),
    assignedCourses: courses.map((c) => c.courseId),
    assignedPrograms: programIds,
    programsEnrolled: programIds,
    timeZone: user.timeZone ?? defaultTimeZone(),
    reminderMails: learnersMayOptOut ? user.reminderMails : true,
  }
}

/** The account named by its id, email or username, as stored (the bridge reads its external id too). */
export async function findUserRecord(identifier: string): Promise<User | null> {
  const { User } = await db()
  const text = identifier.trim()
  return User.findOne({ where: isUuid(text) ? { id: text } : { [Op.or]: [{ email: text }, { userName: text }] } })
}

/** The user an operator names on the command line: an id, an email or a username. */
export async function findUserByIdentifier(identifier: string) {
  const user = await findUserRecord(identifier)
  if (!user) throw notFound(`No user with the id, email or username "${identifier.trim()}".`)
  return toSessionUser(user)
}

/**
 * PUT /api/user/editProfile and the profile pages: one's own names, time zone and reminder mails; the email
 * cannot change. The time zone is stored only when it changes what the learner's zone is: a learner on the
 * portal's default who saves it as it is shown keeps following the default. Reminder mails are the learner's
 * choice only where the admins allow it; elsewhere the field is ignored (a form opened before the admins
 * changed the setting still saves its names).
 */
export async function editProfile(actor: Actor, userId: string, input: ProfileInput): Promise<SessionUser> {
  if (!actor.id || actor.id !== userId) throw forbidden('You can edit only your own profile.')
  const data = ProfileSchema.parse(input)
  const { User } = await db()
  const user = await User.findByPk(userId)
  if (!user) throw notFound('User not found.')
  if (data.email && data.email.toLowerCase() !== user.email.toLowerCase())
    throw invalid('Email cannot be changed.', { email: 'Email cannot be changed.' })
  const choices = await dueDateChoices(user, data)
  const clash = await User.findOne({ where: { userName: data.userName, id: { [Op.ne]: userId } }, attributes: ['id'] })
  if (clash) throw duplicate('userName')
  try {
    await user.update({
      firstName: data.firstName,
      lastName: data.lastName,
      userName: data.userName,
      ...choices,
    })
  } catch (error) {
    if (error instanceof UniqueConstraintError) throw duplicate('userName')
    throw error
  }
  return toSessionUser(user)
}

/** The time zone and reminder-mail changes a profile save makes (none when it leaves them as they are). */
async function dueDateChoices(user: User, data: { timeZone?: string | null; reminderMails?: boolean }) {
  const changes: { timeZone?: string | null; reminderMails?: boolean } = {}
  if (data.timeZone === null) changes.timeZone = null
  else if (data.timeZone !== undefined) {
    const zone = listedZone(data.timeZone)
    if (!zone) throw invalid(TIME_ZONE_CHOICE_MESSAGE, { timeZone: TIME_ZONE_CHOICE_MESSAGE })
    if (!sameZone(zone, user.timeZone ?? defaultTimeZone())) changes.timeZone = zone
  }
  if (data.reminderMails !== undefined && (await reminderSettings()).learnersMayOptOut)
    changes.reminderMails = data.reminderMails
  return changes
}

/** Two names of one zone (Etc/UTC and UTC, the list's name and another spelling of it). */
const sameZone = (a: string, b: string) => {
  const resolved = (name: string) => new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone
  return resolved(a) === resolved(b)
}

/**
 * PUT /api/user/profilePassword and the password pages: checks the current password, then stores the
 * new one and bumps the token version, which signs out every session and token (ADR 003).
 */
export async function changePassword(actor: Actor, userId: string, input: PasswordChangeInput) {
  if (!actor.id || actor.id !== userId) throw forbidden('You can change only your own password.')
  const data = parsePasswordInput(PasswordChangeSchema, input)
  const { User } = await db()
  const user = await User.findByPk(userId)
  if (!user) throw notFound('User not found.')
  if (!(await verifyPassword(user.passwordHash, data.currentPassword)))
    throw invalid('The current password is not right.', { currentPassword: 'The current password is not right.' })
  const passwordHash = await hashPassword(data.password)
  await transaction((transaction) => replacePassword(user, passwordHash, transaction))
}

/** What the people lists sort by; newest first unless the caller says otherwise. */
export const USER_SORT_KEYS = ['firstName', 'lastName', 'userName', 'email', 'createdAt'] as const
export const USER_LIST_ORDER = { sort: 'createdAt', dir: 'desc' } as const

type UserListQuery = {
  q?: string
  sort?: (typeof USER_SORT_KEYS)[number]
  dir?: 'asc' | 'desc'
  offset?: number
  /** undefined: the whole list (the /api's old client expects it) */
  limit?: number
  /** learners with an overdue assignment, or one due within so many days */
  due?: DueFilter
  /** the moment `due` is read at (now) */
  now?: Date
}

const LIST_ROLES = { learner: [ROLE.learner], admin: ADMIN_ROLES, coach: [ROLE.coach] } as const

/**
 * The Users, Admin's and Coach's lists: searched (names, username, email), sorted and paged in
 * the database, so 100,000 users stay fast. The admin side only.
 */
export async function listUsers(actor: Actor, kind: keyof typeof LIST_ROLES, query: UserListQuery = {}) {
  requirePermission(actor, 'read:people')
  const { User } = await db()
  const { search, pattern } = searchPattern(query.q)
  const connection = query.due ? await sequelize() : null
  const where = {
    roleId: [...LIST_ROLES[kind]],
    ...(query.due && connection
      ? {
          id: {
            [Op.in]: connection.literal(
              dueFilterSql(query.due, query.now ?? new Date(), (value) => connection.escape(value as string)),
            ),
          },
        }
      : {}),
    ...(search
      ? {
          [Op.or]: [
            { firstName: { [Op.iLike]: pattern } },
            { lastName: { [Op.iLike]: pattern } },
            { userName: { [Op.iLike]: pattern } },
            { email: { [Op.iLike]: pattern } },
          ],
        }
      : {}),
  }
  const sort = query.sort ?? USER_LIST_ORDER.sort
  // newest first by default; a column named without a direction reads A to Z
  const dir = query.dir ?? (sort === USER_LIST_ORDER.sort ? USER_LIST_ORDER.dir : 'asc')
  const { rows, count } = await User.findAndCountAll({
    where,
    attributes: ['id', 'firstName', 'lastName', 'userName', 'email', 'roleId', 'createdAt', 'disabledAt'],
    order: [
      [sort, dir === 'asc' ? 'ASC' : 'DESC'],
      ['id', 'ASC'],
    ],
    offset: query.offset ?? 0,
    limit: query.limit,
  })
  return {
    total: count,
    rows: rows.map(userRow),
  }
}

const USER_COLUMNS: Record<(typeof USER_SORT_KEYS)[number], string> = {
  firstName: 'first_name',
  lastName: 'last_name',
  userName: 'user_name',
  email: 'email',
  createdAt: 'created_at',
}

type UserRecord = {
  id: string
  first_name: string
  last_name: string
  user_name: string
  email: string
  role_id: number
  created_at: Date
  disabled: boolean
}

/**
 * The whole list for the /api's unpaged calls: the rows listUsers gives, in its order, streamed from a
 * cursor as the answer is sent. The admin side only; a refusal throws here, before any row is read.
 */
export function userListStream(
  actor: Actor,
  kind: keyof typeof LIST_ROLES,
  query: Omit<UserListQuery, 'offset' | 'limit'> = {},
): RowStream {
  requirePermission(actor, 'read:people')
  const { search, pattern } = searchPattern(query.q)
  const sort = query.sort && Object.hasOwn(USER_COLUMNS, query.sort) ? query.sort : USER_LIST_ORDER.sort
  const dir = query.dir ?? (sort === USER_LIST_ORDER.sort ? USER_LIST_ORDER.dir : 'asc')
  const values: unknown[] = [[...LIST_ROLES[kind]]]
  const matches = search
    ? `AND (first_name ILIKE $2 OR last_name ILIKE $2 OR user_name ILIKE $2 OR email ILIKE $2)`
    : ''
  if (search) values.push(pattern)
  const statement = {
    text: `SELECT id, first_name, last_name, user_name, email, role_id, created_at, disabled_at IS NOT NULL AS disabled
             FROM users
            WHERE role_id = ANY($1) ${matches}
            ORDER BY ${USER_COLUMNS[sort]} ${dir === 'asc' ? 'ASC' : 'DESC'}, id ASC`,
    values,
  }
  const toRow = (record: UserRecord): UserRow => ({
    _id: record.id,
    firstName: record.first_name,
    lastName: record.last_name,
    userName: record.user_name,
    email: record.email,
    role: { r_id: Number(record.role_id) },
    createdAt: new Date(record.created_at).toISOString(),
    disabled: record.disabled,
  })
  return (sink, signal) => pipeQuery(statement, [mapRows(toRow), sink], { signal })
}

/**
 * POST /api/user/register and the Create New User / Create New Admin popups: the account, then an
 * invitation mail with a link to choose a password (7 days), sent once the account is saved.
 */
export async function registerUser(actor: Actor, input: RegisterInput): Promise<SessionUser> {
  const user = await createUser(actor, RegisterSchema.parse(input))
  await inviteByMail(user)
  return user
}

/** POST /api/user/coach and the Create New Coach popup: a coach without a password, invited by mail. */
export async function createCoach(actor: Actor, input: NewCoachInput): Promise<SessionUser> {
  requirePermission(actor, 'manage:people', 'Only admins can create coaches.')
  const data = NewCoachSchema.parse(input)
  // no password: the coach chooses one from the invitation mail
  const user = toSessionUser(await insertUser(data, ROLE.coach, null))
  await inviteByMail(user)
  return user
}

async function inviteByMail(user: SessionUser) {
  const token = await createPasswordLink(user.id, 'invite')
  try {
    await mailPasswordLink(user, token, 'invite')
  } catch (error) {
    // the account stands; the person can still use Forgot Password
    console.error(`The invitation mail to ${user.email} could not be sent:`, error)
  }
}

/** Only the super admin removes admins; not themselves, and never a super admin. */
export async function removeAdmin(actor: Actor, userId: string) {
  requirePermission(actor, 'manage:admins', 'Only the super admin can remove admins.')
  if (!isUuid(userId)) throw notFound('User not found.')
  if (userId === actor.id) throw invalid('You cannot remove your own account.')
  const { User } = await db()
  const user = await User.findByPk(userId)
  if (!user) throw notFound('User not found.')
  if (user.roleId !== ROLE.admin) throw invalid('Only admins can be removed here.')
  await user.destroy()
  return { userName: user.userName }
}

/** An account's state after it was disabled or enabled, as the CLI prints it. */
type AccountState = {
  id: string
  userName: string
  email: string
  /** when it was disabled, ISO; null while it is enabled */
  disabledAt: string | null
  /** false when the account already was as asked, and nothing changed */
  changed: boolean
}

export const DISABLE_DENIED = 'Only admins can disable or enable accounts.'
export const DISABLE_ADMIN_DENIED = 'Only the super admin can disable or enable admin accounts.'
export const DISABLE_SELF_DENIED = 'You cannot disable your own account.'

/**
 * May the actor disable (and enable) this account? Those who may create an account of its role may (admins for
 * learners and coaches, the super admin for admins and super admins), never their own.
 */
export const mayDisable = (actor: Actor, account: { id: string; roleId: number }) =>
  account.id !== actor.id && mayCreateRole(actor, account.roleId as RoleId)

/**
 * Disable an account (docs/product.md#disabled-accounts): it can no longer sign in by any way, and in the same
 * transaction every session and API token it has stops working (a new token version, as "log out everywhere")
 * and every reset or invitation link sent to it before is used up. Its courses, progress and records stay.
 * Disabling a disabled account changes nothing.
 */
export function disableUser(actor: Actor, userId: string): Promise<AccountState> {
  return setDisabled(actor, userId, true)
}

/** Enable a disabled account: it signs in again as before (with the password it had). */
export function enableUser(actor: Actor, userId: string): Promise<AccountState> {
  return setDisabled(actor, userId, false)
}

async function setDisabled(actor: Actor, userId: string, disable: boolean): Promise<AccountState> {
  requirePermission(actor, 'manage:people', DISABLE_DENIED)
  if (!isUuid(userId)) throw notFound('User not found.')
  if (disable && userId === actor.id) throw forbidden(DISABLE_SELF_DENIED)
  return transaction(async (transaction) => {
    const { User, PasswordResetToken } = await db()
    const user = await User.findByPk(userId, { transaction, lock: transaction.LOCK.UPDATE })
    if (!user) throw notFound('User not found.')
    if (!mayDisable(actor, user)) throw forbidden(DISABLE_ADMIN_DENIED)
    const changed = disable === (user.disabledAt === null)
    if (changed && disable) {
      await user.update(
        { disabledAt: new Date(), disabledBy: actor.id, tokenVersion: user.tokenVersion + 1 },
        { transaction },
      )
      await PasswordResetToken.update({ usedAt: new Date() }, { where: { userId, usedAt: null }, transaction })
    } else if (changed) await user.update({ disabledAt: null, disabledBy: null }, { transaction })
    return {
      id: user.id,
      userName: user.userName,
      email: user.email,
      disabledAt: user.disabledAt?.toISOString() ?? null,
      changed,
    }
  })
}

/** When an account was disabled and by whom (their username; null for an operator or an account since deleted). */
export async function disabledDetails(actor: Actor, userId: string) {
  requirePermission(actor, 'read:people')
  if (!isUuid(userId)) throw notFound('User not found.')
  const { User } = await db()
  const user = await User.findByPk(userId, { attributes: ['id', 'disabledAt', 'disabledBy'] })
  if (!user) throw notFound('User not found.')
  if (!user.disabledAt) return null
  const by = user.disabledBy ? await User.findByPk(user.disabledBy, { attributes: ['userName'] }) : null
  return { at: user.disabledAt.toISOString(), by: by?.userName ?? null }
}

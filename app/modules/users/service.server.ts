import { Op, UniqueConstraintError } from 'sequelize'
import { db } from '#db/client.ts'
import { hashPassword, verifyPassword } from '../auth/password.server.ts'
import {
  canManageContent,
  isAdminSide,
  isSuperAdmin,
  ROLE,
  ROLE_BY_NAME,
  type Actor,
  type RoleId,
} from '../auth/roles.ts'
import { toSessionUser, type SessionUser } from '../auth/service.server.ts'
import { conflict, forbidden, invalid, notFound } from '../errors.ts'
import { isUuid } from '../ids.ts'
import {
  NewUserSchema,
  PasswordChangeSchema,
  ProfileSchema,
  type NewUserInput,
  type PasswordChangeInput,
  type ProfileInput,
} from './schema.ts'

export const DUPLICATE_EMAIL = 'Email already exists.'
export const DUPLICATE_USERNAME = 'UserName already exists.'

/**
 * Create an account. Admins create learners and coaches; only the super admin creates admins
 * (DESIGN.md §4). A duplicate email or username is a 409 naming the field.
 */
export async function createUser(actor: Actor, input: NewUserInput): Promise<SessionUser> {
  const data = NewUserSchema.parse(input)
  const roleId: RoleId = ROLE_BY_NAME[data.role]
  const mayCreate =
    roleId === ROLE.admin || roleId === ROLE.superAdmin ? isSuperAdmin(actor.roleId) : canManageContent(actor.roleId)
  if (!mayCreate) throw forbidden('You do not have permission to create this kind of account.')

  const { User } = await db()
  await assertUnique(data.email, data.userName)
  try {
    const user = await User.create({
      firstName: data.firstName,
      lastName: data.lastName,
      userName: data.userName,
      email: data.email.toLowerCase(),
      passwordHash: await hashPassword(data.password),
      roleId,
    })
    return toSessionUser(user)
  } catch (error) {
    // Lost a race with another create: the database's unique index has the last word.
    if (error instanceof UniqueConstraintError) {
      const field = error.errors[0]?.path === 'user_name' ? 'userName' : 'email'
      throw duplicate(field)
    }
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

/** The profile the spec's old client reads: the user with role and assignments. */
export type Profile = {
  _id: string
  firstName: string
  lastName: string
  userName: string
  email: string
  role: { r_id: number }
  assignedCourses: string[]
  assignedPrograms: string[]
  programsEnrolled: string[]
  createdAt: string
}

/** A learner reads only their own profile; the admin side reads anyone's. */
export async function getProfile(actor: Actor, userId: string): Promise<Profile> {
  if (actor.id !== userId && !isAdminSide(actor.roleId)) throw forbidden()
  const { User, CourseAssignment, ProgramAssignment } = await db()
  const user = await User.findByPk(userId)
  if (!user) throw notFound('User not found.')
  const [courses, programs] = await Promise.all([
    CourseAssignment.findAll({ where: { userId }, attributes: ['courseId'], order: [['createdAt', 'ASC']] }),
    ProgramAssignment.findAll({ where: { userId }, attributes: ['programId'], order: [['createdAt', 'ASC']] }),
  ])
  const programIds = programs.map((p) => p.programId)
  return {
    _id: user.id,
    firstName: user.firstName,
    lastName: user.lastName,
    userName: user.userName,
    email: user.email,
    role: { r_id: user.roleId },
    assignedCourses: courses.map((c) => c.courseId),
    assignedPrograms: programIds,
    programsEnrolled: programIds,
    createdAt: user.createdAt.toISOString(),
  }
}

/** The user an operator names on the command line: an id, an email or a username. */
export async function findUserByIdentifier(identifier: string) {
  const { User } = await db()
  const text = identifier.trim()
  const user = await User.findOne({
    where: isUuid(text) ? { id: text } : { [Op.or]: [{ email: text }, { userName: text }] },
  })
  if (!user) throw notFound(`No user with the id, email or username "${text}".`)
  return toSessionUser(user)
}

/** PUT /api/user/editProfile and the profile pages: one's own names; the email cannot change. */
export async function editProfile(actor: Actor, userId: string, input: ProfileInput): Promise<SessionUser> {
  if (!actor.id || actor.id !== userId) throw forbidden('You can edit only your own profile.')
  const data = ProfileSchema.parse(input)
  const { User } = await db()
  const user = await User.findByPk(userId)
  if (!user) throw notFound('User not found.')
  if (data.email && data.email.toLowerCase() !== user.email.toLowerCase())
    throw invalid('Email cannot be changed.', { email: 'Email cannot be changed.' })
  const clash = await User.findOne({ where: { userName: data.userName, id: { [Op.ne]: userId } }, attributes: ['id'] })
  if (clash) throw duplicate('userName')
  try {
    await user.update({ firstName: data.firstName, lastName: data.lastName, userName: data.userName })
  } catch (error) {
    if (error instanceof UniqueConstraintError) throw duplicate('userName')
    throw error
  }
  return toSessionUser(user)
}

/**
 * PUT /api/user/profilePassword and the password pages: checks the current password, then stores the
 * new one and bumps the token version, which signs out every session and token (DESIGN.md §5).
 */
export async function changePassword(actor: Actor, userId: string, input: PasswordChangeInput) {
  if (!actor.id || actor.id !== userId) throw forbidden('You can change only your own password.')
  const data = PasswordChangeSchema.parse(input)
  const { User } = await db()
  const user = await User.findByPk(userId)
  if (!user) throw notFound('User not found.')
  if (!(await verifyPassword(user.passwordHash, data.currentPassword)))
    throw invalid('The current password is not right.', { currentPassword: 'The current password is not right.' })
  await user.update({ passwordHash: await hashPassword(data.password), tokenVersion: user.tokenVersion + 1 })
}

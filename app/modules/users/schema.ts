import { z } from 'zod'
import { keptFlag } from '../content/schema.ts'
import { TIME_ZONE_CHOICE_MESSAGE, timeZoneField, timeZoneNames } from '../deadlines/due.ts'

// Registration rules, in the old client's words, with one password policy (docs/product.md#sign-in-and-sessions).
const NAME = /^[A-Za-z\s]+$/
const PASSWORD_RULE = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[^A-Za-z0-9]).{8,128}$/
/** PASSWORD_RULE in words, shown above the forms that choose a password. */
export const PASSWORD_HINT = 'At least 8 characters with a lowercase and an uppercase letter, a number and a symbol.'

const firstName = z
  .string({ required_error: 'First Name is required field.' })
  .trim()
  .min(1, 'First Name is required field.')
  .min(4, 'First Name must be at least 4 characters.')
  .max(60, 'First Name must be at most 60 characters.')
  .regex(NAME, 'First Name can only contain letters and spaces.')
const lastName = z
  .string({ required_error: 'Last Name is required field.' })
  .trim()
  .min(1, 'Last Name is required field.')
  .max(60, 'Last Name must be at most 60 characters.')
  .regex(NAME, 'Last Name can only contain letters and spaces.')
/** One username rule everywhere (at least 4 characters); only the required message differs between forms. */
const userNameWith = (required: string) =>
  z
    .string({ required_error: required })
    .trim()
    .min(1, required)
    .min(4, 'UserName must be at least 4 characters')
    .max(40, 'UserName must be at most 40 characters.')
    .regex(/^[A-Za-z0-9._-]+$/, 'UserName can only contain letters, numbers, dots, dashes and underscores.')
const userName = userNameWith('UserName is required field.')
const email = z
  .string({ required_error: 'Email is required field.' })
  .trim()
  .min(1, 'Email is required field.')
  .max(254, 'Email is invalid.')
  .email('Email is invalid.')
export const password = z
  .string({ required_error: 'Password is required field.' })
  .min(1, 'Password is required field.')
  .regex(
    PASSWORD_RULE,
    'Password must be at least 8 characters with 1 lowercase, 1 uppercase, 1 number and 1 special character.',
  )

export const ROLE_NAMES_INPUT = ['superadmin', 'admin', 'coach', 'learner'] as const

/** What an admin (or the CLI) gives to create an account. */
export const NewUserSchema = z.object({
  firstName,
  lastName,
  userName,
  email,
  password,
  role: z
    .enum(ROLE_NAMES_INPUT, { message: 'Role must be one of superadmin, admin, coach or learner.' })
    .default('learner'),
})
export type NewUserInput = z.input<typeof NewUserSchema>

/**
 * The registration form and POST /api/user/register add a confirmation, and register learners or
 * admins only: coaches have their own call, super admins come from the CLI.
 */
export const RegisterSchema = NewUserSchema.extend({
  role: z.enum(['learner', 'admin'], { message: 'Role must be learner or admin.' }).default('learner'),
  confirmPassword: z
    .string({ required_error: 'Confirm Password is required field.' })
    .min(1, 'Confirm Password is required field.'),
}).refine((v) => v.password === v.confirmPassword, { path: ['confirmPassword'], message: 'Passwords must match' })
export type RegisterInput = z.input<typeof RegisterSchema>

/** The profile form, with the same 4-character username as registration. The email cannot change. */
export const ProfileSchema = z.object({
  firstName: z
    .string({ required_error: 'Firstname field is required' })
    .trim()
    .min(1, 'Firstname field is required')
    .max(60, 'First Name must be at most 60 characters.')
    .regex(NAME, 'First Name can only contain letters and spaces.'),
  lastName: z
    .string()
    .trim()
    .max(60, 'Last Name must be at most 60 characters.')
    .regex(/^[A-Za-z\s]*$/, 'Last Name can only contain letters and spaces.')
    .default(''),
  userName: userNameWith('UserName field is required'),
  /** shown disabled; if sent it must be the account's own */
  email: z.string().trim().max(254, 'Email is Invalid').email('Email is Invalid').optional().or(z.literal('')),
  timeZone: profileTimeZone().describe(
    'the learner’s time zone, one of the list the profile page offers (IANA names such as Europe/Berlin); ' +
      'due dates are read and shown in it. null or empty: the portal’s default; left out keeps it',
  ),
  reminderMails: keptFlag.describe(
    'false: no reminder mails about due dates. Taken only where the admins let learners turn them off, ' +
      'ignored elsewhere; left out keeps it',
  ),
})
export type ProfileInput = z.input<typeof ProfileSchema>

/**
 * The profile's time zone: absent keeps it, empty or null is the portal's default, a name must be a zone name
 * (an offset such as +05:00, which the database would read with the opposite sign, is refused here). Whether it
 * is on the profile's list is the service's check (listedZone): the browser's list of zones is not the server's.
 */
function profileTimeZone() {
  return z.preprocess(
    (value) => (value === '' ? null : value),
    timeZoneField()
      .refine((name) => /^[A-Za-z]/.test(name), TIME_ZONE_CHOICE_MESSAGE)
      .nullable()
      .optional(),
  )
}

let zoneList: Set<string> | undefined
/**
 * A zone of the profile's list (timeZoneNames) as the list writes it: another spelling of one (europe/berlin,
 * Asia/Kolkata, US/Pacific) is read as the list's name; undefined for a name outside the list.
 */
export function listedZone(name: string): string | undefined {
  zoneList ??= new Set(timeZoneNames())
  let canonical: string
  try {
    canonical = new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone
  } catch {
    return undefined
  }
  return zoneList.has(canonical) ? canonical : undefined
}

/** The account an /api call about one's own account names (the old client sends it); left out, the caller's. */
export const AccountIdSchema = z.object({
  userId: z.string({ invalid_type_error: 'userId must be a user id.' }).uuid('userId must be a user id.').nullish(),
})

/** One password policy everywhere (PASSWORD_RULE), with the reset and change forms' messages. */
const newPassword = z
  .string({ required_error: 'Password field is required field.' })
  .min(1, 'Password field is required field.')
  .regex(PASSWORD_RULE, 'min 8 char with 1 lower, upper, number & symbol')

const confirmation = z
  .string({ required_error: 'Confirm Password field is required field.' })
  .min(1, 'Confirm Password field is required field.')

/** The old client calls the new password newPassword; the forms call it password. */
const acceptingNewPasswordName = <T extends z.ZodTypeAny>(schema: T) =>
  z.preprocess(
    (value) =>
      value && typeof value === 'object' && !('password' in value) && 'newPassword' in value
        ? { ...value, password: (value as { newPassword: unknown }).newPassword }
        : value,
    schema,
  )

/**
 * Parses a new-password payload for a service. The old client's /api calls name the field newPassword
 * while the forms say password: when the caller did not send `password`, the errors about it
 * are reported as `newPassword`, the name that caller knows.
 */
export function parsePasswordInput<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, input: unknown): T {
  const result = schema.safeParse(input)
  if (result.success) return result.data
  const sentPassword = typeof input === 'object' && input !== null && 'password' in input
  if (sentPassword) throw result.error
  throw new z.ZodError(
    result.error.issues.map((issue) =>
      issue.path[0] === 'password' ? { ...issue, path: ['newPassword', ...issue.path.slice(1)] } : issue,
    ),
  )
}

/** New password and its confirmation. */
export const NewPasswordSchema = acceptingNewPasswordName(
  z
    .object({ password: newPassword, confirmPassword: confirmation })
    .refine((v) => v.password === v.confirmPassword, { path: ['confirmPassword'], message: 'Passwords must match' }),
)

/** Changing one's own password also asks for the current one, so a borrowed session cannot take the account. */
export const PasswordChangeSchema = acceptingNewPasswordName(
  z
    .object({
      currentPassword: z
        .string({ required_error: 'Current Password field is required field.' })
        .min(1, 'Current Password field is required field.')
        .max(128, 'Current Password is too long.'),
      password: newPassword,
      confirmPassword: confirmation,
    })
    .refine((v) => v.password === v.confirmPassword, { path: ['confirmPassword'], message: 'Passwords must match' }),
)
export type PasswordChangeInput = z.input<typeof PasswordChangeSchema>

/** The Create New Coach popup: a coach chooses their password from the invitation mail. */
export const NewCoachSchema = z.object({ firstName, lastName, userName, email })
export type NewCoachInput = z.input<typeof NewCoachSchema>

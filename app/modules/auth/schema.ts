import { z } from 'zod'

// The old client's messages, shared by the sign-in form and POST /api/user/login.
export const LoginSchema = z.object({
  email: z
    .string({ required_error: 'Username / Email is required field.' })
    .trim()
    .min(1, 'Username / Email is required field.')
    .max(254, 'Username / Email is too long.'),
  password: z
    .string({ required_error: 'Password is required field.' })
    .min(1, 'Password is required field.')
    .max(128, 'Password is too long.'),
})
export type LoginInput = z.infer<typeof LoginSchema>

/** POST /api/user/forgotPassword: an email or a username, with the old client's messages. */
const emailOrName = z
  .string({ required_error: 'Email is required field.' })
  .trim()
  .min(1, 'Email is required field.')
  .max(254, 'Email is invalid.')
export const ForgotPasswordSchema = z.object({ userNameOrEmail: emailOrName })
/** The Forgot Password page asks for the email, as the old client did. */
export const ForgotPasswordFormSchema = z.object({ email: emailOrName.email('Email is invalid.') })

export const WRONG_CREDENTIALS = 'Invalid Username/Email or Password.'

/**
 * The refusal of a disabled account (docs/product.md#disabled-accounts), whichever way it signs in: said only to
 * someone who proved they are its owner (the right password, a partner's link, a company's provider), so it tells
 * a guesser nothing.
 */
export const ACCOUNT_DISABLED = 'This account is disabled. Ask an admin of the portal to enable it.'

/** The profile page's "Log out everywhere" button: `intent` set to this. */
export const LOG_OUT_EVERYWHERE_INTENT = 'logout-everywhere'

/** What forgotPassword answers, whether or not an account matches, so it tells nobody which accounts exist. */
export const FORGOT_PASSWORD_ANSWER =
  'If an account matches, we have sent it a link to reset the password. Check your mail; the link works for one hour.'
/** The old client's words for an unusable reset link. */
export const TOKEN_EXPIRED = 'Token Expired, Please enter your email id to verify again.'

/**
 * What came of a sign-in attempt, as the record of sign-ins keeps it ('checking' while its password is checked;
 * 'disabled' for the right password of a disabled account; 'refused' for a sign-in through a company's provider
 * that the portal refused, with its reason).
 */
export const SIGN_IN_OUTCOMES = [
  'checking',
  'success',
  'wrong_password',
  'throttled',
  'password_changed',
  'disabled',
  'refused',
] as const
export type SignInOutcome = (typeof SIGN_IN_OUTCOMES)[number]

/** `portal users sign-ins`: which sign-ins to list. */
export const SignInEventsQuerySchema = z.object({
  user: z.string().trim().min(1, 'name an email or a username.').max(254).optional(),
  address: z.string().trim().min(1, 'name an address.').max(100).optional(),
  outcome: z.enum(SIGN_IN_OUTCOMES, { message: `one of ${SIGN_IN_OUTCOMES.join(', ')}.` }).optional(),
  /** only sign-ins through this company provider (its short name) */
  provider: z.string().trim().toLowerCase().min(1, 'name a provider by its short name.').max(40).optional(),
  limit: z.coerce
    .number({ message: 'a whole number from 1 to 1000.' })
    .int('a whole number from 1 to 1000.')
    .min(1, 'a whole number from 1 to 1000.')
    .max(1000, 'a whole number from 1 to 1000.')
    .default(50),
})

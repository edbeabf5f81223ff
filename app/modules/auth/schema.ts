import { z } from 'zod'

// The spec's messages (§5), shared by the sign-in form and POST /api/user/login.
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

/** POST /api/user/forgotPassword: an email or a username (DESIGN.md §8), with the spec's messages (§5). */
const emailOrName = z
  .string({ required_error: 'Email is required field.' })
  .trim()
  .min(1, 'Email is required field.')
  .max(254, 'Email is invalid.')
export const ForgotPasswordSchema = z.object({ userNameOrEmail: emailOrName })
/** The Forgot Password page asks for the email, as spec §5 says. */
export const ForgotPasswordFormSchema = z.object({ email: emailOrName.email('Email is invalid.') })

export const WRONG_CREDENTIALS = 'Invalid Username/Email or Password.'

/** What forgotPassword answers, whether or not an account matches (DESIGN.md §5). */
export const FORGOT_PASSWORD_ANSWER =
  'If an account matches, we have sent it a link to reset the password. Check your mail; the link works for one hour.'
/** spec §8: an unusable reset link */
export const TOKEN_EXPIRED = 'Token Expired, Please enter your email id to verify again.'

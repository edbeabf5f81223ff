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

export const WRONG_CREDENTIALS = 'Invalid Username/Email or Password.'

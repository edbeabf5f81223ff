import { z } from 'zod'

// Registration rules of spec §5, with the one password policy of DESIGN.md §8.
const NAME = /^[A-Za-z\s]+$/
export const PASSWORD_RULE = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[^A-Za-z0-9]).{8,128}$/

export const firstName = z
  .string({ required_error: 'First Name is required field.' })
  .trim()
  .min(1, 'First Name is required field.')
  .min(4, 'First Name must be at least 4 characters.')
  .max(60, 'First Name must be at most 60 characters.')
  .regex(NAME, 'First Name can only contain letters and spaces.')
export const lastName = z
  .string({ required_error: 'Last Name is required field.' })
  .trim()
  .min(1, 'Last Name is required field.')
  .max(60, 'Last Name must be at most 60 characters.')
  .regex(NAME, 'Last Name can only contain letters and spaces.')
export const userName = z
  .string({ required_error: 'UserName is required field.' })
  .trim()
  .min(1, 'UserName is required field.')
  .min(4, 'UserName must be at least 4 characters.')
  .max(40, 'UserName must be at most 40 characters.')
  .regex(/^[A-Za-z0-9._-]+$/, 'UserName can only contain letters, numbers, dots, dashes and underscores.')
export const email = z
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

/** The registration form and POST /api/user/register add a confirmation. */
export const RegisterSchema = NewUserSchema.extend({
  confirmPassword: z
    .string({ required_error: 'Confirm Password is required field.' })
    .min(1, 'Confirm Password is required field.'),
}).refine((v) => v.password === v.confirmPassword, { path: ['confirmPassword'], message: 'Passwords must match' })

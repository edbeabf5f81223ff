import { z } from 'zod'

const required = (label: string, max: number) =>
  z
    .string({ required_error: `${label} is required field.` })
    .trim()
    .min(1, `${label} is required field.`)
    .max(max, `${label} must be at most ${max} characters.`)

export const ContactSchema = z.object({
  name: required('Name', 100),
  email: z
    .string({ required_error: 'Email is required field.' })
    .trim()
    .min(1, 'Email is required field.')
    .max(254, 'Email is invalid.')
    .email('Email is invalid.'),
  subject: required('Subject', 150),
  message: required('Message', 5000),
  /** a field people never see: only robots fill it in */
  website: z.string().max(500).optional(),
})
export type ContactInput = z.input<typeof ContactSchema>

import { z } from 'zod'

// Identity providers as admins and the CLI give them (docs/operations.md#company-sign-in). Messages name the
// field as the page labels it; the CLI maps each field to its flag.

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

/** A list typed as one text (commas, spaces or lines apart), or given as a list. */
const listOf = (item: z.ZodString, max: number, tooMany: string) =>
  z.preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .split(/[\s,]+/)
            .map((v) => v.trim())
            .filter(Boolean)
        : value,
    z.array(item).max(max, tooMany),
  )

/** A flag from a form (a checkbox sends "on"), the CLI or JSON. */
const flag = z.preprocess((value) => value === true || value === 'on' || value === 'true' || value === '1', z.boolean())

const issuerUrl = z
  .string({ required_error: 'Issuer URL is required.' })
  .trim()
  .min(1, 'Issuer URL is required.')
  .max(500, 'Issuer URL is too long.')
  .url('Issuer URL must be an address such as https://login.example.com/tenant.')
  // what is no address at all is refused by url() above, once
  .refine((value) => {
    if (!URL.canParse(value)) return true
    const url = new URL(value)
    // a provider's keys and tokens travel over TLS; plain http only for one on this machine (development, tests)
    return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname))
  }, 'Issuer URL must start with https:// (http:// only for a provider on this machine).')
  .refine(
    (value) => !URL.canParse(value) || (!new URL(value).search && !new URL(value).hash),
    'Issuer URL takes no ? or # part.',
  )
  .transform((value) => value.replace(/\/+$/, ''))

const scopes = z
  .string()
  .trim()
  .max(500, 'Scopes are too long.')
  .default('openid email profile')
  .transform((value) => value.split(/\s+/).filter(Boolean))
  .refine((list) => list.includes('openid'), 'Scopes must include openid.')
  .refine((list) => list.every((s) => /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)), 'Scopes are words apart by spaces.')
  .transform((list) => [...new Set(list)].join(' '))

/** A group → program or course rule; the target by id or exact title. */
export const RuleSchema = z.object({
  group: z.string().trim().min(1, 'Name the group.').max(256, 'The group name is too long.'),
  kind: z.enum(['program', 'course'], { message: 'A group maps to a program or a course.' }),
  target: z.string().trim().min(1, 'Name the program or course.').max(300, 'The title is too long.'),
})
export type RuleInput = z.input<typeof RuleSchema>

const ProviderFields = z.object({
  slug: z
    .string({ required_error: 'Short name is required.' })
    .trim()
    .toLowerCase()
    .regex(SLUG, 'Short name: 1 to 40 lower-case letters, digits and dashes, such as acme.'),
  name: z
    .string({ required_error: 'Display name is required.' })
    .trim()
    .min(1, 'Display name is required.')
    .max(80, 'Display name is at most 80 characters.'),
  issuer: issuerUrl,
  clientId: z
    .string({ required_error: 'Client ID is required.' })
    .trim()
    .min(1, 'Client ID is required.')
    .max(300, 'Client ID is too long.'),
  clientSecret: z
    .string({ required_error: 'Client secret is required.' })
    .min(1, 'Client secret is required.')
    .max(1000, 'Client secret is too long.'),
  scopes,
  domains: listOf(
    z.string().toLowerCase().regex(DOMAIN, 'Email domains are names such as acme.com.'),
    50,
    'At most 50 email domains.',
  ).refine((list) => list.length > 0, 'Name at least one email domain the provider serves.'),
  required: flag.default(false),
  createAccounts: flag.default(false),
  accountGroups: listOf(z.string().max(256, 'A group name is too long.'), 100, 'At most 100 groups.').default([]),
  groupsClaim: z
    .string()
    .trim()
    .min(1, 'Groups claim is required (groups, by default).')
    .max(100, 'Groups claim is too long.')
    .regex(/^[\w:./-]+$/, 'Groups claim is a claim name such as groups or roles.')
    .default('groups'),
  rules: z.array(RuleSchema).max(500, 'At most 500 group rules.').default([]),
})

export const NewProviderSchema = ProviderFields
export type NewProviderInput = z.input<typeof NewProviderSchema>

/** A change: every field optional (the client secret kept unless given). */
export const ProviderChangeSchema = ProviderFields.partial().extend({
  // the short name never changes: it is in the redirect address the provider was told
  slug: z.undefined({ message: 'The short name cannot change: the provider knows the portal by it.' }).optional(),
})
export type ProviderChangeInput = z.input<typeof ProviderChangeSchema>

export const providerSlug = z
  .string({ required_error: 'Name the provider.' })
  .trim()
  .toLowerCase()
  .regex(SLUG, 'No identity provider has that name.')

/** What the sign-in page's button says for a provider. */
export const signInWith = (name: string) => `Sign in with ${name}`

/** Why a sign-in through a provider was refused, as sign_in_events.reason keeps it. */
export type Refusal =
  | 'state'
  | 'nonce'
  | 'token'
  | 'provider_error'
  | 'unreachable'
  | 'no_email'
  | 'email_unverified'
  | 'domain'
  | 'disabled'
  | 'no_account'
  | 'not_in_group'

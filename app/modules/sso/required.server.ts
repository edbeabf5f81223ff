import { query, sql } from '#db/client.ts'

// Providers an admin made required: the accounts of their email domains sign in only through them, so their
// passwords are turned off (sign-in, the /api's login, password reset).

/** A provider as the sign-in page needs it. */
type RequiredProvider = { slug: string; name: string }

const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase()

const REQUIRED_FOR_DOMAIN = sql(`
  SELECT slug, name FROM identity_providers
   WHERE required AND :domain::citext = ANY (domains)
   ORDER BY name LIMIT 1`)

/** The provider that must sign in the owner of this email, if a required one serves its domain. */
export async function requiredProviderFor(email: string | null | undefined): Promise<RequiredProvider | undefined> {
  if (!email || !email.includes('@')) return undefined
  const [row] = await query<RequiredProvider>(REQUIRED_FOR_DOMAIN, { domain: domainOf(email) })
  return row
}

/** The refusal a password sign-in or reset gets when a required provider serves the account's domain. */
export const passwordsTurnedOff = (provider: Pick<RequiredProvider, 'name'>, email: string) =>
  `Accounts at ${domainOf(email)} sign in with ${provider.name}: use the "Sign in with ${provider.name}" button.`

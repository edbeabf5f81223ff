import { createHash, randomUUID } from 'node:crypto'
import type pg from 'pg'
import { query, sql, withTransaction } from '#db/client.ts'
import { findAssignable } from '../assignments/import.server.ts'
import { requirePermission } from '../auth/permissions.ts'
import type { Actor } from '../auth/roles.ts'
import { conflict, invalid, isServiceError, notFound } from '../errors.ts'
import { discover, forgetProvider, isUnreachable, type ProviderClient } from './client.server.ts'
import {
  NewProviderSchema,
  ProviderChangeSchema,
  providerSlug,
  type NewProviderInput,
  type ProviderChangeInput,
} from './schema.ts'
import { openSecret, sealSecret } from './secret.server.ts'

// Identity providers: added, changed and removed by the super admin (page and CLI), read by the sign-in page
// (names and domains only) and by the sign-in itself (everything, the secret opened).

type ProviderRule = { group: string; kind: 'program' | 'course'; id: string; title: string }

/** A provider as admins see it: never its client secret, only whether one is kept and can be read. */
export type ProviderView = {
  id: string
  slug: string
  name: string
  issuer: string
  clientId: string
  secretReadable: boolean
  scopes: string
  domains: string[]
  required: boolean
  createAccounts: boolean
  accountRole: 'learner'
  accountGroups: string[]
  groupsClaim: string
  rules: ProviderRule[]
  /** the people who have signed in through it */
  identities: number
  createdAt: string
  updatedAt: string
}

/** Everything a sign-in needs. */
export type Provider = Omit<ProviderView, 'secretReadable' | 'identities'> & ProviderClient

type ProviderRow = {
  id: string
  slug: string
  name: string
  issuer: string
  client_id: string
  client_secret: string
  scopes: string
  domains: string[]
  required: boolean
  create_accounts: boolean
  account_groups: string[]
  groups_claim: string
  created_at: Date
  updated_at: Date
  rules: { group: string; kind: 'program' | 'course'; id: string; title: string }[] | null
  identities: string
}

const SELECT_PROVIDERS = `
  SELECT p.*,
         (SELECT json_agg(json_build_object('group', r.group_name,
                                            'kind', CASE WHEN r.program_id IS NULL THEN 'course' ELSE 'program' END,
                                            'id', COALESCE(r.program_id, r.course_id),
                                            'title', COALESCE(pr.title, c.title))
                          ORDER BY r.group_name, COALESCE(pr.title, c.title))
            FROM identity_provider_rules r
            LEFT JOIN programs pr ON pr.id = r.program_id
            LEFT JOIN courses c ON c.id = r.course_id
           WHERE r.provider_id = p.id) AS rules,
         (SELECT count(*) FROM user_identities i WHERE i.provider_id = p.id) AS identities
    FROM identity_providers p`

const LIST_PROVIDERS = sql(`${SELECT_PROVIDERS} ORDER BY p.name, p.slug`)
const PROVIDER_BY_SLUG = sql(`${SELECT_PROVIDERS} WHERE p.slug = :slug`)

const domainsOf = (value: string[] | string) =>
  Array.isArray(value)
    ? value
    : value
        .replace(/^\{|\}$/g, '')
        .split(',')
        .filter(Boolean)

function common(row: ProviderRow) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    issuer: row.issuer,
    clientId: row.client_id,
    scopes: row.scopes,
    domains: domainsOf(row.domains),
    required: row.required,
    createAccounts: row.create_accounts,
    accountRole: 'learner' as const,
    accountGroups: row.account_groups,
    groupsClaim: row.groups_claim,
    rules: row.rules ?? [],
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  }
}

const toView = (row: ProviderRow): ProviderView => ({
  ...common(row),
  secretReadable: openSecret(row.client_secret, row.id) !== undefined,
  identities: Number(row.identities),
})

const UNKNOWN_PROVIDER = 'No identity provider has that name.'

export async function listProviders(actor: Actor): Promise<ProviderView[]> {
  requirePermission(actor, 'manage:identity-providers')
  return (await query<ProviderRow>(LIST_PROVIDERS, {})).map(toView)
}

export async function getProvider(actor: Actor, slug: string): Promise<ProviderView> {
  requirePermission(actor, 'manage:identity-providers')
  const [row] = await query<ProviderRow>(PROVIDER_BY_SLUG, { slug: providerSlug.parse(slug) })
  if (!row) throw notFound(UNKNOWN_PROVIDER)
  return toView(row)
}

/** A provider for signing in through it, its secret opened; undefined when there is none by that name. */
export async function loadProvider(slug: string): Promise<Provider | undefined> {
  const parsed = providerSlug.safeParse(slug)
  if (!parsed.success) return undefined
  const [row] = await query<ProviderRow>(PROVIDER_BY_SLUG, { slug: parsed.data })
  if (!row) return undefined
  const clientSecret = openSecret(row.client_secret, row.id) ?? ''
  return {
    ...common(row),
    clientSecret,
    version: createHash('sha256').update(`${row.updated_at.toISOString()}\n${row.client_secret}`).digest('hex'),
  }
}

/** What the sign-in page shows of each provider: its button, and the domains that offer (or require) it. */
export type SignInProvider = { slug: string; name: string; domains: string[]; required: boolean }

const SIGN_IN_PROVIDERS = sql('SELECT slug, name, domains, required FROM identity_providers ORDER BY name, slug')

export async function signInProviders(): Promise<SignInProvider[]> {
  const rows = await query<SignInProvider>(SIGN_IN_PROVIDERS, {})
  return rows.map((r) => ({ ...r, domains: domainsOf(r.domains) }))
}

/** Rules by group → program or course, each resolved (by id or exact title) before anything is written. */
export async function resolveRules(rules: { group: string; kind: 'program' | 'course'; target: string }[]) {
  const resolved: { group: string; programId: string | null; courseId: string | null }[] = []
  for (const [index, rule] of rules.entries()) {
    try {
      const target = await findAssignable(rule.kind, rule.target)
      resolved.push({
        group: rule.group,
        programId: rule.kind === 'program' ? target.id : null,
        courseId: rule.kind === 'course' ? target.id : null,
      })
    } catch (error) {
      if (!isServiceError(error)) throw error
      throw invalid(`Rule ${index + 1} (${rule.group}): ${error.message}`, {
        rules: `Rule ${index + 1} (${rule.group}): ${error.message}`,
      })
    }
  }
  return resolved
}

async function writeRules(client: pg.ClientBase, providerId: string, rules: Awaited<ReturnType<typeof resolveRules>>) {
  await client.query('DELETE FROM identity_provider_rules WHERE provider_id = $1', [providerId])
  for (const rule of rules)
    await client.query(
      `INSERT INTO identity_provider_rules (provider_id, group_name, program_id, course_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING`,
      [providerId, rule.group, rule.programId, rule.courseId],
    )
}

/** Read the issuer's discovery document with the client given, so a mistyped issuer is caught when it is added. */
async function checkIssuer(issuer: string, clientId: string, clientSecret: string) {
  try {
    const configuration = await discover({ issuer, clientId, clientSecret })
    const metadata = configuration.serverMetadata()
    if (!metadata.authorization_endpoint || !metadata.token_endpoint || !metadata.jwks_uri)
      throw invalid('The discovery document lacks an authorization, token or keys endpoint.')
  } catch (error) {
    if (isServiceError(error)) throw error
    const why = isUnreachable(error)
      ? 'it did not answer'
      : error instanceof Error
        ? error.message.replace(/\.$/, '')
        : 'unknown error'
    const message = `Could not read the discovery document of ${issuer} (${why}).`
    throw invalid(message, { issuer: message })
  }
}

const DUPLICATE_SLUG = 'An identity provider already has this short name.'

export async function addProvider(actor: Actor, input: NewProviderInput): Promise<ProviderView> {
  requirePermission(actor, 'manage:identity-providers')
  const fields = NewProviderSchema.parse(input)
  const rules = await resolveRules(fields.rules)
  await checkIssuer(fields.issuer, fields.clientId, fields.clientSecret)
  const id = randomUUID()
  await withTransaction(async (client) => {
    const inserted = await client.query(
      `INSERT INTO identity_providers (id, slug, name, issuer, client_id, client_secret, scopes, domains, required,
                                       create_accounts, account_groups, groups_claim)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (slug) DO NOTHING`,
      [
        id,
        fields.slug,
        fields.name,
        fields.issuer,
        fields.clientId,
        sealSecret(fields.clientSecret, id),
        fields.scopes,
        fields.domains,
        fields.required,
        fields.createAccounts,
        fields.accountGroups,
        fields.groupsClaim,
      ],
    )
    if (inserted.rowCount === 0) throw conflict(DUPLICATE_SLUG, { slug: DUPLICATE_SLUG })
    await writeRules(client, id, rules)
  })
  return getProvider(actor, fields.slug)
}

export async function updateProvider(actor: Actor, slug: string, input: ProviderChangeInput): Promise<ProviderView> {
  requirePermission(actor, 'manage:identity-providers')
  const before = await loadProvider(slug)
  if (!before) throw notFound(UNKNOWN_PROVIDER)
  const fields = ProviderChangeSchema.parse(input)
  const rules = fields.rules && (await resolveRules(fields.rules))
  const issuer = fields.issuer ?? before.issuer
  const clientId = fields.clientId ?? before.clientId
  const clientSecret = fields.clientSecret ?? before.clientSecret
  if (fields.issuer !== undefined || fields.clientId !== undefined || fields.clientSecret !== undefined)
    await checkIssuer(issuer, clientId, clientSecret)
  await withTransaction(async (client) => {
    await client.query(
      `UPDATE identity_providers
          SET name = $2, issuer = $3, client_id = $4, client_secret = COALESCE($5, client_secret), scopes = $6,
              domains = $7, required = $8, create_accounts = $9, account_groups = $10, groups_claim = $11,
              updated_at = now()
        WHERE id = $1`,
      [
        before.id,
        fields.name ?? before.name,
        issuer,
        clientId,
        fields.clientSecret === undefined ? null : sealSecret(fields.clientSecret, before.id),
        fields.scopes ?? before.scopes,
        fields.domains ?? before.domains,
        fields.required ?? before.required,
        fields.createAccounts ?? before.createAccounts,
        fields.accountGroups ?? before.accountGroups,
        fields.groupsClaim ?? before.groupsClaim,
      ],
    )
    if (rules) await writeRules(client, before.id, rules)
  })
  forgetProvider(before.id)
  return getProvider(actor, before.slug)
}

/**
 * Remove a provider: its people keep their portal accounts (with passwords where they have them) and their
 * assignments; what is forgotten is who they are at the provider and which assignments its rules made.
 */
export async function removeProvider(actor: Actor, slug: string): Promise<{ slug: string; name: string }> {
  requirePermission(actor, 'manage:identity-providers')
  const [row] = await query<{ id: string; slug: string; name: string }>(
    sql('DELETE FROM identity_providers WHERE slug = :slug RETURNING id, slug, name'),
    { slug: providerSlug.parse(slug) },
  )
  if (!row) throw notFound(UNKNOWN_PROVIDER)
  forgetProvider(row.id)
  return { slug: row.slug, name: row.name }
}

import { text } from 'node:stream/consumers'
import { confirm, password as passwordPrompt } from '@inquirer/prompts'
import { Option, type Command } from 'commander'
import { ZodError } from 'zod'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { isServiceError, notFound } from '#app/modules/errors.ts'
import { applyMapping, previewMapping, type GrantChange } from '#app/modules/sso/grants.server.ts'
import {
  addProvider,
  getProvider,
  listProviders,
  removeProvider,
  updateProvider,
  type ProviderView,
} from '#app/modules/sso/providers.server.ts'
import {
  NewProviderSchema,
  ProviderChangeSchema,
  type ProviderChangeInput,
  type RuleInput,
} from '#app/modules/sso/schema.ts'
import { callbackUrl } from '#app/modules/sso/strategy.server.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { withDatabase } from '../database.ts'
import { UsageError, plural, textTable as table, usageOf } from '../output.ts'

// `portal sso …`: company sign-in, the identity providers (OpenID Connect) people sign in through and their group
// rules, as the super admin manages them. Data (tables, JSON) goes to stdout, what happened to stderr. The client
// secret is never an argument (other users of the machine read those): it comes from standard input or a prompt
// that does not echo it, and nothing prints it. A provider that is not there, a short name taken or an issuer
// that does not answer exit 1; wrong input (an unknown option, a bad value, a rule naming no program) exits 2.

type ProviderOptions = {
  name?: string
  issuer?: string
  clientId?: string
  clientSecretStdin?: boolean
  clientSecretPrompt?: boolean
  scopes?: string
  domain?: string[]
  required?: boolean
  createAccounts?: boolean
  accountGroup?: string[]
  clearAccountGroups?: boolean
  groupsClaim?: string
  map?: string[]
  clearMap?: boolean
  json?: boolean
}

/** A provider's fields as the options that set them, so a refusal names the flag to fix. */
const FLAG_OF: Record<string, string> = {
  slug: '<slug>',
  name: '--name',
  issuer: '--issuer',
  clientId: '--client-id',
  clientSecret: 'client secret',
  scopes: '--scopes',
  domains: '--domain',
  required: '--required',
  createAccounts: '--create-accounts',
  accountGroups: '--account-group',
  groupsClaim: '--groups-claim',
  rules: '--map',
}
const flagOf = (field: string) => FLAG_OF[field] ?? 'input'

const collect = (value: string, previous: string[] = []) => [...previous, value]

const RULE = /^(.+?)=(program|course):(.+)$/s
const RULE_FORMAT = '<group>=program:<title-or-id> or <group>=course:<title-or-id>'

/** `--map "engineers=program:Onboarding"` as a rule; the service resolves the title or id. */
function ruleOf(option: string): RuleInput {
  const match = RULE.exec(option)
  if (!match) throw new UsageError(`--map: "${option}" is not ${RULE_FORMAT}.`)
  return { group: match[1], kind: match[2] as RuleInput['kind'], target: match[3] }
}

/** The fields the options give; those not given stay undefined (kept as they are by a change). */
function fieldsOf(options: ProviderOptions): ProviderChangeInput {
  return {
    name: options.name,
    issuer: options.issuer,
    clientId: options.clientId,
    scopes: options.scopes,
    domains: options.domain
      ?.flatMap((d) => d.split(','))
      .map((d) => d.trim())
      .filter(Boolean),
    required: options.required,
    createAccounts: options.createAccounts,
    accountGroups: options.clearAccountGroups ? [] : options.accountGroup,
    groupsClaim: options.groupsClaim,
    rules: options.clearMap ? [] : options.map?.map(ruleOf),
  }
}

/** Every option's input checked before the secret is asked for and the database opened. */
function checked<T>(parse: () => T): T {
  try {
    return parse()
  } catch (error) {
    return usageOf(error, flagOf)
  }
}

/**
 * What the service refused, as the CLI tells it. An issuer that did not answer, or answered with no discovery
 * document, is a refusal (exit 1), not a misuse; a rule naming no program or course is the `--map` given (exit 2);
 * a short name no provider could have is one that names none (exit 1).
 */
function refused(error: unknown, flag: (field: string) => string = flagOf): never {
  if (isServiceError(error) && error.status === 400) {
    if (error.errors?.rules) throw new UsageError(`--map: ${error.errors.rules}`)
    throw new Error(error.message)
  }
  if (error instanceof ZodError && error.issues.every((issue) => issue.path.length === 0))
    throw notFound(error.issues[0]?.message)
  return usageOf(error, flag)
}

const interactive = () => Boolean(process.stdin.isTTY && process.stderr.isTTY)

/**
 * The client secret: one line of standard input with --client-secret-stdin, else (when `ask`) a prompt that does
 * not echo it, on a terminal only. Prompts write to stderr, so that stdout stays the command's data.
 */
async function readSecret(options: ProviderOptions, ask: boolean, command: string): Promise<string | undefined> {
  if (options.clientSecretStdin) {
    if (process.stdin.isTTY)
      throw new UsageError(
        `--client-secret-stdin reads a pipe (printf %s "$CLIENT_SECRET" | portal sso ${command} … --client-secret-stdin); on a terminal ${command === 'add' ? 'leave it out' : 'use --client-secret-prompt'} to be asked for the secret.`,
      )
    const secret = (await text(process.stdin)).split(/\r?\n/)[0]
    if (!secret) throw new UsageError('--client-secret-stdin: standard input holds no client secret.')
    return secret
  }
  if (!ask) return undefined
  if (!interactive())
    throw new UsageError(
      `${options.clientSecretPrompt ? '--client-secret-prompt asks only on a terminal' : 'the client secret is never an argument'}: pass --client-secret-stdin and give it on standard input (printf %s "$CLIENT_SECRET" | portal sso ${command} … --client-secret-stdin); it is asked for only on a terminal.`,
    )
  return passwordPrompt(
    { message: 'Client secret', mask: '*', validate: (value) => value.length > 0 || 'Client secret is required.' },
    { output: process.stderr },
  )
}

/** Where the provider sends people back and the other addresses it is told, from PUBLIC_URL. */
function addressesOf(slug: string) {
  const base = getEnv().PUBLIC_URL
  return {
    redirectUri: callbackUrl(slug),
    backchannelLogoutUri: `${base}/sso/${slug}/backchannel-logout`,
    postLogoutRedirectUri: `${base}/`,
  }
}

const described = (view: ProviderView) => ({ ...view, ...addressesOf(view.slug) })

const yesNo = (value: boolean) => (value ? 'yes' : 'no')
const accountsOf = (view: ProviderView) =>
  !view.createAccounts
    ? 'existing only'
    : view.accountGroups.length
      ? `create for ${view.accountGroups.join(', ')}`
      : 'create'

/** A provider as `show` prints it: its settings, the addresses to register, then its rules. */
function printProvider(view: ProviderView) {
  const addresses = addressesOf(view.slug)
  const secret = view.secretReadable
    ? 'kept, sealed (never shown)'
    : 'kept but cannot be read with this IDENTITY_SECRETS_KEY: set it again (portal sso update --client-secret-stdin)'
  console.log(
    table([
      ['Short name', view.slug],
      ['Display name', view.name],
      ['Issuer', view.issuer],
      ['Client ID', view.clientId],
      ['Client secret', secret],
      ['Scopes', view.scopes],
      ['Email domains', view.domains.join(', ')],
      ['Required', view.required ? 'yes: passwords are off for these domains' : 'no'],
      ['Accounts', view.createAccounts ? `${accountsOf(view)} (as ${view.accountRole})` : accountsOf(view)],
      ['Groups claim', view.groupsClaim],
      ['People', `${view.identities} signed in through it`],
      ['Redirect URI', addresses.redirectUri],
      ['Back-channel logout URI', addresses.backchannelLogoutUri],
      ['Post-logout redirect URI', addresses.postLogoutRedirectUri],
      ['Added', view.createdAt],
      ['Changed', view.updatedAt],
    ]),
  )
  if (!view.rules.length) return console.error('No group rules.')
  console.log(
    `\n${table([['GROUP', 'KIND', 'TITLE', 'ID'], ...view.rules.map((r) => [r.group, r.kind, r.title, r.id])])}`,
  )
}

/** The changes of a mapping as a table (stdout) or JSON, and what they come to on stderr. */
function printChanges(changes: GrantChange[], json: boolean | undefined, applied: boolean, preface: string) {
  if (json) console.log(JSON.stringify(changes, null, 2))
  else if (changes.length)
    console.log(
      table([['LEARNER', 'ACTION', 'KIND', 'TITLE'], ...changes.map((c) => [c.email, c.action, c.kind, c.title])]),
    )
  const gained = changes.filter((c) => c.action === 'gain').length
  const learners = plural(new Set(changes.map((c) => c.userId)).size, 'learner')
  const [gain, lose] = applied ? ['gained', 'lost'] : ['to gain', 'to lose']
  console.error(
    `${preface}${plural(gained, 'assignment')} ${gain}, ${changes.length - gained} ${lose} for ${learners}.`,
  )
}

const REDIRECT = 'the redirect URI to register at the provider is <PUBLIC_URL>/sso/<slug>/callback'

/** The options `add` and `update` share; `update` also takes the ones that turn a setting off or clear a list. */
function providerOptions(command: Command, change: boolean) {
  command
    .option('--name <display>', 'the name on the sign-in page\'s button: "Sign in with <display>"')
    .option(
      '--issuer <url>',
      "the provider's issuer URL, https:// (http:// only on this machine); its discovery document is read now, so it must answer",
    )
    .option('--client-id <id>', 'the client ID the provider gave the portal')
  if (change)
    command
      .addOption(
        new Option('--client-secret-stdin', 'replace the client secret with one line read from standard input'),
      )
      .addOption(
        new Option(
          '--client-secret-prompt',
          'replace the client secret, asked for on a terminal without echoing it',
        ).conflicts('clientSecretStdin'),
      )
  else
    command.option(
      '--client-secret-stdin',
      'read the client secret from standard input, one line; without it a terminal asks for it (it is never an argument)',
    )
  command
    .option(
      '--scopes <scopes>',
      `what the portal asks for, apart by spaces, with openid${change ? '' : ' (default: "openid email profile")'}`,
    )
    .option(
      '--domain <domain>',
      `an email domain whose people the provider signs in (repeat, or apart by commas)${change ? '; replaces the domains' : ''}`,
      collect,
    )
    .option('--required', 'turn passwords off for these domains: their people sign in only through the provider')
  if (change) command.option('--no-required', 'let these domains sign in with passwords again')
  command.option(
    '--create-accounts',
    'give a person with no account a learner account at their first sign-in (else they are refused)',
  )
  if (change) command.option('--no-create-accounts', 'refuse people with no account; they ask an admin for one')
  command.option(
    '--account-group <group>',
    `with --create-accounts, only members of this group get an account (repeat for several)${change ? '; replaces the groups' : ''}`,
    collect,
  )
  if (change)
    command.addOption(
      new Option('--clear-account-groups', 'with --create-accounts, anyone at the domains gets an account').conflicts(
        'accountGroup',
      ),
    )
  command
    .option(
      '--groups-claim <claim>',
      `the ID token's claim that lists the person's groups${change ? '' : ' (default: "groups")'}`,
    )
    .option(
      '--map <rule>',
      `"<group>=program:<title-or-id>" or "<group>=course:<title-or-id>": members of the group are assigned it (repeat for several)${change ? '; replaces every rule' : ''}`,
      collect,
    )
  if (change)
    command.addOption(
      new Option(
        '--clear-map',
        'remove every group rule; what the rules gave goes at each learner\'s next sign-in, or at once with "sso mapping apply"',
      ).conflicts('map'),
    )
  return command.option('--json', 'print the provider as JSON (never its secret)')
}

export function registerSso(program: Command) {
  const sso = program
    .command('sso')
    .description('company sign-in: the identity providers (OpenID Connect) people sign in through, their group rules')

  providerOptions(
    sso
      .command('add')
      .description(`add a company's identity provider; ${REDIRECT}`)
      .argument(
        '<slug>',
        "the provider's short name, in the portal's addresses (1 to 40 lower-case letters, digits, dashes); it never changes",
      ),
    false,
  ).action(async (slug: string, options: ProviderOptions) => {
    const given = fieldsOf(options)
    const fields = checked(() =>
      NewProviderSchema.omit({ clientSecret: true }).parse({ ...given, slug, domains: given.domains ?? [] }),
    )
    const clientSecret = (await readSecret(options, true, 'add'))!
    const added = await withDatabase(() => addProvider(SYSTEM, { ...fields, clientSecret }).catch(refused))
    if (options.json) console.log(JSON.stringify(described(added), null, 2))
    console.error(
      `Added ${added.name} (${added.slug}) for ${added.domains.join(', ')}: ${plural(added.rules.length, 'group rule')}, ` +
        `accounts ${added.createAccounts ? 'created' : 'not created'}${added.required ? ', passwords off for these domains' : ''}.`,
    )
    console.error(`Register this redirect URI at the provider: ${callbackUrl(added.slug)}`)
  })

  sso
    .command('list')
    .description('the identity providers: domains, whether they are required, accounts, rules and people')
    .option('--json', 'print the providers as JSON (never their secrets)')
    .action(async (options: { json?: boolean }) => {
      const providers = await withDatabase(() => listProviders(SYSTEM))
      if (options.json) return console.log(JSON.stringify(providers.map(described), null, 2))
      if (!providers.length) return console.error('No identity providers.')
      console.log(
        table([
          ['SLUG', 'NAME', 'ISSUER', 'DOMAINS', 'REQUIRED', 'ACCOUNTS', 'RULES', 'PEOPLE'],
          ...providers.map((p) => [
            p.slug,
            p.name,
            p.issuer,
            p.domains.join(','),
            yesNo(p.required),
            accountsOf(p),
            String(p.rules.length),
            String(p.identities),
          ]),
        ]),
      )
    })

  sso
    .command('show')
    .description(
      'one provider: every setting (whether a client secret is kept and readable, never the secret), the addresses to register, its rules',
    )
    .argument('<slug>', "the provider's short name")
    .option('--json', 'print the provider as JSON (never its secret)')
    .action(async (slug: string, options: { json?: boolean }) => {
      const view = await withDatabase(() => getProvider(SYSTEM, slug).catch(refused))
      if (options.json) return console.log(JSON.stringify(described(view), null, 2))
      printProvider(view)
    })

  providerOptions(
    sso
      .command('update')
      .description(
        'change a provider: only the options given change (the client secret is kept unless replaced); --no-… turns a setting off',
      )
      .argument('<slug>', "the provider's short name (it never changes)"),
    true,
  ).action(async (slug: string, options: ProviderOptions) => {
    const fields = fieldsOf(options)
    const given = Object.entries(fields).filter(([, value]) => value !== undefined)
    if (!given.length && !options.clientSecretStdin && !options.clientSecretPrompt)
      throw new UsageError('nothing to change: pass the options to change (portal sso update --help).')
    checked(() => ProviderChangeSchema.parse(fields))
    const clientSecret = await readSecret(options, Boolean(options.clientSecretPrompt), 'update')
    const changed = await withDatabase(() => updateProvider(SYSTEM, slug, { ...fields, clientSecret }).catch(refused))
    if (options.json) console.log(JSON.stringify(described(changed), null, 2))
    const what = [...given.map(([field]) => flagOf(field)), ...(clientSecret === undefined ? [] : ['client secret'])]
    console.error(`Changed ${changed.name} (${changed.slug}): ${what.join(', ')}.`)
    if (fields.rules)
      console.error(
        `The rules apply at each learner's next sign-in; to apply them now: portal sso mapping preview ${changed.slug}, then portal sso mapping apply ${changed.slug}.`,
      )
  })

  sso
    .command('remove')
    .description(
      'remove a provider: its people keep their accounts and assignments but no longer sign in through it; asks first on a terminal',
    )
    .argument('<slug>', "the provider's short name")
    .option('--yes', 'remove without asking (needed when not on a terminal)')
    .option('--json', 'print { slug, name } of the provider removed')
    .action(async (slug: string, options: { yes?: boolean; json?: boolean }) => {
      if (!options.yes && !interactive())
        throw new UsageError('pass --yes to remove a provider without being asked (asked only on a terminal).')
      const removed = await withDatabase(async () => {
        const view = await getProvider(SYSTEM, slug).catch(refused)
        if (!options.yes) {
          const sure = await confirm(
            {
              message: `Remove ${view.name} (${view.slug})? Its ${view.identities} ${view.identities === 1 ? 'person keeps' : 'people keep'} their accounts and assignments but no longer sign in through it.`,
              default: false,
            },
            { output: process.stderr },
          )
          if (!sure) throw new Error('nothing removed.')
        }
        return removeProvider(SYSTEM, view.slug)
      })
      if (options.json) console.log(JSON.stringify(removed, null, 2))
      console.error(`Removed ${removed.name} (${removed.slug}).`)
    })

  const mapping = sso
    .command('mapping')
    .description("a provider's group rules as assignments: preview what they would change, apply them")

  mapping
    .command('preview')
    .description(
      'what applying the stored rules (or those of --map, nothing saved) would change for the learners who signed in through the provider, from their groups at their last sign-in',
    )
    .argument('<slug>', "the provider's short name")
    .option(
      '--map <rule>',
      `"<group>=program:<title-or-id>" or "<group>=course:<title-or-id>": preview these rules instead of the stored ones (repeat for several)`,
      collect,
    )
    .option('--json', 'print the changes as JSON')
    .action(async (slug: string, options: { map?: string[]; json?: boolean }) => {
      const proposed = options.map?.map(ruleOf)
      const changes = await withDatabase(() =>
        previewMapping(SYSTEM, slug, proposed).catch((error) => refused(error, () => '--map')),
      )
      printChanges(
        changes,
        options.json,
        false,
        `Dry run${proposed ? ' of the rules of --map' : ''}, nothing changed: `,
      )
    })

  mapping
    .command('apply')
    .description(
      "apply the stored rules to every learner who signed in through the provider: assign what their groups give, unassign what a rule gave and no longer gives (an admin's assignments stay)",
    )
    .argument('<slug>', "the provider's short name")
    .option('--json', 'print the changes as JSON')
    .action(async (slug: string, options: { json?: boolean }) => {
      const changes = await withDatabase(() => applyMapping(SYSTEM, slug).catch(refused))
      printChanges(changes, options.json, true, 'Applied: ')
    })
}

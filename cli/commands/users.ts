import { text } from 'node:stream/consumers'
import { input, password as passwordPrompt, select } from '@inquirer/prompts'
import type { Command } from 'commander'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { SIGN_IN_OUTCOMES } from '#app/modules/auth/schema.ts'
import { listSignInEvents } from '#app/modules/auth/sign-ins.server.ts'
import { ROLE_NAMES_INPUT } from '#app/modules/users/schema.ts'
import { createUser, disableUser, enableUser, findUserByIdentifier } from '#app/modules/users/service.server.ts'
import { disconnect } from '#db/client.ts'
import { textTable, UsageError } from '../output.ts'
import { registerUsersImport } from './users-import.ts'

type CreateOptions = {
  role?: string
  email?: string
  password?: string
  passwordStdin?: boolean
  firstName?: string
  lastName?: string
  username?: string
}

const FLAGS: { key: Exclude<keyof CreateOptions, 'passwordStdin'>; flag: string; label: string }[] = [
  { key: 'role', flag: '--role', label: 'Role' },
  { key: 'email', flag: '--email', label: 'Email' },
  { key: 'password', flag: '--password', label: 'Password' },
  { key: 'firstName', flag: '--first-name', label: 'First name' },
  { key: 'lastName', flag: '--last-name', label: 'Last name' },
  { key: 'username', flag: '--username', label: 'Username' },
]

export function registerUsers(program: Command) {
  const users = program.command('users').description('accounts')

  users
    .command('create')
    .description('create an account that can sign in at once')
    .option('--role <role>', `one of ${ROLE_NAMES_INPUT.join(', ')}`)
    .option('--email <email>')
    .option(
      '--password <password>',
      'at least 8 characters with a lowercase, an uppercase, a digit and a symbol (visible to other users: prefer --password-stdin)',
    )
    .option('--password-stdin', 'read the password from standard input, one line')
    .option('--first-name <name>')
    .option('--last-name <name>')
    .option('--username <name>')
    .option('--json', 'print the new account as JSON: { id, role, firstName, lastName, userName, email }')
    .action(async ({ json, ...options }: CreateOptions & { json?: boolean }) => {
      const values = await completeOptions(await readPassword(options))
      try {
        const user = await createUser(SYSTEM, {
          role: values.role as (typeof ROLE_NAMES_INPUT)[number],
          email: values.email ?? '',
          password: values.password ?? '',
          firstName: values.firstName ?? '',
          lastName: values.lastName ?? '',
          userName: values.username ?? '',
        })
        if (json) {
          const { id, firstName, lastName, userName, email } = user
          console.log(JSON.stringify({ id, role: values.role, firstName, lastName, userName, email }))
        } else console.log(`Created ${values.role} ${user.userName} <${user.email}> (id ${user.id}).`)
      } finally {
        await disconnect()
      }
    })

  users
    .command('sign-ins')
    .description(
      'the record of sign-in attempts, newest first: when, outcome, account, address, and for a company sign-in the provider, subject and why it was refused',
    )
    .option('--user <email-or-username>', 'only this account (or, for no account, what was typed)')
    .option('--address <address>', 'only attempts from this client address')
    .option('--outcome <outcome>', `only this outcome: ${SIGN_IN_OUTCOMES.join(', ')}`)
    .option('--provider <short-name>', 'only sign-ins through this company provider')
    .option('--limit <n>', 'how many to list (1 to 1000)', '50')
    .option(
      '--json',
      'print an array of { id, at, account, userId, userName, address, outcome, provider, subject, reason }',
    )
    .action(
      async (options: {
        user?: string
        address?: string
        outcome?: string
        provider?: string
        limit: string
        json?: boolean
      }) => {
        const { json, ...filter } = options
        let events
        try {
          events = await listSignInEvents(SYSTEM, filter)
        } finally {
          await disconnect()
        }
        if (json) return console.log(JSON.stringify(events, null, 2))
        if (!events.length) return console.error('No sign-in attempts recorded for this.')
        console.log(
          textTable([
            ['AT', 'OUTCOME', 'ACCOUNT', 'ADDRESS', 'THROUGH', 'SUBJECT', 'REASON'],
            ...events.map((e) => [
              e.at,
              e.outcome,
              e.account,
              e.address ?? 'unknown',
              e.provider ?? 'password',
              e.subject ?? '',
              e.reason ?? '',
            ]),
          ]),
        )
      },
    )

  for (const change of ACCESS_CHANGES)
    users
      .command(change.name)
      .description(change.description)
      .argument('<account>', 'its email or username (its id works too)')
      .option('--json', 'print the account as JSON: { id, userName, email, disabled, disabledAt, changed }')
      .action(async (identifier: string, { json }: { json?: boolean }) => {
        if (!identifier.trim()) throw new UsageError('name the account: its email or username.')
        let done
        try {
          const { id } = await findUserByIdentifier(identifier)
          done = await change.run(SYSTEM, id)
        } finally {
          await disconnect()
        }
        const { id, userName, email, disabledAt, changed } = done
        if (json)
          return console.log(
            JSON.stringify({ id, userName, email, disabled: disabledAt !== null, disabledAt, changed }),
          )
        // what happened is a message: standard error, as the other commands that change one record say it
        const who = `${userName} <${email}>`
        console.error(changed ? `${change.done} ${who}.` : `${who} was already ${change.name}d.`)
      })

  registerUsersImport(users)
}

/** `portal users disable` and `portal users enable` (docs/product.md#disabled-accounts). */
const ACCESS_CHANGES = [
  {
    name: 'disable',
    description:
      'disable an account: it can no longer sign in in any way, and every session and API token of it ends at once; nothing of it is deleted',
    run: disableUser,
    done: 'Disabled',
  },
  {
    name: 'enable',
    description: 'enable a disabled account: it signs in again as before',
    run: enableUser,
    done: 'Enabled',
  },
] as const

/**
 * The password never has to be on the command line: --password-stdin reads it from a pipe, a terminal
 * is asked for it. --password still works, with a warning, since other users can read a command's arguments.
 */
async function readPassword(options: CreateOptions): Promise<CreateOptions> {
  if (options.passwordStdin) {
    if (options.password !== undefined) throw new UsageError('pass either --password or --password-stdin, not both.')
    if (process.stdin.isTTY)
      throw new UsageError(
        '--password-stdin reads a pipe (printf %s "$PASSWORD" | portal users create …); on a terminal leave it out to be asked for the password.',
      )
    const password = (await text(process.stdin)).split(/\r?\n/)[0]
    if (!password) throw new UsageError('--password-stdin: standard input holds no password.')
    return { ...options, password }
  }
  if (options.password !== undefined)
    console.error(
      'portal: warning: a password given with --password can be seen by other users of this machine (ps, shell history); use --password-stdin or the prompt instead.',
    )
  return options
}

/** Ask for what is missing on a terminal; anywhere else a missing value is a usage error (exit 2). */
async function completeOptions(options: CreateOptions): Promise<CreateOptions> {
  const missing = FLAGS.filter((f) => !options[f.key])
  if (missing.length === 0) return options
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new UsageError(
      `missing ${missing.map((f) => f.flag).join(', ')}; pass them as options (prompts are offered only on a terminal).`,
    )
  }
  const values = { ...options }
  for (const field of missing) {
    if (field.key === 'role') {
      values.role = await select({
        message: field.label,
        choices: ROLE_NAMES_INPUT.map((r) => ({ value: r, name: r })),
        default: 'learner',
      })
    } else if (field.key === 'password') {
      values.password = await passwordPrompt({ message: field.label, mask: '*' })
    } else {
      values[field.key] = await input({ message: field.label, required: true })
    }
  }
  return values
}

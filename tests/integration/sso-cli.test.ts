import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GrantChange } from '#app/modules/sso/grants.server.ts'
import type { ProviderView } from '#app/modules/sso/providers.server.ts'
import { select } from '#db/client.ts'
import { portal } from '#tests/cli.ts'
import { assignProgram, makeCourse, makeLearner, makeProgram } from '#tests/factories.ts'
import { closedPort } from '#tests/oidc/forged-provider.ts'
import { startTestProvider } from '#tests/oidc/provider.ts'

// `portal sso …` in a child process, on this test file's database, against a real OpenID Connect provider on
// 127.0.0.1: providers added (the secret from standard input only, sealed at rest, never printed), listed, shown,
// changed and removed, and group rules previewed and applied, with the exit codes scripts rely on.

// each command is a child process starting Node and tsx: a test of several needs more than the default time
const SLOW = { timeout: 240_000 }

const CLIENT_ID = 'portal-cli'
const SECRET = `sso-cli-secret-${randomBytes(12).toString('hex')}`
const OTHER_SECRET = `sso-cli-other-${randomBytes(12).toString('hex')}`

let provider: Awaited<ReturnType<typeof startTestProvider>>

beforeAll(async () => {
  provider = await startTestProvider({
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: SECRET,
        // adding a provider reads only its discovery document: nobody signs in here
        redirect_uris: ['http://portal.test/sso/acme/callback'],
      },
    ],
    accounts: [],
  })
})
afterAll(() => provider?.close())

type Shown = ProviderView & { redirectUri: string; backchannelLogoutUri: string; postLogoutRedirectUri: string }

const stored = async (slug: string) =>
  (
    await select<{ client_secret: string; issuer: string }>(
      'SELECT client_secret, issuer FROM identity_providers WHERE slug = $1',
      [slug],
    )
  )[0]
const providerCount = async () =>
  (await select<{ n: number }>('SELECT count(*)::int AS n FROM identity_providers', []))[0].n

/** `portal sso add <slug>` with the test provider's issuer and client, the secret on standard input. */
const add = (slug: string, extra: string[]) =>
  portal(
    ['sso', 'add', slug, '--issuer', provider.issuer, '--client-id', CLIENT_ID, '--client-secret-stdin', ...extra],
    {},
    { input: `${SECRET}\n` },
  )

const root = path.resolve(import.meta.dirname, '..', '..')
const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`

/**
 * `portal …` on a real pseudo-terminal (`script`, util-linux), each answer typed once its question shows: what
 * the terminal showed (both outputs, and anything echoed) and the exit code.
 */
async function onTerminal(args: string[], answers: [RegExp, string][]) {
  const command = [process.execPath, path.join(root, 'cli', 'bin.js'), ...args].map(quote).join(' ')
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: root, env: { ...process.env, TERM: 'dumb' } })
  let terminal = ''
  let pending = ''
  child.stdout.on('data', (data: Buffer) => {
    terminal += data.toString()
    pending += data.toString()
    const next = answers[0]
    if (next && next[0].test(pending)) {
      answers.shift()
      pending = ''
      child.stdin.write(`${next[1]}\r`)
    }
  })
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  return { code, terminal, unanswered: answers.length }
}

/** Neither output of a command shows the secret. */
function expectNoSecret(run: { stdout: string; stderr: string }, ...secrets: string[]) {
  for (const secret of secrets) {
    expect(run.stdout).not.toContain(secret)
    expect(run.stderr).not.toContain(secret)
  }
}

describe('portal sso', () => {
  it(
    'add takes the secret from standard input and keeps it sealed; list, show and update never show it',
    SLOW,
    async () => {
      const course = await makeCourse({ title: `Safety ${randomBytes(3).toString('hex')}` })
      const program = await makeProgram([course.id])
      const [{ title: programTitle }] = await select<{ title: string }>('SELECT title FROM programs WHERE id = $1', [
        program.id,
      ])

      const added = await add('acme', [
        '--name',
        'Acme',
        '--domain',
        'acme.com,acme.co.uk',
        '--domain',
        'Acme.org',
        '--create-accounts',
        '--account-group',
        'staff',
        '--account-group',
        'Contractors EU',
        '--map',
        `engineers=program:${programTitle}`,
        '--map',
        `everyone=course:${course.id}`,
        '--json',
      ])
      expect(added.stderr).toBe(
        'Added Acme (acme) for acme.com, acme.co.uk, acme.org: 2 group rules, accounts created.\n' +
          'Register this redirect URI at the provider: http://portal.test/sso/acme/callback\n',
      )
      expect(added.code).toBe(0)
      expectNoSecret(added, SECRET)
      const view = JSON.parse(added.stdout) as Shown
      expect(view).toMatchObject({
        slug: 'acme',
        name: 'Acme',
        issuer: provider.issuer,
        clientId: CLIENT_ID,
        secretReadable: true,
        scopes: 'openid email profile',
        domains: ['acme.com', 'acme.co.uk', 'acme.org'],
        required: false,
        createAccounts: true,
        accountGroups: ['staff', 'Contractors EU'],
        groupsClaim: 'groups',
        identities: 0,
        redirectUri: 'http://portal.test/sso/acme/callback',
        backchannelLogoutUri: 'http://portal.test/sso/acme/backchannel-logout',
        postLogoutRedirectUri: 'http://portal.test/',
      })
      expect(view.rules).toEqual([
        { group: 'engineers', kind: 'program', id: program.id, title: programTitle },
        { group: 'everyone', kind: 'course', id: course.id, title: course.title },
      ])
      expect(view).not.toHaveProperty('clientSecret')
      const sealed = (await stored('acme')).client_secret
      expect(sealed).toMatch(/^v1\./)
      expect(sealed).not.toContain(SECRET)
      expect(Buffer.from(sealed.split('.')[3], 'base64url').toString('latin1')).not.toContain(SECRET)

      const again = await add('acme', ['--name', 'Acme again', '--domain', 'acme.com'])
      expect(again.code).toBe(1)
      expect(again.stderr).toBe('portal: An identity provider already has this short name.\n')

      const listed = await portal(['sso', 'list', '--json'])
      expect(listed.code).toBe(0)
      expectNoSecret(listed, SECRET)
      expect((JSON.parse(listed.stdout) as Shown[]).map((p) => [p.slug, p.rules.length, p.secretReadable])).toEqual([
        ['acme', 2, true],
      ])
      const table = await portal(['sso', 'list'])
      expect(table.code).toBe(0)
      expect(table.stdout.split('\n')[0]).toMatch(
        /^SLUG\s+NAME\s+ISSUER\s+DOMAINS\s+REQUIRED\s+ACCOUNTS\s+RULES\s+PEOPLE$/,
      )
      expect(table.stdout).toMatch(
        /^acme\s+Acme\s+\S+\s+acme\.com,acme\.co\.uk,acme\.org\s+no\s+create for staff, Contractors EU\s+2\s+0$/m,
      )

      const shown = await portal(['sso', 'show', 'acme'])
      expect(shown.code).toBe(0)
      expectNoSecret(shown, SECRET)
      expect(shown.stdout).toMatch(/^Client secret\s+kept, sealed \(never shown\)$/m)
      expect(shown.stdout).toMatch(/^Redirect URI\s+http:\/\/portal\.test\/sso\/acme\/callback$/m)
      expect(shown.stdout).toMatch(/^GROUP\s+KIND\s+TITLE\s+ID$/m)
      expect(shown.stdout).toMatch(new RegExp(`^engineers\\s+program\\s+${programTitle}\\s+${program.id}$`, 'm'))
      const shownJson = await portal(['sso', 'show', 'acme', '--json'])
      expect(JSON.parse(shownJson.stdout)).toEqual(JSON.parse(listed.stdout)[0])

      // rules replaced, accounts turned off, the secret kept as it was (not given)
      const updated = await portal([
        'sso',
        'update',
        'acme',
        '--map',
        `everyone=program:${program.id}`,
        '--no-create-accounts',
        '--required',
        '--json',
      ])
      expect(updated.stderr).toMatch(/^Changed Acme \(acme\): --required, --create-accounts, --map\.\n/)
      expect(updated.code).toBe(0)
      expect(JSON.parse(updated.stdout)).toMatchObject({
        createAccounts: false,
        required: true,
        accountGroups: ['staff', 'Contractors EU'],
        domains: ['acme.com', 'acme.co.uk', 'acme.org'],
        secretReadable: true,
        rules: [{ group: 'everyone', kind: 'program', id: program.id, title: programTitle }],
      })
      expect((await stored('acme')).client_secret).toBe(sealed)

      // a new secret from standard input replaces the old one, sealed anew; --clear-map removes every rule
      const rekeyed = await portal(
        ['sso', 'update', 'acme', '--client-secret-stdin', '--clear-map', '--no-required', '--json'],
        {},
        { input: `${OTHER_SECRET}\n` },
      )
      expect(rekeyed.code).toBe(0)
      expectNoSecret(rekeyed, SECRET, OTHER_SECRET)
      expect(JSON.parse(rekeyed.stdout)).toMatchObject({ rules: [], required: false, secretReadable: true })
      const resealed = (await stored('acme')).client_secret
      expect(resealed).not.toBe(sealed)
      expect(resealed).not.toContain(OTHER_SECRET)
    },
  )

  it('an issuer that does not answer is refused with exit code 1 and nothing written', SLOW, async () => {
    const before = await providerCount()
    const dead = `http://127.0.0.1:${await closedPort()}`
    const run = await portal(
      [
        'sso',
        'add',
        'deadco',
        '--name',
        'Dead',
        '--domain',
        'dead.example',
        '--issuer',
        dead,
        '--client-id',
        CLIENT_ID,
        '--client-secret-stdin',
      ],
      {},
      { input: SECRET },
    )
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toBe(`portal: Could not read the discovery document of ${dead} (it did not answer).\n`)
    expectNoSecret(run, SECRET)
    expect(await providerCount()).toBe(before)

    // a change to such an issuer is refused alike, and the provider keeps its own
    expect((await add('steady', ['--name', 'Steady', '--domain', 'steady.example'])).code).toBe(0)
    const moved = await portal(['sso', 'update', 'steady', '--issuer', dead])
    expect(moved.code).toBe(1)
    expect(moved.stderr).toContain(`Could not read the discovery document of ${dead}`)
    expect((await stored('steady')).issuer).toBe(provider.issuer)

    const unknown = await portal(['sso', 'update', 'nobody', '--name', 'Nobody'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toBe('portal: No identity provider has that name.\n')
    for (const args of [
      ['sso', 'show', 'nobody'],
      ['sso', 'show', 'Not A Name!'],
      ['sso', 'mapping', 'apply', 'nobody'],
    ]) {
      const missing = await portal(args)
      expect(missing.code, args.join(' ')).toBe(1)
      expect(missing.stderr).toBe('portal: No identity provider has that name.\n')
    }
  })

  it(
    'wrong input exits 2 naming the option, and nothing is written; the secret is never asked for off a terminal',
    SLOW,
    async () => {
      const before = await providerCount()
      const fields = ['--name', 'Bad', '--issuer', provider.issuer, '--client-id', CLIENT_ID, '--domain', 'bad.example']
      const base = [...fields, '--client-secret-stdin']
      const cases: [string[], RegExp][] = [
        [['sso', 'add', 'bad', ...base, '--issuer', 'ftp://login.example'], /^portal: --issuer: Issuer URL must/],
        [['sso', 'add', 'bad', ...base, '--domain', 'not a domain'], /^portal: --domain: Email domains are names/],
        [['sso', 'add', 'bad', ...base, '--scopes', 'email profile'], /^portal: --scopes: Scopes must include openid/],
        [['sso', 'add', 'Bad_Name!', ...base], /^portal: <slug>: Short name: 1 to 40/],
        [
          ['sso', 'add', 'bad', '--issuer', provider.issuer, '--client-id', CLIENT_ID, '--client-secret-stdin'],
          /^portal: --name: Display name is required/,
        ],
        [['sso', 'add', 'bad', ...base, '--map', 'engineers'], /^portal: --map: "engineers" is not <group>=program:/],
        [
          ['sso', 'add', 'bad', ...base, '--map', 'engineers=program:No Such Program'],
          /^portal: --map: Rule 1 \(engineers\): /,
        ],
        [['sso', 'add', 'bad', ...base, '--client-secret', SECRET], /unknown option '--client-secret'/],
        [['sso', 'update', 'acme'], /^portal: nothing to change/],
        [['sso', 'update', 'acme', '--map', 'a=course:x', '--clear-map'], /cannot be used with option/],
      ]
      for (const [args, message] of cases) {
        const run = await portal(args, {}, { input: SECRET })
        expect(run.code, args.join(' ')).toBe(2)
        expect(run.stdout).toBe('')
        expect(run.stderr, args.join(' ')).toMatch(message)
      }

      // no --client-secret-stdin and no terminal: told how to give it, never asked
      const noSecret = await portal(['sso', 'add', 'bad', ...fields], {}, { input: '' })
      expect(noSecret.code).toBe(2)
      expect(noSecret.stderr).toMatch(/^portal: the client secret is never an argument: pass --client-secret-stdin/)
      const empty = await portal(['sso', 'add', 'bad', ...base], {}, { input: '\n' })
      expect(empty.code).toBe(2)
      expect(empty.stderr).toBe('portal: --client-secret-stdin: standard input holds no client secret.\n')
      expect(await providerCount()).toBe(before)
    },
  )

  it('remove asks first: off a terminal it needs --yes', SLOW, async () => {
    expect((await add('gone', ['--name', 'Gone', '--domain', 'gone.example'])).code).toBe(0)
    const asked = await portal(['sso', 'remove', 'gone'])
    expect(asked.code).toBe(2)
    expect(asked.stderr).toMatch(/^portal: pass --yes /)
    expect(await stored('gone')).toBeDefined()

    const removed = await portal(['sso', 'remove', 'gone', '--yes', '--json'])
    expect(removed.code).toBe(0)
    expect(JSON.parse(removed.stdout)).toEqual({ slug: 'gone', name: 'Gone' })
    expect(removed.stderr).toBe('Removed Gone (gone).\n')
    expect(await stored('gone')).toBeUndefined()
    const twice = await portal(['sso', 'remove', 'gone', '--yes'])
    expect(twice.code).toBe(1)
    expect(twice.stderr).toBe('portal: No identity provider has that name.\n')
  })

  it('on a terminal the secret is asked for without being shown, and remove asks before removing', SLOW, async () => {
    const secret = `typed-${randomBytes(12).toString('hex')}`
    const added = await onTerminal(
      [
        'sso',
        'add',
        'typed',
        '--name',
        'Typed',
        '--issuer',
        provider.issuer,
        '--client-id',
        CLIENT_ID,
        '--domain',
        'typed.example',
      ],
      [[/Client secret/, secret]],
    )
    expect(added.unanswered).toBe(0)
    expect(added.code).toBe(0)
    expect(added.terminal).toContain('Added Typed (typed) for typed.example')
    expect(added.terminal).not.toContain(secret)
    expect(added.terminal).toContain(`✔ Client secret ${'*'.repeat(secret.length)}`)
    expect((await stored('typed')).client_secret).toMatch(/^v1\./)
    const shown = await portal(['sso', 'show', 'typed', '--json'])
    expect(JSON.parse(shown.stdout)).toMatchObject({ secretReadable: true })

    const kept = await onTerminal(['sso', 'remove', 'typed'], [[/Remove Typed \(typed\)\?/, 'n']])
    expect(kept.code).toBe(1)
    expect(kept.terminal).toContain('portal: nothing removed.')
    expect(await stored('typed')).toBeDefined()
    const removed = await onTerminal(['sso', 'remove', 'typed'], [[/Remove Typed \(typed\)\?/, 'y']])
    expect(removed.code).toBe(0)
    expect(removed.terminal).toContain('Removed Typed (typed).')
    expect(await stored('typed')).toBeUndefined()
  })

  it(
    'mapping preview lists what the rules would change and writes nothing; apply assigns, and unassigns only what a rule gave',
    SLOW,
    async () => {
      const onboarding = await makeProgram([])
      const security = await makeProgram([])
      const course = await makeCourse({ title: `Git ${randomBytes(3).toString('hex')}` })
      const titles = Object.fromEntries(
        (
          await select<{ id: string; title: string }>('SELECT id, title FROM programs WHERE id = ANY($1)', [
            [onboarding.id, security.id],
          ])
        ).map((p) => [p.id, p.title]),
      )
      const added = await add('rules', [
        '--name',
        'Rules',
        '--domain',
        'rules.example',
        '--map',
        `engineers=program:${titles[onboarding.id]}`,
        '--map',
        `engineers=course:${course.title}`,
        '--map',
        `admins=program:${security.id}`,
        '--json',
      ])
      expect(added.code).toBe(0)
      const providerId = (JSON.parse(added.stdout) as Shown).id

      // learners as if they had signed in through the provider, with the groups it last named
      const ada = await makeLearner()
      const bob = await makeLearner()
      const cyd = await makeLearner()
      for (const [learner, groups] of [
        [ada, ['engineers']],
        [bob, ['engineers', 'admins']],
        [cyd, ['sales']],
      ] as const)
        await select(
          'INSERT INTO user_identities (provider_id, subject, user_id, email, groups) VALUES ($1, $2, $3, $4, $5) RETURNING 1',
          [providerId, `sub-${learner.id}`, learner.id, learner.email, groups],
        )
      // bob's onboarding is an admin's, made before any rule
      await assignProgram(bob.id, onboarding.id)

      const assigned = async () =>
        (
          await select<{ row: string }>(
            `SELECT user_id || ' program ' || program_id AS row FROM program_assignments WHERE user_id = ANY($1)
             UNION ALL
             SELECT user_id || ' course ' || course_id FROM course_assignments WHERE user_id = ANY($1)`,
            [[ada.id, bob.id, cyd.id]],
          )
        )
          .map((r) => r.row)
          .sort()
      const granted = async () =>
        (
          await select<{ row: string }>(
            `SELECT user_id || ' ' || COALESCE(program_id, course_id) AS row FROM identity_grants
              WHERE provider_id = $1`,
            [providerId],
          )
        )
          .map((r) => r.row)
          .sort()
      const before = await assigned()
      expect(before).toEqual([`${bob.id} program ${onboarding.id}`])

      const gains = [
        [ada.email, 'gain', 'program', titles[onboarding.id]],
        [ada.email, 'gain', 'course', course.title],
        [bob.email, 'gain', 'program', titles[security.id]],
        [bob.email, 'gain', 'course', course.title],
      ]
      const byRow = (rows: string[][]) => [...rows].sort((a, b) => a.join().localeCompare(b.join()))
      const preview = await portal(['sso', 'mapping', 'preview', 'rules', '--json'])
      expect(preview.code).toBe(0)
      expect(preview.stderr).toBe('Dry run, nothing changed: 4 assignments to gain, 0 to lose for 2 learners.\n')
      const planned = JSON.parse(preview.stdout) as GrantChange[]
      expect(byRow(planned.map((c) => [c.email, c.action, c.kind, c.title]))).toEqual(byRow(gains))
      expect(await assigned()).toEqual(before)
      expect(await granted()).toEqual([])

      const table = await portal(['sso', 'mapping', 'preview', 'rules'])
      expect(table.stdout.split('\n')[0]).toMatch(/^LEARNER\s+ACTION\s+KIND\s+TITLE$/)
      expect(table.stdout).toMatch(new RegExp(`^${ada.email}\\s+gain\\s+course\\s+${course.title}$`, 'm'))

      const applied = await portal(['sso', 'mapping', 'apply', 'rules', '--json'])
      expect(applied.code).toBe(0)
      expect(applied.stderr).toBe('Applied: 4 assignments gained, 0 lost for 2 learners.\n')
      expect(
        byRow((JSON.parse(applied.stdout) as GrantChange[]).map((c) => [c.email, c.action, c.kind, c.title])),
      ).toEqual(byRow(gains))
      expect(await assigned()).toEqual(
        [
          `${ada.id} program ${onboarding.id}`,
          `${ada.id} course ${course.id}`,
          `${bob.id} program ${onboarding.id}`,
          `${bob.id} program ${security.id}`,
          `${bob.id} course ${course.id}`,
        ].sort(),
      )
      // bob's onboarding stays the admin's: the rule gave him only what he lacked
      expect(await granted()).toEqual(
        [
          `${ada.id} ${onboarding.id}`,
          `${ada.id} ${course.id}`,
          `${bob.id} ${security.id}`,
          `${bob.id} ${course.id}`,
        ].sort(),
      )
      const nothing = await portal(['sso', 'mapping', 'apply', 'rules'])
      expect(nothing.stdout).toBe('')
      expect(nothing.stderr).toBe('Applied: 0 assignments gained, 0 lost for 0 learners.\n')

      // proposed rules are previewed without being saved
      const proposed = await portal([
        'sso',
        'mapping',
        'preview',
        'rules',
        '--map',
        `sales=course:${course.id}`,
        '--json',
      ])
      expect(proposed.code).toBe(0)
      expect(proposed.stderr).toBe(
        'Dry run of the rules of --map, nothing changed: 1 assignment to gain, 4 to lose for 3 learners.\n',
      )
      expect((await portal(['sso', 'show', 'rules', '--json'])).stdout).toContain('"group": "admins"')
      const badRule = await portal(['sso', 'mapping', 'preview', 'rules', '--map', 'sales=course:No Such Course'])
      expect(badRule.code).toBe(2)
      expect(badRule.stderr).toMatch(/^portal: --map: Rule 1 \(sales\): /)

      // the engineers lose onboarding: ada's goes (a rule gave it), bob's stays (an admin gave it)
      const changed = await portal([
        'sso',
        'update',
        'rules',
        '--map',
        `engineers=course:${course.id}`,
        '--map',
        `admins=program:${security.id}`,
      ])
      expect(changed.code).toBe(0)
      const losing = await portal(['sso', 'mapping', 'preview', 'rules'])
      expect(losing.code).toBe(0)
      expect(losing.stdout).toMatch(new RegExp(`^${ada.email}\\s+lose\\s+program\\s+${titles[onboarding.id]}$`, 'm'))
      expect(losing.stdout.trim().split('\n')).toHaveLength(2)
      expect(losing.stderr).toBe('Dry run, nothing changed: 0 assignments to gain, 1 to lose for 1 learner.\n')

      const unassigned = await portal(['sso', 'mapping', 'apply', 'rules'])
      expect(unassigned.code).toBe(0)
      expect(unassigned.stderr).toBe('Applied: 0 assignments gained, 1 lost for 1 learner.\n')
      expect(await assigned()).toEqual(
        [
          `${ada.id} course ${course.id}`,
          `${bob.id} program ${onboarding.id}`,
          `${bob.id} program ${security.id}`,
          `${bob.id} course ${course.id}`,
        ].sort(),
      )
      expect(await granted()).toEqual(
        [`${ada.id} ${course.id}`, `${bob.id} ${security.id}`, `${bob.id} ${course.id}`].sort(),
      )
    },
  )
})

import { within } from '@testing-library/dom'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getProvider, loadProvider } from '#app/modules/sso/providers.server.ts'
import { callbackUrl } from '#app/modules/sso/strategy.server.ts'
import { loader as startLoader } from '#app/routes/_auth+/sso.$provider.tsx'
import { loader as callbackLoader } from '#app/routes/_auth+/sso.$provider_.callback.tsx'
import * as listPage from '#app/routes/admin+/sso.tsx'
import * as providerPage from '#app/routes/admin+/sso_.$slug.tsx'
import { query, sql } from '#db/client.ts'
import { makeCourse, makeProgram } from '#tests/factories.ts'
import { signInAtProvider } from '#tests/oidc/browserless.ts'
import { closedPort } from '#tests/oidc/forged-provider.ts'
import { startTestProvider, type TestProvider } from '#tests/oidc/provider.ts'
import { postedBy, renderRoute, type RouteModule } from '#tests/render.tsx'
import { BASE, body, call } from '#tests/requests.ts'
import { signedInPeople, toastOf, type SignedInPerson } from '#tests/sessions.ts'

// The Company sign-in pages of the super admin, driven as a browser without JavaScript drives them: the list with
// its Add form (checked against a real OpenID Connect provider on loopback, whose discovery document is read), one
// provider's page with Save, Preview (a dry run of the typed rules), Save and apply, and Remove; admins and coaches
// are sent back to the dashboard as from Backups.

const LIST = '/admin/sso'
const SLUG = 'acme'
const PAGE = `${LIST}/${SLUG}`
const SECRET = 'the-client-secret-never-shown-3141'
const REFUSED = 'Only the super admin can manage company sign-in.'

type Reply = {
  result: { status?: string; error?: Record<string, string[]>; initialValue?: Record<string, unknown> }
  preview?: { email: string; action: string; kind: string; title: string }[]
}

let people: Record<'superAdmin' | 'admin' | 'coach', SignedInPerson>
let provider: TestProvider
let program: { id: string; title: string }
let course: { id: string; title: string }

beforeAll(async () => {
  people = await signedInPeople('superAdmin', 'admin', 'coach')
  provider = await startTestProvider({
    clients: [{ client_id: 'portal', client_secret: SECRET, redirect_uris: [`${BASE}/sso/${SLUG}/callback`] }],
    accounts: [
      { sub: 'alice-sub', email: 'alice@acme.test', email_verified: true, given_name: 'Alice', groups: ['engineers'] },
      { sub: 'bob-sub', email: 'bob@acme.test', email_verified: true, given_name: 'Bob', groups: ['sales'] },
    ],
  })
  course = await makeCourse({ title: `Pages CRM Basics ${Date.now()}` })
  const { id } = await makeProgram([course.id])
  const title = `Pages Onboarding ${Date.now()}`
  await query(sql('UPDATE programs SET title = :title WHERE id = :id'), { title, id })
  program = { id, title }
})

afterAll(async () => {
  await provider?.close()
})

/** The Add form's fields as a browser posts them, ticked boxes as "on". */
const addFields = (overrides: Record<string, string> = {}) => ({
  slug: SLUG,
  name: 'Acme',
  issuer: provider.issuer,
  clientId: 'portal',
  clientSecret: SECRET,
  scopes: 'openid email profile groups',
  domains: 'acme.test',
  createAccounts: 'on',
  accountGroups: '',
  groupsClaim: 'groups',
  rules: `engineers = program: ${program.title}`,
  ...overrides,
})

/** The edit form's fields as the page holds them for the provider added above, the secret left empty. */
const editFields = (overrides: Record<string, string> = {}) => {
  const { slug: _slug, ...fields } = addFields({ clientSecret: '' })
  return { ...fields, ...overrides }
}

const post = (route: { action: unknown }, path: string, fields: Record<string, string>, who = people.superAdmin) =>
  call(route.action as never, path, {
    method: 'POST',
    headers: { Cookie: who.cookie },
    body: new URLSearchParams(Object.entries(fields)),
    params: path === LIST ? {} : { slug: path.slice(LIST.length + 1) },
  })
const open = (route: { loader: unknown }, path: string, who = people.superAdmin) =>
  call(route.loader as never, path, {
    headers: { Cookie: who.cookie },
    params: path.startsWith(`${LIST}/`) ? { slug: path.slice(LIST.length + 1).split('?')[0] } : {},
  })
const renderList = (form?: [string, string][]) =>
  renderRoute(listPage as RouteModule, LIST, { cookie: people.superAdmin.cookie, form })
const renderProvider = (path = PAGE, form?: [string, string][]) =>
  renderRoute(providerPage as RouteModule, path, {
    cookie: people.superAdmin.cookie,
    pattern: '/admin/sso/:slug',
    form,
  })

const sealedSecret = async () =>
  (
    await query<{ client_secret: string }>(sql('SELECT client_secret FROM identity_providers WHERE slug = :slug'), {
      slug: SLUG,
    })
  )[0]?.client_secret

const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0]

/** A whole sign-in through the provider, as a browser makes it: the button, the provider's login, the callback. */
async function signInThroughProvider(login: string) {
  const started = await call(startLoader, `/sso/${SLUG}`, { params: { provider: SLUG } })
  expect(started.status).toBe(302)
  const back = new URL(await signInAtProvider(started.headers.get('Location')!, login))
  const done = await call(callbackLoader, `${back.pathname}${back.search}`, {
    params: { provider: SLUG },
    headers: { Cookie: cookieOf(started, '__portal_sso')! },
  })
  expect(cookieOf(done, '__portal_session'), `${login} signed in`).toBeTruthy()
}

const assignmentsOf = (email: string) =>
  query<{ kind: string; id: string }>(
    sql(`SELECT 'program' AS kind, a.program_id AS id FROM program_assignments a JOIN users u ON u.id = a.user_id
          WHERE u.email = :email
         UNION ALL
         SELECT 'course', a.course_id FROM course_assignments a JOIN users u ON u.id = a.user_id
          WHERE u.email = :email
         ORDER BY 1, 2`),
    { email },
  )

describe('the Company sign-in pages', () => {
  it('say what company sign-in is while there is no provider, with a way to add one', async () => {
    const page = await renderList()
    expect(page.getByRole('heading', { name: 'Company sign-in', level: 1 })).toBeInTheDocument()
    expect(page.getByText('No identity provider yet')).toBeInTheDocument()
    expect(page.getByText(/everyone signs in with a password/)).toBeInTheDocument()
    expect(page.getByRole('link', { name: 'Add a provider' })).toHaveAttribute('href', '#add-heading')
    expect(page.queryByRole('table')).toBeNull()
    const form = page.getByRole('form', { name: 'Add a provider' })
    for (const label of ['Short name', 'Display name', 'Issuer URL', 'Client ID', 'Scopes', 'Email domains'])
      expect(within(form).getByRole('textbox', { name: label })).toBeInTheDocument()
    expect(within(form).getByLabelText('Client secret')).toHaveAttribute('type', 'password')
    expect(within(form).getByRole('checkbox', { name: /^Require this provider for its domains/ })).not.toBeChecked()
    expect(within(form).getByRole('checkbox', { name: /^Create accounts for people who have none/ })).not.toBeChecked()
    expect(within(form).getByRole('textbox', { name: 'Group rules' })).toHaveAccessibleDescription(
      /group = program: Title or group = course: Title/,
    )
    // the addresses to register, for a short name not typed yet
    expect(page.getByText('http://portal.test/sso/<short name>/callback')).toBeInTheDocument()
    expect(page.getByText('http://portal.test/sso/<short name>/backchannel-logout')).toBeInTheDocument()
    expect(page.getByText('http://portal.test/', { selector: 'code' })).toBeInTheDocument()
  })

  it('refuses each field it cannot take beside it, every bad rule line by its number, and never sends the secret back', async () => {
    const refused = await post(
      listPage,
      LIST,
      addFields({
        issuer: 'login.acme.test',
        domains: '',
        rules: `engineers = program: ${program.title}\nengineers -> program: Onboarding\n\nsales = workshop: CRM`,
      }),
    )
    expect(refused.status).toBe(400)
    const { result } = await body<Reply>(refused)
    expect(result.error).toEqual({
      issuer: ['Issuer URL must be an address such as https://login.example.com/tenant.'],
      domains: ['Name at least one email domain the provider serves.'],
      rules: [
        'Line 2: write a rule as group = program: Title or group = course: Title.',
        'Line 4: write a rule as group = program: Title or group = course: Title.',
      ],
    })
    expect(JSON.stringify(result)).not.toContain(SECRET)

    // a rule naming no program, found once the lines read: its line (blank lines counted) beside the field
    const unknown = await post(listPage, LIST, addFields({ rules: `\nengineers = program: No Such Program` }))
    expect(unknown.status).toBe(400)
    expect((await body<Reply>(unknown)).result.error).toEqual({
      rules: ['Line 2: No program with the id or title "No Such Program".'],
    })

    // an issuer whose discovery document cannot be read
    const down = await post(listPage, LIST, addFields({ issuer: `http://127.0.0.1:${await closedPort()}` }))
    expect(down.status).toBe(400)
    const { result: downResult } = await body<Reply>(down)
    expect(downResult.error?.issuer?.[0]).toMatch(/^Could not read the discovery document of http:\/\/127\.0\.0\.1:/)
    expect(JSON.stringify(downResult)).not.toContain(SECRET)
    expect(await sealedSecret()).toBeUndefined()

    // the page shown again: each message tied to its field, what was typed kept, the secret field empty
    const page = await renderList(Object.entries(addFields({ slug: 'Acme-Two', issuer: 'ftp://acme.test' })))
    const issuer = page.getByRole('textbox', { name: 'Issuer URL' })
    expect(issuer).toHaveValue('ftp://acme.test')
    expect(issuer).toHaveAttribute('aria-invalid', 'true')
    expect(issuer).toHaveAccessibleDescription(
      /Issuer URL must start with https:\/\/ \(http:\/\/ only for a provider on this machine\)\./,
    )
    expect(page.getByLabelText('Client secret')).toHaveValue('')
    expect(page.getByRole('textbox', { name: 'Group rules' })).toHaveValue(`engineers = program: ${program.title}`)
    expect(page.getByRole('checkbox', { name: /^Create accounts/ })).toBeChecked()
    // the addresses follow the short name typed
    expect(page.getByText('http://portal.test/sso/acme-two/callback')).toBeInTheDocument()
  })

  it('adds a provider through the form: the secret is in no page afterwards and sealed in the database', async () => {
    const added = await post(listPage, LIST, addFields())
    expect(added.status).toBe(302)
    expect(added.headers.get('Location')).toBe(PAGE)
    expect(await toastOf(added)).toMatchObject({
      type: 'success',
      message: 'Acme added: people at acme.test can sign in through it.',
    })
    const kept = await getProvider(people.superAdmin, SLUG)
    expect(kept).toMatchObject({
      name: 'Acme',
      issuer: provider.issuer,
      clientId: 'portal',
      secretReadable: true,
      scopes: 'openid email profile groups',
      domains: ['acme.test'],
      required: false,
      createAccounts: true,
      accountGroups: [],
      groupsClaim: 'groups',
      rules: [{ group: 'engineers', kind: 'program', id: program.id, title: program.title }],
    })
    expect((await loadProvider(SLUG))?.clientSecret).toBe(SECRET)
    const sealed = await sealedSecret()
    expect(sealed).toBeTruthy()
    expect(sealed).not.toContain(SECRET)
    expect(sealed).not.toContain(Buffer.from(SECRET).toString('base64'))

    // neither page's data carries it
    for (const [route, path] of [
      [listPage, LIST],
      [providerPage, PAGE],
    ] as const) {
      const opened = await open(route, path)
      expect(opened.status).toBe(200)
      expect(await opened.text()).not.toContain(SECRET)
    }

    const list = await renderList()
    const table = list.getByRole('table', { name: 'Identity providers' })
    const row = within(table).getByRole('row', { name: /Acme/ })
    expect(within(row).getByRole('link', { name: 'Acme' })).toHaveAttribute('href', PAGE)
    expect(row).toHaveTextContent(provider.issuer)
    expect(
      within(row)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual([SLUG, provider.issuer, 'acme.test', 'No', 'Yes', '1', '0'])

    const page = await renderProvider()
    expect(page.getByRole('heading', { name: 'Acme', level: 1 })).toBeInTheDocument()
    expect(page.getByLabelText('Client secret')).toHaveValue('')
    expect(page.getByLabelText('Client secret')).toHaveAccessibleDescription(
      /Leave it empty to keep the current secret/,
    )
    expect(page.queryByText(/cannot be read/)).toBeNull()
    expect(page.getByRole('textbox', { name: 'Group rules' })).toHaveValue(`engineers = program: ${program.title}`)
    // the redirect URI shown is the one the sign-in sends to the provider
    expect(page.getByText(callbackUrl(SLUG))).toBeInTheDocument()
    expect(page.getByText(`http://portal.test/sso/${SLUG}/backchannel-logout`)).toBeInTheDocument()
    expect(page.getByText(/apply to each person at their next sign-in/)).toBeInTheDocument()

    // the short name is taken now
    const again = await post(listPage, LIST, addFields({ name: 'Acme again' }))
    expect(again.status).toBe(409)
    expect((await body<Reply>(again)).result.error).toEqual({
      slug: ['An identity provider already has this short name.'],
    })
  })

  it('saves a change with the secret left empty, keeping the secret; an unticked box is saved as off', async () => {
    const sealed = await sealedSecret()
    const saved = await post(providerPage, PAGE, editFields({ intent: 'save', name: 'Acme Corp', required: 'on' }))
    expect(saved.status).toBe(302)
    expect(saved.headers.get('Location')).toBe(PAGE)
    expect(await toastOf(saved)).toMatchObject({ type: 'success', message: 'Acme Corp saved.' })
    expect(await sealedSecret()).toBe(sealed)
    expect((await loadProvider(SLUG))?.clientSecret).toBe(SECRET)
    expect(await getProvider(people.superAdmin, SLUG)).toMatchObject({
      name: 'Acme Corp',
      required: true,
      createAccounts: true,
    })

    const page = await renderProvider()
    const form = page.getByRole('form', { name: 'Settings and group rules' })
    expect(within(form).getByRole('checkbox', { name: /^Require this provider/ })).toBeChecked()
    const posted = new Map(postedBy(form))
    expect(posted.get('clientSecret')).toBe('')
    expect(posted.get('domains')).toBe('acme.test')
    expect(posted.get('rules')).toBe(`engineers = program: ${program.title}`)

    // the required box left unticked (as the browser posts it: not at all) turns it off
    const { required: _required, ...fields } = Object.fromEntries(posted)
    const off = await post(providerPage, PAGE, { ...fields, intent: 'save' })
    expect(off.status).toBe(302)
    expect((await getProvider(people.superAdmin, SLUG)).required).toBe(false)
    expect(await sealedSecret()).toBe(sealed)

    // a refused change keeps the secret out of the answer too, and saves nothing
    const refused = await post(
      providerPage,
      PAGE,
      editFields({ intent: 'save', clientSecret: 'new-secret', domains: 'nope' }),
    )
    expect(refused.status).toBe(400)
    const { result } = await body<Reply>(refused)
    expect(result.error).toEqual({ domains: ['Email domains are names such as acme.com.'] })
    expect(JSON.stringify(result)).not.toContain('new-secret')
    expect(await sealedSecret()).toBe(sealed)
  })

  it('previews what the typed rules would change without saving them', async () => {
    // two people sign in through the provider: Alice (engineers) is given the program by the rule kept
    await signInThroughProvider('alice@acme.test')
    await signInThroughProvider('bob@acme.test')
    expect(await assignmentsOf('alice@acme.test')).toEqual([{ kind: 'program', id: program.id }])
    expect(await assignmentsOf('bob@acme.test')).toEqual([])

    const rules = `sales = course: ${course.title}`
    const previewed = await post(providerPage, PAGE, editFields({ intent: 'preview', rules }))
    expect(previewed.status).toBe(200)
    const reply = await body<Reply>(previewed)
    expect(reply.preview).toEqual([
      expect.objectContaining({ email: 'alice@acme.test', action: 'lose', kind: 'program', title: program.title }),
      expect.objectContaining({ email: 'bob@acme.test', action: 'gain', kind: 'course', title: course.title }),
    ])
    // nothing saved, nothing assigned or taken away
    expect((await getProvider(people.superAdmin, SLUG)).rules).toEqual([
      { group: 'engineers', kind: 'program', id: program.id, title: program.title },
    ])
    expect(await assignmentsOf('alice@acme.test')).toEqual([{ kind: 'program', id: program.id }])
    expect(await assignmentsOf('bob@acme.test')).toEqual([])

    // the page shows it as a table, with the typed rules kept in the form
    const page = await renderProvider(PAGE, Object.entries(editFields({ intent: 'preview', rules })))
    const table = page.getByRole('table', { name: 'Assignments the rules typed would give or take away' })
    const rows = within(table).getAllByRole('row').slice(1)
    expect(rows.map((row) => [...row.children].map((cell) => cell.textContent))).toEqual([
      ['Alicealice@acme.test', 'Loses', 'Program', program.title],
      ['Bobbob@acme.test', 'Gains', 'Course', course.title],
    ])
    expect(page.getByText(/^Nothing was saved/)).toBeInTheDocument()
    expect(page.getByRole('textbox', { name: 'Group rules' })).toHaveValue(rules)

    // the rules kept change nothing: said so
    const same = await renderProvider(PAGE, Object.entries(editFields({ intent: 'preview' })))
    expect(same.getByText('No learner would gain or lose an assignment.')).toBeInTheDocument()
    expect(same.queryByRole('table', { name: /would give or take away/ })).toBeNull()

    // a bad line is refused by its number, as when saving
    const bad = await post(
      providerPage,
      PAGE,
      editFields({ intent: 'preview', rules: `${rules}\nsales = course: Nope` }),
    )
    expect(bad.status).toBe(400)
    expect((await body<Reply>(bad)).result.error).toEqual({
      rules: ['Line 2: No course with the id or title "Nope".'],
    })
  })

  it('Save and apply saves the rules, then applies them to everyone who signed in, and says what changed', async () => {
    const applied = await post(
      providerPage,
      PAGE,
      editFields({ intent: 'apply', name: 'Acme Corp', rules: `sales = course: ${course.title}` }),
    )
    expect(applied.status).toBe(302)
    expect(applied.headers.get('Location')).toBe(PAGE)
    expect(await toastOf(applied)).toMatchObject({
      type: 'success',
      message:
        'Acme Corp saved; its rules applied: 1 assignment given to 1 learner, 1 assignment taken from 1 learner.',
    })
    expect((await getProvider(people.superAdmin, SLUG)).rules).toEqual([
      { group: 'sales', kind: 'course', id: course.id, title: course.title },
    ])
    expect(await assignmentsOf('alice@acme.test')).toEqual([])
    expect(await assignmentsOf('bob@acme.test')).toEqual([{ kind: 'course', id: course.id }])

    // applied again, nothing is left to change
    const again = await post(
      providerPage,
      PAGE,
      editFields({ intent: 'apply', rules: `sales = course: ${course.title}` }),
    )
    expect(await toastOf(again)).toMatchObject({
      message: 'Acme saved; its rules applied: no learner gained or lost an assignment.',
    })
    const list = await renderList()
    expect(
      within(list.getByRole('row', { name: /Acme/ }))
        .getAllByRole('cell')
        .at(-1),
    ).toHaveTextContent('2')
  })

  it('removes a provider after asking; its people keep their accounts and assignments', async () => {
    const asking = await renderProvider(`${PAGE}?remove=${SLUG}`)
    // without JavaScript the question is a card in the page, its form posting Remove
    const question = asking.getByRole('region', { name: 'Remove identity provider' })
    expect(question).toHaveTextContent(/keep their portal accounts and assignments/)
    const form = within(question).getByRole('button', { name: 'Remove' }).closest('form')!
    expect(postedBy(form)).toEqual([['intent', 'remove']])
    expect(within(question).getByRole('link', { name: 'Cancel' })).toHaveAttribute('href', PAGE)

    const removed = await post(providerPage, PAGE, { intent: 'remove' })
    expect(removed.status).toBe(302)
    expect(removed.headers.get('Location')).toBe(LIST)
    expect(await toastOf(removed)).toMatchObject({
      type: 'success',
      message: 'Acme removed. The people who signed in through it keep their portal accounts and assignments.',
    })
    expect(await loadProvider(SLUG)).toBeUndefined()
    expect(await sealedSecret()).toBeUndefined()
    expect(await assignmentsOf('bob@acme.test')).toEqual([{ kind: 'course', id: course.id }])
    expect((await renderList()).getByText('No identity provider yet')).toBeInTheDocument()
    // its page is gone
    const gone = await open(providerPage, PAGE)
    expect(gone.status).toBe(404)
  })

  it('sends an admin and a coach back to the dashboard, as from Backups, and changes nothing', async () => {
    for (const who of [people.admin, people.coach]) {
      for (const answer of [
        await open(listPage, LIST, who),
        await open(providerPage, PAGE, who),
        await post(listPage, LIST, addFields(), who),
        await post(providerPage, PAGE, { intent: 'remove' }, who),
      ]) {
        expect(answer.status).toBe(302)
        expect(answer.headers.get('Location')).toBe('/admin/dashboard')
        expect(await toastOf(answer)).toMatchObject({ type: 'error', message: REFUSED })
      }
    }
    expect(await loadProvider(SLUG)).toBeUndefined()
  })
})

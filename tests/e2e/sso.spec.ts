import type { Page } from '@playwright/test'
import { DEMO_PASSWORD, DEMO_PROGRAM } from '../../db/seeds/demo-content.ts'
import { startForgedProvider, type ForgedProvider, type Forgery } from '../oidc/forged-provider.ts'
import { startTestProvider, type TestProvider } from '../oidc/provider.ts'
import { expect, test } from './fixtures.ts'
import { createLearner, expectAccessible, portal, portalWithInput, whenHydrated } from './helpers.ts'

// Company sign-in in Chromium against a real OpenID Connect provider (oidc-provider, started here on loopback with
// its own login and sign-out pages): a first sign-in creates the account and assigns the program of the person's
// group, sign-out goes through the provider, a second sign-in finds the same account, an existing account is
// linked by its verified email, the provider's own sign-out ends the portal session (back-channel logout), a
// required provider hides the password field for its domain, and a provider that is down gets a clear page.
// The provider is added with the CLI, as an operator would, and removed at the end so the other files' sign-in
// page stays as it was.

const BASE = process.env.E2E_BASE_URL!
const SECRET = 'e2e-client-secret-for-acme'
const erin = {
  sub: 'erin-at-acme',
  email: 'erin@acme.test',
  email_verified: true,
  given_name: 'Erin',
  family_name: 'Engineer',
  groups: ['engineers'],
}
const grace = {
  userName: 'graceacme',
  email: 'grace@acme.test',
  password: DEMO_PASSWORD,
  firstName: 'Grace',
  lastName: 'Local',
}

let provider: TestProvider
let forged: ForgedProvider

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  provider = await startTestProvider({
    clients: [
      {
        client_id: 'portal-e2e',
        client_secret: SECRET,
        redirect_uris: [`${BASE}/sso/acme/callback`],
        post_logout_redirect_uris: [`${BASE}/`],
        backchannel_logout_uri: `${BASE}/sso/acme/backchannel-logout`,
      },
    ],
    accounts: [
      erin,
      { sub: 'grace-at-acme', email: grace.email, email_verified: true, groups: [] },
      { sub: 'ivan-at-acme', email: 'ivan@acme.test', email_verified: false },
      { sub: 'judy-elsewhere', email: 'judy@elsewhere.test', email_verified: true },
    ],
  })
  forged = await startForgedProvider({
    clientId: 'portal-e2e',
    account: { sub: 'mallory', email: 'mallory@forged.test', email_verified: true },
  })
  await portalWithInput(
    SECRET,
    ...['sso', 'add', 'acme', '--name', 'Acme', '--issuer', provider.issuer, '--client-id', 'portal-e2e'],
    ...['--client-secret-stdin', '--scopes', 'openid email profile groups', '--domain', 'acme.test'],
    ...['--create-accounts', '--map', `engineers=program:${DEMO_PROGRAM.title}`],
  )
  await portalWithInput(
    'any-secret',
    ...['sso', 'add', 'forged', '--name', 'Forged', '--issuer', forged.issuer, '--client-id', 'portal-e2e'],
    ...['--client-secret-stdin', '--domain', 'forged.test', '--create-accounts'],
  )
  await createLearner(grace, { courses: ['SQL Fundamentals'], mayExist: true })
})

test.afterAll(async () => {
  for (const slug of ['acme', 'forged']) await portal('sso', 'remove', slug, '--yes').catch(() => undefined)
  await provider?.close().catch(() => undefined)
  await forged?.close()
})

/** The provider's own login page: the login (a subject or an email) and any password. */
async function logInAtProvider(page: Page, login: string) {
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/`))
  await page.locator('input[name="login"]').fill(login)
  await page.locator('input[name="password"]').fill('anything')
  await page.locator('button[type="submit"]').click()
}

async function logOutOfPortal(page: Page) {
  await whenHydrated(page)
  await page.getByRole('button', { name: 'User menu' }).click()
  await page.getByRole('menuitem', { name: 'Logout' }).click()
}

test('an employee signs in with the company account: the account is made with the program of their group, and found again', async ({
  page,
}) => {
  await page.goto('/sign-in')
  await whenHydrated(page)
  await page.getByLabel('Username / Email').fill(erin.email)
  const offer = page.getByRole('status').filter({ hasText: 'Accounts at acme.test can sign in with Acme.' })
  await expect(offer).toBeVisible()
  await expectAccessible(page, 'the sign-in page offering a company provider')
  await offer.getByRole('link', { name: 'Sign in with Acme' }).click()
  await logInAtProvider(page, erin.sub)
  await expect(page).toHaveURL(`${BASE}/courses`)
  await expect(page.getByText('Data Modelling for Relational Databases')).toBeVisible()

  // signing out goes through the provider's own sign-out, which comes back to the landing page
  await logOutOfPortal(page)
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/session/end`))
  await page.getByRole('button', { name: /Yes, sign me out/ }).click()
  await expect(page).toHaveURL(`${BASE}/`)
  await page.goto('/courses')
  await expect(page).toHaveURL(/\/sign-in/)

  // again: the provider asks for the login again (its session ended too), and the portal finds the same account
  await page.goto('/sign-in')
  await page.getByRole('link', { name: 'Sign in with Acme' }).click()
  await logInAtProvider(page, erin.email)
  await expect(page).toHaveURL(`${BASE}/courses`)
  const events = JSON.parse(
    (await portal('users', 'sign-ins', '--provider', 'acme', '--outcome', 'success', '--json')).stdout,
  ) as { userId: string; subject: string }[]
  const erins = events.filter((e) => e.subject === erin.sub)
  expect(erins).toHaveLength(2)
  expect(erins[0].userId).toBe(erins[1].userId)
})

test('an existing account is linked by its verified email and keeps its courses', async ({ page }) => {
  await page.goto('/sign-in')
  await page.getByRole('link', { name: 'Sign in with Acme' }).click()
  await logInAtProvider(page, grace.email)
  await expect(page).toHaveURL(`${BASE}/courses`)
  await expect(page.getByText('SQL Fundamentals').first()).toBeVisible()
  const events = JSON.parse(
    (await portal('users', 'sign-ins', '--provider', 'acme', '--outcome', 'success', '--json')).stdout,
  ) as { userName: string; subject: string }[]
  expect(events.find((e) => e.subject === 'grace-at-acme')?.userName).toBe(grace.userName)
})

test("the provider's own sign-out ends the portal session (back-channel logout)", async ({ page }) => {
  await page.goto('/sign-in')
  await page.getByRole('link', { name: 'Sign in with Acme' }).click()
  await logInAtProvider(page, erin.sub)
  await expect(page).toHaveURL(`${BASE}/courses`)
  // signed out at the provider, not at the portal: the provider tells the portal's server, not the browser
  await page.goto(`${provider.issuer}/session/end?client_id=portal-e2e`)
  await page.getByRole('button', { name: /Yes, sign me out/ }).click()
  await expect(async () => {
    await page.goto(`${BASE}/courses`)
    await expect(page).toHaveURL(/\/sign-in/)
  }).toPass({ timeout: 10_000 })
})

/** The page a refused sign-in ends on: its message, and no session opened. */
async function expectRefused(page: Page, message: string | RegExp) {
  await expect(page.getByRole('heading', { name: 'Not signed in' })).toBeVisible()
  await expect(page.getByRole('alert')).toHaveText(message)
  await page.goto('/courses')
  await expect(page).toHaveURL(/\/sign-in/)
}

test('refuses, with a clear page and no session, every ID token a provider should never send and its errors', async ({
  page,
}) => {
  const untrusted =
    "Forged's answer could not be trusted, so you were not signed in. Please try again; if it keeps happening, tell an admin of the portal."
  const forgeries: [Forgery, string | RegExp][] = [
    ['wrong-key', untrusted],
    ['wrong-audience', untrusted],
    ['expired', untrusted],
    ['wrong-issuer', untrusted],
    ['wrong-nonce', untrusted],
    ['error', /^Forged did not sign you in: /],
  ]
  for (const [forgery, message] of forgeries) {
    forged.forge(forgery)
    await page.goto('/sign-in')
    await page.getByRole('link', { name: 'Sign in with Forged' }).click()
    await expectRefused(page, message)
  }
  await expectAccessible(page, 'the sign-in page after the refusals')
  const refused = JSON.parse(
    (await portal('users', 'sign-ins', '--provider', 'forged', '--outcome', 'refused', '--json')).stdout,
  ) as { reason: string }[]
  expect(refused.map((e) => e.reason).sort()).toEqual(['nonce', 'provider_error', 'token', 'token', 'token', 'token'])
  forged.forge('none')
})

test('refuses an unverified email, a domain the provider does not serve, a replayed callback and a return address elsewhere', async ({
  page,
}) => {
  await page.goto('/sso/acme')
  await logInAtProvider(page, 'ivan-at-acme')
  await expectRefused(page, /has not verified your email address \(ivan@acme\.test\)/)

  // a new browser session at the provider (it would otherwise sign the same person in again without asking)
  await page.context().clearCookies()
  await page.goto('/sso/acme')
  await logInAtProvider(page, 'judy-elsewhere')
  await expectRefused(page, /does not sign in accounts at elsewhere\.test/)

  // a sign-in whose callback is opened a second time: the first signs in, the replay is refused
  const callbacks: string[] = []
  page.on('request', (request) => {
    if (request.url().startsWith(`${BASE}/sso/acme/callback`)) callbacks.push(request.url())
  })
  await page.context().clearCookies()
  await page.goto(`/sso/acme?redirectTo=${encodeURIComponent('https://evil.example/')}`)
  await logInAtProvider(page, grace.email)
  // the return address to another site is dropped: the learner lands on their own page
  await expect(page).toHaveURL(`${BASE}/courses`)
  await page.context().clearCookies({ name: '__portal_session' })
  await page.goto(callbacks[0])
  await expect(page.getByRole('alert')).toHaveText(/expired or was already used/)
})

test('a required provider hides the password field for its domain, and refuses the password without JavaScript', async ({
  page,
  browser,
}) => {
  await portal('sso', 'update', 'acme', '--required')
  try {
    await page.goto('/sign-in')
    await whenHydrated(page)
    await page.getByLabel('Username / Email').fill(grace.email)
    await expect(
      page.getByText('Accounts at acme.test sign in with Acme; their passwords are kept there.'),
    ).toBeVisible()
    await expect(page.getByLabel('Password', { exact: true })).toHaveCount(0)
    await expect(page.getByRole('button', { name: 'Sign In' })).toHaveCount(0)
    await expectAccessible(page, 'the sign-in page of a required provider')
    // another domain keeps its password
    await page.getByLabel('Username / Email').fill('learner1@example.com')
    await expect(page.getByLabel('Password', { exact: true })).toBeVisible()

    const noScript = await browser.newContext({ javaScriptEnabled: false, baseURL: BASE })
    const plain = await noScript.newPage()
    await plain.goto('/sign-in')
    await plain.getByLabel('Username / Email').fill(grace.email)
    await plain.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD)
    await plain.getByRole('button', { name: 'Sign In' }).click()
    await expect(
      plain.getByText('Accounts at acme.test sign in with Acme: use the "Sign in with Acme" button.'),
    ).toBeVisible()
    await expect(plain).toHaveURL(/\/sign-in/)
    await noScript.close()
  } finally {
    await portal('sso', 'update', 'acme', '--no-required')
  }
})

test('a provider that is down gets a clear page within seconds', async ({ page }) => {
  await provider.close()
  await page.goto('/sign-in')
  await page.getByRole('link', { name: 'Sign in with Acme' }).click()
  await expect(page.getByRole('alert')).toHaveText(
    'Acme sign-in is not answering; try again or use your password where allowed.',
  )
  await expect(page.getByRole('link', { name: 'Try Acme again' })).toBeVisible()
  await expectAccessible(page, 'the page of a provider that is not answering')
  await page.getByRole('link', { name: 'Back to sign in' }).click()
  await expect(page).toHaveURL(/\/sign-in/)
})

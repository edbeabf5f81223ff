import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Page } from '@playwright/test'
import { scheduleAddArgs } from '../cli.ts'
import { startTestProvider, type TestProvider } from '../oidc/provider.ts'
import { resetTokenIn, waitForMail } from '../outbox.ts'
import { expect, test } from './fixtures.ts'
import {
  AXE_VIEWPORTS,
  createLearner,
  expectAccessible,
  handInAssessment,
  portal,
  portalWithInput,
  startCourse,
  whenHydrated,
} from './helpers.ts'

// Every page outside the admin's content pages (those are admin-a11y.spec.ts's) passes axe (no serious
// or critical violation) on a desktop and on a phone (see AXE_VIEWPORTS): the public pages and the error page, the
// reset page a mailed link opens, the learner's pages with each tab, menu and dialog open, and the
// people, access log, assessment, export, backup, company sign-in and import pages of the admin area with their
// dialogs open. The demo data is only looked at: what a test needs to exist (an account, an assessment, a
// schedule, an import, an identity provider) it makes of its own, and the schedules and provider it removes again.

// exports.spec.ts finds its schedules by a part of their names (nightly, weekly), which these names do not hold
const SCHEDULE = 'a11y-exports'
const BACKUP_SCHEDULE = 'a11y-backups'
const folder = `${mkdtempSync(join(tmpdir(), 'portal-e2e-a11y-'))}/`
// an identity provider for company sign-in: a real one on loopback, whose discovery document the portal reads
const PROVIDER = { slug: 'a11y-co', name: 'A11y Co', clientId: 'portal-a11y', secret: 'a11y-client-secret' }
let identityProvider: TestProvider | undefined

test.beforeAll(async () => {
  await portal(...scheduleAddArgs({ name: SCHEDULE, cron: '0 2 * * *', range: 'last-month', to: folder }))
  await portal('backups', 'schedule', 'add', '--name', BACKUP_SCHEDULE, '--cron', '0 3 * * *', '--to', folder)
  identityProvider = await startTestProvider({
    clients: [
      {
        client_id: PROVIDER.clientId,
        client_secret: PROVIDER.secret,
        redirect_uris: [`${process.env.E2E_BASE_URL}/sso/${PROVIDER.slug}/callback`],
      },
    ],
    accounts: [],
  })
  await portalWithInput(
    PROVIDER.secret,
    ...['sso', 'add', PROVIDER.slug, '--name', PROVIDER.name, '--issuer', identityProvider.issuer],
    ...['--client-id', PROVIDER.clientId, '--client-secret-stdin', '--domain', 'a11y-co.test'],
    ...['--map', 'engineers=course:SQL Fundamentals'],
  )
})

test.afterAll(async () => {
  await portal('exports', 'schedule', 'remove', SCHEDULE)
  await portal('backups', 'schedule', 'remove', BACKUP_SCHEDULE)
  await portal('sso', 'remove', PROVIDER.slug, '--yes')
  await identityProvider?.close()
})

/** Opens the page, checks that it is the one asked for (by its title) and waits for it to hydrate. */
async function open(page: Page, path: string, title: string | RegExp) {
  const response = await page.goto(path)
  expect(response?.status(), path).toBeLessThan(400)
  await expect(page).toHaveTitle(typeof title === 'string' ? new RegExp(`^${title} · `) : title)
  await whenHydrated(page)
}

/** Opens each page in turn and runs axe on it as it first shows. */
async function checkPages(page: Page, pages: readonly (readonly [string, string | RegExp])[]) {
  for (const [path, title] of pages) {
    await open(page, path, title)
    await expectAccessible(page, path)
  }
}

/** An address that is no page: the 404 page, read by axe. */
async function checkNotFound(page: Page, path: string, where: string) {
  const missing = await page.goto(path)
  expect(missing?.status()).toBe(404)
  await expect(page.getByRole('heading', { name: 'Page not found', level: 1 })).toBeVisible()
  await expectAccessible(page, where)
}

/** On a phone the site header folds its links into a menu button: opens it when it is there. */
async function openMobileMenu(page: Page, where: string) {
  const button = page.getByRole('button', { name: 'Open menu' })
  if (!(await button.isVisible())) return
  await button.click()
  await expect(page.getByRole('navigation', { name: 'Mobile' })).toBeVisible()
  await expectAccessible(page, `${where}, the menu open`)
  await page.keyboard.press('Escape')
}

/**
 * Opens a dialog by its link, checks it, and closes it again, with Escape or with the dialog's own link
 * (`closeWith`, its Cancel): nothing is sent.
 */
async function checkDialog(
  page: Page,
  link: string | RegExp,
  dialog: { role?: 'dialog' | 'alertdialog'; name: string; closeWith?: string },
) {
  await page
    .getByRole('link', { name: link, exact: typeof link === 'string' })
    .first()
    .click()
  const shown = page.getByRole(dialog.role ?? 'dialog', { name: dialog.name })
  await expect(shown).toBeVisible()
  await expectAccessible(page, `the ${dialog.name} dialog`)
  if (dialog.closeWith) await shown.getByRole('link', { name: dialog.closeWith }).click()
  else await page.keyboard.press('Escape')
  await expect(page.getByRole(dialog.role ?? 'dialog')).toHaveCount(0)
}

for (const [width, viewport] of AXE_VIEWPORTS) {
  const slug = width.replace(/\W+/g, '-')

  test.describe(`every page on a ${width}`, () => {
    test.use({ viewport })
    // axe takes a few seconds a page on a busy machine, and each test looks at many
    test.describe.configure({ timeout: 120_000 })

    test('the public pages, the error page and a refused reset link, signed out', async ({ page }) => {
      await checkPages(page, [
        ['/', /\S/],
        ['/sign-in', 'Sign in'],
        ['/forgot-Password', 'Forgot Password'],
        ['/contact-Us', 'Contact Us'],
        ['/explore-courses', 'Explore Courses'],
      ] as const)
      await openMobileMenu(page, '/explore-courses')

      await page.getByRole('link', { name: 'View Course: Building ETL Pipelines' }).click()
      await expect(page.getByRole('heading', { name: 'Building ETL Pipelines', level: 1 })).toBeVisible()
      await expectAccessible(page, 'the course overview')
      await page.getByRole('link', { name: /What ETL Is and Where It Fits/ }).click()
      await expect(page.getByRole('heading', { name: 'What ETL Is and Where It Fits', level: 1 })).toBeVisible()
      await expectAccessible(page, 'a preview')

      await checkNotFound(page, '/no-such-page', 'the 404 page, signed out')

      // a link whose token is no good lands on Forgot Password with the reason
      await page.goto(`/reset-password?${new URLSearchParams({ token: 'not-a-token' })}`)
      await expect(page).toHaveURL(/\/forgot-Password$/)
      await expect(page.getByText('Token Expired, Please enter your email id to verify again.')).toBeVisible()
      await expectAccessible(page, 'Forgot Password after a refused link')

      // a partner's sign-in link that is no good
      const bridge = await page.goto('/ibridge/not-a-link')
      expect(bridge?.status()).toBe(401)
      await expect(page.getByRole('heading', { name: 'This sign-in link cannot be used', level: 1 })).toBeVisible()
      await expectAccessible(page, 'a refused bridge link')
    })

    test('the reset page a mailed link opens, in both spellings', async ({ page }) => {
      const learner = { userName: `a11y.reset.${slug}`, email: `a11y.reset.${slug}@example.com` }
      await createLearner(
        { ...learner, password: 'Before-a11y1!', firstName: 'Rhea', lastName: 'Reset' },
        { mayExist: true },
      )
      await page.goto('/forgot-Password')
      await page.getByLabel('Email').fill(learner.email)
      await page.getByRole('button', { name: 'Send reset link' }).click()
      await expect(page.getByRole('status').filter({ hasText: 'If an account matches' })).toBeVisible()
      await expectAccessible(page, 'Forgot Password, the link sent')
      const mail = await waitForMail(process.env.E2E_DATA_DIR as string, { to: learner.email, subject: /^Reset your/ })
      const token = resetTokenIn(mail)
      for (const path of [`/reset-Password/${token}`, `/reset-password?${new URLSearchParams({ token })}`]) {
        await open(page, path, 'Reset Password')
        await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible()
        await expectAccessible(page, path)
        // sent empty, the form shows its errors and keeps the link good
        await page.getByRole('button', { name: 'Set password' }).click()
        await expect(page.getByLabel('New Password')).toHaveAttribute('aria-invalid', 'true')
        await expectAccessible(page, `${path} with its errors`)
      }
    })

    test('the forms with their errors shown, and a success message', async ({ page, signInAs }) => {
      // each sent empty or wrong: the browser answers with the form's errors, and nothing is saved
      const sentEmpty = async (path: string, title: string, button: string, field: string | RegExp) => {
        await open(page, path, title)
        await page.getByRole('button', { name: button }).click()
        await expect(page.getByLabel(field).first()).toHaveAttribute('aria-invalid', 'true')
        await expectAccessible(page, `${path} with its errors`)
      }
      await sentEmpty('/contact-Us', 'Contact Us', 'Send message', 'Your name')
      await sentEmpty('/forgot-Password', 'Forgot Password', 'Send reset link', 'Email')
      await sentEmpty('/sign-in', 'Sign in', 'Sign In', 'Username / Email')
      // a wrong password: the server's answer
      await page.getByLabel('Username / Email').fill(`a11y.nobody.${slug}`)
      await page.getByLabel('Password', { exact: true }).fill('Not-the-password1!')
      await page.getByRole('button', { name: 'Sign In' }).click()
      await expect(page.getByText('Invalid Username/Email or Password.').first()).toBeVisible()
      await expectAccessible(page, 'sign in refused')

      await signInAs('learner1')
      await sentEmpty('/Passwordreset', 'Reset Password', 'Change Password', 'Current Password')
      await open(page, '/editProfile', 'Edit Profile')
      await page.getByLabel('First Name').fill('')
      await page.getByRole('button', { name: 'Save' }).click()
      await expect(page.getByLabel('First Name')).toHaveAttribute('aria-invalid', 'true')
      await expectAccessible(page, '/editProfile with its errors')

      await signInAs('admin')
      await sentEmpty('/admin/exports', 'Scheduled exports', 'Add schedule', 'Name')
      await open(page, '/admin/users', 'Users')
      await page.getByRole('link', { name: 'Create New User' }).click()
      const dialog = page.getByRole('dialog', { name: 'Create New User' })
      await dialog.getByRole('button', { name: 'Create' }).click()
      await expect(dialog.getByLabel('First Name')).toHaveAttribute('aria-invalid', 'true')
      await expectAccessible(page, 'the Create New User dialog with its errors')
      await page.keyboard.press('Escape')
      await expect(dialog).toHaveCount(0)
      // a file that is not a list of people: the server's refusal, and the file is not kept
      await open(page, '/admin/users/import', 'Import users')
      await page.getByLabel('CSV file').setInputFiles({
        name: 'notes.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('Just a note\r\n'),
      })
      await page.getByRole('button', { name: 'Upload and check' }).click()
      await expect(page.getByLabel('CSV file')).toHaveAttribute('aria-invalid', 'true')
      await expectAccessible(page, 'Import users with its errors')

      // a success message: the admin's own profile saved as it is
      await open(page, '/admin/editProfile', 'Edit Profile')
      await page.getByRole('button', { name: 'Save' }).click()
      await expect(page.getByText('Profile updated.')).toBeVisible()
      await expectAccessible(page, 'the Profile updated message')
    })

    test('the dialogs before (or without) JavaScript, drawn as cards in their pages', async ({
      browser,
      page,
      signInAs,
    }) => {
      // axe runs as the page's JavaScript, so the server's HTML is checked in a browser where the app's
      // own scripts never arrive (its style sheet does): each dialog opened by its address
      const withoutScripts = async () => {
        const context = await browser.newContext({ viewport, storageState: await page.context().storageState() })
        await context.route(/\/build\/.*\.js$/, (route) => route.abort())
        return context
      }
      const expectCard = async (plain: Page, path: string, name: string) => {
        const response = await plain.goto(path)
        expect(response?.status(), path).toBe(200)
        await expect(plain.getByRole('heading', { name, exact: true })).toBeVisible()
        await expectAccessible(plain, `${path} without JavaScript`)
      }

      await signInAs('learner1')
      await page.goto('/courses')
      await startCourse(page, 'SQL Fundamentals')
      await expect(page.getByRole('heading', { name: 'SQL Fundamentals', level: 1 })).toBeVisible()
      const course = new URL(page.url()).pathname
      const learner = await withoutScripts()
      await expectCard(await learner.newPage(), `${course}?assessment=new`, 'Upload Assessment')
      await learner.close()

      await signInAs('superadmin')
      await page.goto('/admin/adminUsers')
      const removeAdmin = await page
        .getByRole('link', { name: /^Remove / })
        .first()
        .getAttribute('href')
      const admin = await withoutScripts()
      const plain = await admin.newPage()
      for (const [path, name] of [
        ['/admin/users?new=1', 'Create New User'],
        ['/admin/coach?new=1', 'Create New Coach'],
        ['/admin/adminUsers?new=1', 'Create New Admin'],
        [removeAdmin!, 'Remove admin'],
        [`/admin/exports?remove=${SCHEDULE}`, 'Remove schedule'],
        [`/admin/backups?remove=${BACKUP_SCHEDULE}`, 'Remove schedule'],
        [`/admin/sso/${PROVIDER.slug}?remove=${PROVIDER.slug}`, 'Remove identity provider'],
      ] as const) {
        await expectCard(plain, path, name)
      }
      await admin.close()
    })

    test('the learner’s pages, each tab, menu and dialog open', async ({ page, signInAs }) => {
      await signInAs('learner1')
      await open(page, '/courses', 'My Courses')
      await expectAccessible(page, 'My Courses')
      await openMobileMenu(page, 'My Courses')
      await page.getByRole('button', { name: 'User menu' }).click()
      await expect(page.getByRole('menuitem', { name: 'Edit Profile' })).toBeVisible()
      await expectAccessible(page, 'the open user menu')
      await page.keyboard.press('Escape')

      await startCourse(page, 'SQL Fundamentals')
      await expect(page.getByRole('heading', { name: 'SQL Fundamentals', level: 1 })).toBeVisible()
      await whenHydrated(page)
      await expectAccessible(page, 'the course page')
      await checkDialog(page, 'Upload Assessment', { name: 'Upload Assessment' })

      await page.getByRole('link', { name: /What SQL Is and Why It Lasts/ }).click()
      await expect(page.getByRole('heading', { name: 'What SQL Is and Why It Lasts', level: 1 })).toBeVisible()
      await whenHydrated(page)
      await expectAccessible(page, 'the video page, Contents')
      for (const tab of ['Documents', 'Scenarios']) {
        await page.getByRole('tab', { name: tab }).click()
        await expect(page.getByRole('tabpanel', { name: tab })).toBeVisible()
        await expectAccessible(page, `the video page, ${tab}`)
      }

      await checkPages(page, [
        ['/explore-courses', 'Explore Courses'],
        ['/editProfile', 'Edit Profile'],
        ['/Passwordreset', 'Reset Password'],
      ] as const)
      await checkNotFound(page, '/no-such-page', 'the 404 page, signed in')
    })

    test('the people pages with their Create New dialogs, the course list, the access log, the backups and company sign-in', async ({
      page,
      signInAs,
    }) => {
      await signInAs('superadmin')
      const menu = page.locator('summary').filter({ hasText: /^Menu$/ })
      if (await menu.isVisible()) {
        await menu.click()
        await expect(
          page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Users', exact: true }),
        ).toBeVisible()
        await expectAccessible(page, 'the admin menu open')
      }
      for (const [path, title, create] of [
        ['/admin/users', 'Users', 'Create New User'],
        ['/admin/coach', 'Coaches', 'Create New Coach'],
        ['/admin/adminUsers', 'Admins', 'Create New Admin'],
      ] as const) {
        await open(page, path, title)
        await expectAccessible(page, path)
        await checkDialog(page, create, { name: create })
      }
      // the super admin's Remove asks first; Cancel leaves the admin as they are
      await checkDialog(page, /^Remove /, { role: 'alertdialog', name: 'Remove admin', closeWith: 'Cancel' })
      await open(page, '/admin/users', 'Users')
      await page.locator('a[href^="/admin/user/"]').first().click()
      await expect(page.getByRole('heading', { name: 'User Details' })).toBeVisible()
      await whenHydrated(page)
      await expectAccessible(page, 'User Details')

      await checkPages(page, [
        ['/admin/courses', 'Courses'],
        ['/admin/accesslog', 'Access Log'],
        ['/admin/reminders', 'Reminders'],
        ['/admin/sign-ins', 'Sign-ins'],
      ] as const)
      await checkNotFound(page, '/admin/no-such-page', 'the 404 page in the admin area')

      // the super admin's Backups page, and its Remove asking first
      await open(page, '/admin/backups', 'Backups')
      await expectAccessible(page, '/admin/backups')
      await checkDialog(page, `Remove ${BACKUP_SCHEDULE}`, {
        role: 'alertdialog',
        name: 'Remove schedule',
        closeWith: 'Cancel',
      })

      // Company sign-in: the list with its Add form, sent empty; a provider's page, its rules' dry run, and its
      // Remove asking first
      await open(page, '/admin/sso', 'Company sign-in')
      await expectAccessible(page, '/admin/sso')
      await page.getByRole('button', { name: 'Add provider' }).click()
      await expect(page.getByLabel('Short name')).toHaveAttribute('aria-invalid', 'true')
      await expectAccessible(page, '/admin/sso with its errors')
      await open(page, `/admin/sso/${PROVIDER.slug}`, PROVIDER.name)
      await expectAccessible(page, 'an identity provider’s page')
      await page.getByRole('button', { name: 'Preview' }).click()
      await expect(page.getByText('No learner would gain or lose an assignment.')).toBeVisible()
      await expectAccessible(page, 'the preview of a provider’s group rules')
      await checkDialog(page, `Remove ${PROVIDER.name}`, {
        role: 'alertdialog',
        name: 'Remove identity provider',
        closeWith: 'Cancel',
      })
    })

    test('the assessment list and viewer', async ({ page, signInAs, request }) => {
      const learner = { userName: `a11y.assessed.${slug}`, email: `a11y.assessed.${slug}@example.com` }
      const password = 'Hands-in-a11y1!'
      await createLearner(
        { ...learner, password, firstName: 'Astrid', lastName: 'Assessed' },
        // not a course whose learner count the dashboard's test reads from the demo
        { courses: ['Data Warehousing and Dimensional Design'], mayExist: true },
      )
      const assessment = await handInAssessment(request, {
        login: learner.userName,
        password,
        course: 'Data Warehousing and Dimensional Design',
        fileName: `a11y-${slug}.pdf`,
      })
      await signInAs('coach')
      await open(page, '/admin/assignmentDocumentList', 'User Assignment Documents')
      await expectAccessible(page, 'the assessment list')
      await open(page, `/admin/assignmentDocumentViewer/${assessment.id}`, / · Astrid Assessed · /)
      await expect(page.getByRole('heading', { name: `a11y-${slug}.pdf`, level: 2 })).toBeVisible()
      await expectAccessible(page, 'the assessment viewer')
    })

    test('the exports page with its remove dialog, the jobs page, and the import pages', async ({ page, signInAs }) => {
      await signInAs('admin')
      await open(page, '/admin/jobs', 'Background jobs')
      await expectAccessible(page, '/admin/jobs')
      await open(page, '/admin/exports', 'Scheduled exports')
      await expectAccessible(page, '/admin/exports')
      // only opened: the schedule is removed by afterAll
      await checkDialog(page, `Remove ${SCHEDULE}`, {
        role: 'alertdialog',
        name: 'Remove schedule',
        closeWith: 'Cancel',
      })

      await open(page, '/admin/users/import', 'Import users')
      await expectAccessible(page, 'Import users')
      const csv = [
        'First Name;Last Name;Email;Username;Password;Courses',
        `Ines;Imported;a11y.import.${slug}@example.com;a11y.import.${slug};;`,
      ]
      await page.getByLabel('CSV file').setInputFiles({
        name: `a11y-${slug}.csv`,
        mimeType: 'text/csv',
        buffer: Buffer.from(`${csv.join('\r\n')}\r\n`),
      })
      await page.getByRole('button', { name: 'Upload and check' }).click()
      await expect(page.getByRole('heading', { name: `Dry run of a11y-${slug}.csv` })).toBeVisible()
      await expectAccessible(page, 'Import users, dry run')
      await page.getByRole('button', { name: 'Confirm import' }).click()
      await expect(page).toHaveURL(/\/admin\/users\/import\/[0-9a-f-]{36}$/)
      await expect(page.getByRole('heading', { name: 'Import finished' })).toBeVisible()
      await whenHydrated(page)
      await expectAccessible(page, 'an import’s page')
    })
  })
}

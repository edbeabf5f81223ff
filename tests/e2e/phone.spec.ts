import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { type Browser, type Page } from '@playwright/test'
import { startTestProvider } from '../oidc/provider.ts'
import { resetTokenIn, waitForMail } from '../outbox.ts'
import { expect, test } from './fixtures.ts'
import {
  createLearner,
  expectAccessible,
  expectFitsScreen,
  handInAssessment,
  PHONES,
  portal,
  root,
  startCourse,
  whenHydrated,
} from './helpers.ts'

// Every page on a phone (360 × 740 CSS pixels, the narrowest the pages are made for; a touch screen): nothing makes the whole
// page scroll sideways; a wide table scrolls inside its own box instead, and a long word wraps. A learner
// on a phone can search their courses, and every menu, menu entry and video tab is reached by a tap, with
// or without JavaScript, by a visitor as by a learner or an admin.

// The page routes that are not opened here, and why: they draw no page of their own.
const NOT_OPENED: Record<string, string> = {
  'routes/_auth+/logout': 'signs out on POST and sends a GET to the home page; it has no page',
  'routes/admin+/_index': 'only sends /admin to the dashboard',
}
// The other routes without a page are resource routes (.ts files: /api, downloads, files, the health check).

/** Every page route: the .tsx modules under app/routes, as remix-flat-routes names them (not `__` helpers). */
function pageRoutes() {
  const dir = path.join(root, 'app', 'routes')
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.tsx') && !file.endsWith('.test.tsx'))
    .filter((file) => !path.basename(file).startsWith('__') && path.basename(file) !== '_layout.tsx')
    .map(
      (file) =>
        `routes/${file
          .replace(/\.tsx$/, '')
          .split(path.sep)
          .join('/')}`,
    )
    .sort()
}

/**
 * Where the routes whose page was checked at this width are noted, a line each; the last test of the width
 * compares them with app/routes. A file, not a variable: a worker that starts again after a failed test
 * forgets its variables. Playwright empties the output folder when a run begins.
 */
const openedFile = (width: number) => path.join(test.info().project.outputDir, `phone-${width}-routes.txt`)

/**
 * Checks that the page fits (see expectFitsScreen) once hydrated, and as its HTML alone draws it (before or
 * without JavaScript, where some widgets are plain forms and links), and notes its route.
 */
async function expectFits(page: Page, where?: string, options: { status?: number } = {}) {
  await expectFitsScreen(page, where, options)
  await whenHydrated(page)
  await expectFitsScreen(page)
  // the same address in a browser where the app's own scripts never arrive, with the same cookies
  const plain = await page
    .context()
    .browser()!
    .newContext({ viewport: page.viewportSize(), hasTouch: true, storageState: await page.context().storageState() })
  try {
    await plain.route(/\/build\/.*\.js$/, (route) => route.abort())
    await expectFitsScreen(await plain.newPage(), page.url(), options)
  } finally {
    await plain.close()
  }
  const route = await page.evaluate(
    () =>
      (
        window as unknown as { __remixRouter: { state: { matches: { route: { id: string } }[] } } }
      ).__remixRouter.state.matches.at(-1)?.route.id,
  )
  const file = openedFile(page.viewportSize()!.width)
  mkdirSync(path.dirname(file), { recursive: true })
  appendFileSync(file, `${route}\n`)
}

async function searchOnPhone(page: Page, where: string, query: string, found: string, missing: string) {
  await page.goto(where)
  const box = page.getByRole('search').getByRole('searchbox', { name: 'Search courses' })
  await expect(box).toHaveCount(1)
  await box.tap()
  await expect(box).toBeFocused()
  await box.fill(query)
  await box.press('Enter')
  await expect(page).toHaveURL(new RegExp(`${where}\\?q=${query}$`))
  await expect(page.getByRole('heading', { name: found })).toBeVisible()
  await expect(page.getByRole('heading', { name: missing })).toHaveCount(0)
}

async function searches(page: Page) {
  await searchOnPhone(page, '/courses', 'Modelling', 'Data Modelling for Relational Databases', 'SQL Fundamentals')
  await searchOnPhone(
    page,
    '/explore-courses',
    'Warehousing',
    'Data Warehousing and Dimensional Design',
    'SQL Fundamentals',
  )
}

/** The course's id, from its link in the admin's course list. */
async function adminCourseId(page: Page, title: string) {
  // searched for: other files add courses, and the list is paged
  await page.goto(`/admin/courses?q=${encodeURIComponent(title)}`)
  const href = await page.getByRole('link', { name: title, exact: true }).first().getAttribute('href')
  return /\/admin\/course\/([^/?]+)/.exec(href ?? '')?.[1] ?? ''
}

/** A context of its own for `phone`, with or without JavaScript. */
async function phoneContext(browser: Browser, phone: (typeof PHONES)[number], javaScriptEnabled: boolean) {
  return browser.newContext({ javaScriptEnabled, viewport: phone, hasTouch: true })
}

for (const phone of PHONES) {
  const px = `${phone.width} px`
  test.describe(`on a ${px} phone`, () => {
    test.use({ viewport: phone, hasTouch: true })
    // every page is opened twice, with and without the app's scripts
    test.describe.configure({ timeout: 120_000 })

    test(`the public pages fit a ${px} phone`, async ({ page }) => {
      for (const where of ['/', '/sign-in', '/forgot-Password', '/contact-Us', '/explore-courses'])
        await expectFits(page, where)
      await page.getByRole('link', { name: 'View Course: SQL Fundamentals' }).tap()
      await expect(page).toHaveURL(/\/course-view\//)
      await expectFits(page)
      // a free preview, from the course's overview
      await page
        .getByRole('link', { name: /Free preview/ })
        .first()
        .tap()
      await expect(page).toHaveURL(/\/preview\/[^/]+\/[^/]+$/)
      await expect(page.getByText(/^Free preview/)).toBeVisible()
      await expectFits(page)
      // a bridge link that cannot be used: its own page, saying so
      await expectFits(page, '/ibridge/not-a-bridge-token', { status: 401 })
      await expect(page.getByRole('link', { name: 'Sign in' })).toBeVisible()
      // checking a certificate: the form, and a code that names none (a plain 404)
      await expectFits(page, '/verify')
      await expect(page.getByRole('heading', { name: 'Check a certificate', level: 1 })).toBeVisible()
      await expectFits(page, '/verify/0000-0000-0000-0000-0000-0000-00', { status: 404 })
      // an address that is no page
      await expectFits(page, '/no-such-page/at-all', { status: 404 })
      await expect(page.getByRole('heading', { name: 'Page not found', level: 1 })).toBeVisible()
    })

    test(`the password reset pages fit a ${px} phone, with a good link and a bad one`, async ({ page }) => {
      const learner = {
        userName: `phone.${phone.width}`,
        email: `phone.${phone.width}@example.com`,
        password: 'Narrow-screen1!',
        firstName: 'Phoebe',
        lastName: 'Narrow',
      }
      await createLearner(learner, { mayExist: true })
      await page.goto('/forgot-Password')
      await page.getByLabel('Email').fill(learner.email)
      await page.getByRole('button', { name: 'Send reset link' }).tap()
      await expect(page.getByRole('status').filter({ hasText: 'If an account matches' })).toBeVisible()
      await expectFits(page)
      const mail = await waitForMail(process.env.E2E_DATA_DIR as string, { to: learner.email, subject: /^Reset your/ })
      const token = resetTokenIn(mail)
      expect(token).not.toBe('')
      // the link in both its spellings: the form to choose a password (opening it does not use it up)
      for (const link of [`/reset-Password/${token}`, `/reset-password?${new URLSearchParams({ token })}`]) {
        await expectFits(page, link)
        await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible()
      }
      // a link that is not (or no longer) good: the forgot-password page, saying so
      for (const link of ['/reset-Password/not-a-token', '/reset-password?token=not-a-token']) {
        await page.goto(link)
        await expect(page).toHaveURL(/\/forgot-Password$/)
        await expect(page.getByText('Token Expired, Please enter your email id to verify again.')).toBeVisible()
        await expectFits(page)
      }
    })

    test(`the learner pages fit a ${px} phone`, async ({ page, signInAs }) => {
      await signInAs('learner1')
      await expectFits(page, '/courses')
      await expectFits(page, '/explore-courses')
      await page.goto('/courses')
      await startCourse(page, 'SQL Fundamentals')
      await expect(page.getByRole('heading', { name: 'SQL Fundamentals', level: 1 })).toBeVisible()
      await expectFits(page)
      await page.getByRole('link', { name: /What SQL Is and Why It Lasts/ }).click()
      await expect(page.getByRole('heading', { name: 'What SQL Is and Why It Lasts', level: 1 })).toBeVisible()
      await expectFits(page)
      // the course's SQL lab, its editor mounted (and the plain textarea without JavaScript)
      await page.goto('/courses')
      await startCourse(page, 'SQL Fundamentals')
      await page.getByRole('region', { name: 'SQL Labs' }).getByRole('link').first().click()
      await expect(page).toHaveURL(/\/lab\//)
      await expect(page.locator('[data-sql-editor] .cm-content').first()).toBeVisible()
      await expectFits(page)
      await expectFits(page, '/editProfile')
      await expectFits(page, '/Passwordreset')
      await expectFits(page, '/certificates')
      await expect(page.getByRole('heading', { name: 'My Certificates', level: 1 })).toBeVisible()
    })

    // every /admin page that takes no id (app/routes/admin+), then one course, one user and one program
    const adminPages = [
      '/admin/dashboard',
      '/admin/courses',
      '/admin/programs',
      '/admin/certificates',
      '/admin/users',
      '/admin/users/import',
      '/admin/adminUsers',
      '/admin/coach',
      '/admin/accesslog',
      '/admin/assignmentDocumentList',
      '/admin/exports',
      '/admin/jobs',
      '/admin/reminders',
      '/admin/backups',
      '/admin/sign-ins',
      '/admin/sso',
      '/admin/addDocuments',
      '/admin/addScenarios',
      '/admin/newCourse',
      '/admin/newProgram',
      '/admin/newVideo',
      '/admin/editProfile',
      '/admin/passwordReset',
    ]

    test(`the admin pages fit a ${px} phone, and a wide table scrolls in its own box`, async ({ page, signInAs }) => {
      await signInAs('superadmin')
      for (const where of adminPages) await expectFits(page, where)

      await page.goto('/admin/users')
      const box = page.getByRole('region', { name: 'Users List' })
      // the table is wider than the phone, so its box scrolls, and a keyboard can reach it to scroll it
      expect(await box.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true)
      await expect(box).toHaveAttribute('tabindex', '0')
      const user = await page.locator('a[href^="/admin/user/"]').first().getAttribute('href')
      await expectFits(page, user!)
      // the question before an account is disabled (a card in the page without JavaScript)
      await expectFits(page, `${user}?disable=1`)
      await expect(page.getByRole('alertdialog', { name: 'Disable account' })).toBeVisible()

      await page.goto('/admin/programs')
      const program = await page.locator('a[href^="/admin/program/"]').first().getAttribute('href')
      for (const where of [program!, `${program}/edit`, `${program}/rearrange`]) await expectFits(page, where)

      // a certificate's Re-issue dialog (a card in the page without JavaScript); the demo's certificate is given
      // now if the job runner has not given it yet
      await portal('certificates', 'issue', '--course', 'Data Modelling for Relational Databases')
      await page.goto('/admin/certificates')
      const reissue = await page.locator('a[href*="reissue="]').first().getAttribute('href')
      await expectFits(page, reissue!)
      await expect(page.getByRole('alertdialog', { name: 'Re-issue certificate' })).toBeVisible()
    })

    test(`company sign-in fits a ${px} phone: a provider added, previewed and removed through its admin pages, and the sign-in's own pages`, async ({
      page,
      signInAs,
    }) => {
      // a real provider on loopback, whose discovery document the portal reads when the provider is added
      const slug = `phone-${phone.width}`
      const provider = await startTestProvider({
        clients: [
          {
            client_id: 'portal-phone',
            client_secret: 'phone-secret',
            redirect_uris: [`${process.env.E2E_BASE_URL}/sso/${slug}/callback`],
          },
        ],
        accounts: [],
      })
      try {
        await signInAs('superadmin')
        await expectFits(page, '/admin/sso')
        const form = page.getByRole('form', { name: 'Add a provider' })
        await form.getByLabel('Short name').fill(slug)
        await expect(page.getByText(`/sso/${slug}/callback`)).toBeVisible()
        await form.getByLabel('Display name').fill(`Phone ${phone.width}`)
        await form.getByLabel('Issuer URL').fill(provider.issuer)
        await form.getByLabel('Client ID').fill('portal-phone')
        await form.getByLabel('Client secret').fill('phone-secret')
        await form.getByLabel('Email domains').fill(`${slug}.test`)
        await form.getByLabel('Group rules').fill('engineers = course: SQL Fundamentals')
        await form.getByRole('button', { name: 'Add provider' }).tap()
        await expect(page).toHaveURL(new RegExp(`/admin/sso/${slug}$`))
        await expect(page.getByRole('heading', { name: `Phone ${phone.width}`, level: 1 })).toBeVisible()
        await expectFits(page)

        // the dry run's answer, and the removal's question
        await page.getByRole('button', { name: 'Preview' }).tap()
        await expect(page.getByText('No learner would gain or lose an assignment.')).toBeVisible()
        await expectFitsScreen(page)

        // the sign-in's own pages: a return from the provider that is not this browser's sign-in, and a provider
        // that does not answer
        await expectFits(page, `/sso/${slug}/callback?code=planted&state=planted`, { status: 400 })
        await expect(page.getByRole('link', { name: 'Back to sign in' })).toBeVisible()
        await provider.close()
        await expectFits(page, `/sso/${slug}`, { status: 503 })
        await expect(page.getByText(`Phone ${phone.width} sign-in is not answering`)).toBeVisible()

        await page.goto(`/admin/sso/${slug}`)
        await whenHydrated(page)
        await page.getByRole('link', { name: `Remove Phone ${phone.width}` }).tap()
        const question = page.getByRole('alertdialog', { name: 'Remove identity provider' })
        await expect(question).toBeVisible()
        await expectFitsScreen(page)
        await question.getByRole('button', { name: 'Remove' }).tap()
        await expect(page).toHaveURL(/\/admin\/sso$/)
        await expect(page.getByRole('link', { name: `Phone ${phone.width}` })).toHaveCount(0)
      } finally {
        await portal('sso', 'remove', slug, '--yes').catch(() => undefined)
        await provider.close().catch(() => undefined)
      }
    })

    test(`a course's tabs and rearranging pages fit a ${px} phone`, async ({ page, signInAs }) => {
      await signInAs('admin')
      const course = await adminCourseId(page, 'SQL Fundamentals')
      await expectFits(page, `/admin/course/${course}`)
      for (const [tab, entry] of [
        ['Documents', 'SQL Joins Cheat Sheet.pdf'],
        ['Scenarios', 'Add Scenarios'],
        ['Labs', 'Add Lab'],
      ]) {
        await page.getByRole('navigation', { name: 'Course contents' }).getByRole('link', { name: tab }).tap()
        await expect(page).toHaveURL(new RegExp(`\\?tab=${tab.toLowerCase()}$`))
        await expect(page.getByRole('region', { name: tab }).getByText(entry)).toBeVisible()
        await expectFits(page)
      }
      await expectFits(page, `/admin/rearrangeCourse/${course}`)
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
      for (const type of ['document', 'scenarios']) {
        await expectFits(page, `/admin/RearrangeDocs/${course}?type=${type}`)
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
      }
      await expectFits(page, `/admin/rearrangeLabs/${course}`)
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
      // the demo lab's results, with a learner's attempts open when the seed left any
      await page.goto(`/admin/course/${course}?tab=labs`)
      const lab = await page
        .getByRole('region', { name: 'Labs' })
        .getByRole('link', { name: 'SQL Fundamentals', exact: true })
        .getAttribute('href')
      await expectFits(page, lab!)
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
      const learner = page.getByRole('link', { name: /^Show the attempts of / }).first()
      if ((await learner.count()) > 0) {
        await learner.tap()
        await expect(page.getByRole('heading', { level: 2, name: /^Attempts of / })).toBeVisible()
        await expectFits(page)
      }
    })

    test(`a course's dialogs fit a ${px} phone, as dialogs and as the panels they are without JavaScript`, async ({
      page,
      signInAs,
    }) => {
      await signInAs('admin')
      const course = await adminCourseId(page, 'SQL Fundamentals')
      for (const [tab, link] of [
        ['videos', 'Edit Course Details'],
        ['videos', 'Certificate settings'],
        ['videos', /^Edit What SQL Is and Why It Lasts$/],
        ['videos', /^Delete What SQL Is and Why It Lasts$/],
        ['documents', 'SQL Joins Cheat Sheet.pdf'],
        ['documents', 'Edit SQL Joins Cheat Sheet.pdf'],
      ] as const) {
        await page.goto(`/admin/course/${course}?tab=${tab}`)
        await whenHydrated(page)
        await page.getByRole('main').getByRole('link', { name: link, exact: true }).tap()
        await expect(page.getByRole('dialog').or(page.getByRole('alertdialog')), String(link)).toBeVisible()
        await expectFits(page)
      }
    })

    test(`an assessment and an import's own page fit a ${px} phone, long file names and all`, async ({
      page,
      request,
      signInAs,
    }) => {
      // names with no space to break at
      const long = `phone-${phone.width}-${Date.now().toString(36)}-a-rather-long-file-name-without-any-spaces`
      const assessment = await handInAssessment(request, {
        login: 'learner1',
        course: 'SQL Fundamentals',
        fileName: `${long}.pdf`,
      })
      await signInAs('admin')
      await expectFits(page, `/admin/assignmentDocumentViewer/${assessment.id}`)
      await expect(page.getByRole('heading', { level: 2, name: `${long}.pdf` })).toBeVisible()

      await page.goto('/admin/users/import')
      await page.getByLabel('CSV file').setInputFiles({
        name: `${long}.csv`,
        mimeType: 'text/csv',
        buffer: Buffer.from(
          [
            'First Name;Last Name;Email;Username;Password;Courses',
            `Narrow;Phone;narrow.${phone.width}@example.com;narrow.${phone.width};;SQL Fundamentals`,
          ].join('\r\n'),
        ),
      })
      await page.getByRole('button', { name: 'Upload and check' }).tap()
      await expect(page.getByRole('heading', { name: `Dry run of ${long}.csv` })).toBeVisible()
      await expectFits(page)
      await page.getByRole('button', { name: 'Confirm import' }).tap()
      await expect(page).toHaveURL(/\/admin\/users\/import\/[0-9a-f-]{36}$/)
      await expect(page.getByRole('heading', { name: 'Import finished' })).toBeVisible()
      await expect(page.locator('[data-count="Created"]')).toHaveText('1')
      await expectFits(page)
    })

    test(`a learner on a ${px} phone searches My Courses and Explore Courses`, async ({ page, signInAs }) => {
      await signInAs('learner1')
      await searches(page)
    })

    test(`the course search works on a ${px} phone without JavaScript`, async ({ browser, signInAs }) => {
      const context = await phoneContext(browser, phone, false)
      const page = await context.newPage()
      await signInAs('learner1', { page })
      await searches(page)
      await context.close()
    })

    for (const javaScriptEnabled of [true, false]) {
      const js = javaScriptEnabled ? 'with' : 'without'

      test(`a visitor on a ${px} phone ${js} JavaScript reaches Courses, Contact Us and Sign in by tap`, async ({
        browser,
      }) => {
        const context = await phoneContext(browser, phone, javaScriptEnabled)
        const page = await context.newPage()
        const menu = async () => {
          if (javaScriptEnabled) {
            await whenHydrated(page)
            await page.getByRole('button', { name: 'Open menu' }).tap()
          } else {
            await page
              .locator('summary')
              .filter({ hasText: /^Menu$/ })
              .tap()
          }
          return page.getByRole('navigation', { name: 'Mobile' })
        }
        await page.goto('/')
        for (const [entry, heading] of [
          ['Courses', 'Explore Courses'],
          ['Contact Us', 'Contact Us'],
        ]) {
          await (await menu()).getByRole('link', { name: entry, exact: true }).tap()
          await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible()
        }
        // the home page's way to the catalogue, and the header's sign-in
        await page.goto('/')
        await page.getByRole('link', { name: 'Explore the catalogue' }).tap()
        await expect(page.getByRole('heading', { name: 'Explore Courses', level: 1 })).toBeVisible()
        await page.getByRole('banner').getByRole('link', { name: 'Login' }).tap()
        await expect(page.getByRole('heading', { name: 'Sign in', level: 1 })).toBeVisible()
        await context.close()
      })

      test(`on a ${px} phone ${js} JavaScript, every menu entry and video tab is a tap away`, async ({
        browser,
        signInAs,
      }) => {
        const context = await phoneContext(browser, phone, javaScriptEnabled)
        const page = await context.newPage()
        const ready = async () => {
          if (javaScriptEnabled) await whenHydrated(page)
        }
        // with JavaScript a menu button and a menu; before it (or without it) a <details> of plain links
        const opener = (name: 'Menu' | 'User menu') =>
          javaScriptEnabled
            ? page.getByRole('button', { name: name === 'Menu' ? 'Open menu' : name })
            : page.locator('summary').filter({ hasText: new RegExp(`${name}$`) })
        const userEntry = (name: string) =>
          page.getByRole(javaScriptEnabled ? 'menuitem' : 'link', { name, exact: true })

        await signInAs('learner1', { page })
        for (const [entry, heading] of [
          ['Explore Courses', 'Explore Courses'],
          ['Contact Us', 'Contact Us'],
          ['My Courses', 'My Courses'],
        ]) {
          await ready()
          await opener('Menu').tap()
          await page.getByRole('navigation', { name: 'Mobile' }).getByRole('link', { name: entry }).tap()
          await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible()
        }
        for (const [entry, heading] of [
          ['Edit Profile', 'Edit Profile'],
          ['Reset Password', 'Reset Password'],
        ]) {
          await ready()
          await opener('User menu').tap()
          await expect(userEntry(entry)).toBeVisible()
          if (entry === 'Edit Profile' && javaScriptEnabled) await expectAccessible(page, 'the open user menu')
          await userEntry(entry).tap()
          await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible()
        }

        // the video page's side panel: tabs with JavaScript, links to ?tab= without
        await page.goto('/courses')
        await startCourse(page, 'SQL Fundamentals')
        await page.getByRole('link', { name: /What SQL Is and Why It Lasts/ }).tap()
        await expect(page.getByRole('heading', { name: 'What SQL Is and Why It Lasts', level: 1 })).toBeVisible()
        await ready()
        const tab = (name: string) =>
          javaScriptEnabled
            ? page.getByRole('tab', { name })
            : page.getByRole('navigation', { name: 'Course material' }).getByRole('link', { name })
        const panel = (name: string) => page.getByRole(javaScriptEnabled ? 'tabpanel' : 'region', { name })
        await tab('Documents').tap()
        await expect(page).toHaveURL(/\?tab=documents$/)
        await expect(panel('Documents')).toContainText('SQL Joins Cheat Sheet.pdf')
        if (javaScriptEnabled) await expectAccessible(page, 'the video page’s Documents')
        const videoPage = new URL(page.url()).pathname
        await tab('Scenarios').tap()
        await expect(page).toHaveURL(/\?tab=scenarios$/)
        await expect(panel('Scenarios')).toBeVisible()
        await expect(panel('Documents')).toHaveCount(0)
        await tab('Contents').tap()
        await expect(page).not.toHaveURL(/tab=/)
        await expect(panel('Contents').getByRole('link', { name: /What SQL Is and Why It Lasts/ })).toBeVisible()

        // the admin side: its menu and the same user menu
        await signInAs('admin', { page })
        await ready()
        await page
          .locator('summary')
          .filter({ hasText: /^Menu$/ })
          .tap()
        await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Access Log' }).tap()
        await expect(page.getByRole('heading', { name: 'Access Log', level: 1 })).toBeVisible()
        await ready()
        await opener('User menu').tap()
        await userEntry('Reset Password').tap()
        await expect(page).toHaveURL(/\/admin\/passwordReset$/)

        if (!javaScriptEnabled) {
          // axe runs as the page's JavaScript, so the plain HTML is checked in a browser where the app's own
          // scripts never arrive: the markup a page shows before (or without) hydration, menus open
          const plain = await browser.newContext({ viewport: phone, storageState: await context.storageState() })
          await plain.route(/\/build\//, (route) => route.abort())
          const before = await plain.newPage()
          const summary = (text: RegExp) => before.locator('summary').filter({ hasText: text })
          await before.goto(`${videoPage}?tab=documents`)
          await expect(before.getByRole('region', { name: 'Documents' })).toBeVisible()
          await summary(/^Menu$/).click()
          await summary(/User menu$/).click()
          await expectAccessible(before, 'the video page, its menus open, without JavaScript')
          await before.goto('/admin/accesslog')
          await expect(before.getByRole('group', { name: 'Courses' }).getByRole('checkbox').first()).toBeVisible()
          await summary(/^Menu$/).click()
          await expectAccessible(before, 'the access log and the admin menu, without JavaScript')
          await plain.close()
        }
        await context.close()
      })
    }

    // last: the tests above ran in this worker, in file order, and noted each page they checked
    test(`every page route was checked on a ${px} phone`, () => {
      const opened = new Set(readFileSync(openedFile(phone.width), 'utf8').split('\n'))
      const missing = pageRoutes().filter((route) => !(route in NOT_OPENED) && !opened.has(route))
      expect(missing, 'page routes no test above opened at this width').toEqual([])
      // and the list of exceptions names routes that exist
      expect(pageRoutes()).toEqual(expect.arrayContaining(Object.keys(NOT_OPENED)))
    })
  })
}

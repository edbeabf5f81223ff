import { randomUUID } from 'node:crypto'
import { type Page } from '@playwright/test'
import { expect, test } from './fixtures.ts'
import { expectFitsScreen, PHONES, portal, startCourse, whenHydrated } from './helpers.ts'

// When a page fails, in the browser of a phone: what happened in plain words, the reason when there is one,
// a link back that works, and never a framework's stock message, an error's name or a stack trace. Real
// failures of the running app: a course or video that does not exist (404), a sign-in link refused (403),
// and the network gone during a navigation (the app's "went wrong on our side"). The e2e server has no
// supported way to fail on its side (the database is shared by every spec file): its 500 page and the 503
// outage page are tested in tests/integration (error-pages.test.ts, serve-reliability.test.ts).

/** The page as a reader sees it says nothing of the machinery, and fits the screen. */
async function expectPlainWords(page: Page) {
  const text = await page.locator('body').innerText()
  expect(text).not.toContain('An error occurred')
  expect(text).not.toContain('Unexpected Server Error')
  expect(text).not.toMatch(/\b\w*Error\b:|Failed to fetch|\bat \S+ \(|\.(js|ts|tsx):\d+/)
  await expectFitsScreen(page)
}

for (const phone of PHONES) {
  const px = `${phone.width} px`
  test.describe(`on a ${px} phone`, () => {
    test.use({ viewport: phone, hasTouch: true })

    test(`a visitor on a ${px} phone gets a 404 page for a course, a preview or an address that does not exist`, async ({
      page,
    }) => {
      for (const [where, reason] of [
        [`/course-view/${randomUUID()}`, 'Course not found.'],
        [`/preview/${randomUUID()}/${randomUUID()}`, null],
        ['/courses-of-old/sql', null],
      ] as const) {
        const response = await page.goto(where)
        expect(response?.status(), where).toBe(404)
        await expect(page.getByText('Error 404', { exact: true })).toBeVisible()
        await expect(page.getByRole('heading', { name: 'Page not found', level: 1 })).toBeVisible()
        await expect(page.getByText('The page you asked for does not exist or has moved.')).toBeVisible()
        if (reason) await expect(page.getByText(reason, { exact: true })).toBeVisible()
        await expect(page.getByRole('main').getByRole('link', { name: 'Sign in' })).toBeVisible()
        await expectPlainWords(page)
      }
      await page.getByRole('main').getByRole('link', { name: 'Go to the home page' }).tap()
      await expect(page).toHaveURL(/\/$/)
      await expect(page.getByRole('heading', { level: 1 })).toContainText('Learn the databases')
    })

    test(`a learner on a ${px} phone gets a 404 page for a video that does not exist, and goes back to My Courses`, async ({
      page,
      signInAs,
    }) => {
      await signInAs('learner1')
      await startCourse(page, 'SQL Fundamentals')
      await expect(page).toHaveURL(/\/course\/[^/]+$/)
      const response = await page.goto(`${page.url()}/${randomUUID()}`)
      expect(response?.status()).toBe(404)
      await expect(page.getByRole('heading', { name: 'Page not found', level: 1 })).toBeVisible()
      // inside the learner's own layout, with its menus
      await expect(page.getByRole('button', { name: 'User menu' })).toBeVisible()
      await expectPlainWords(page)
      await page.getByRole('main').getByRole('link', { name: 'Go to My Courses' }).tap()
      await expect(page.getByRole('heading', { name: 'My Courses', level: 1 })).toBeVisible()
    })

    test(`an admin on a ${px} phone gets a 404 page for a course that does not exist, and goes back to the dashboard`, async ({
      page,
      signInAs,
    }) => {
      await signInAs('admin')
      const response = await page.goto(`/admin/course/${randomUUID()}`)
      expect(response?.status()).toBe(404)
      await expect(page.getByRole('heading', { name: 'Page not found', level: 1 })).toBeVisible()
      await expect(page.getByText('Course not found.', { exact: true })).toBeVisible()
      // inside the admin layout, with its menu
      await expect(page.locator('summary').filter({ hasText: /^Menu$/ })).toBeVisible()
      await expectPlainWords(page)
      await page.getByRole('main').getByRole('link', { name: 'Go to the admin dashboard' }).tap()
      await expect(page).toHaveURL(/\/admin\/dashboard$/)
    })

    test(`a learner's sign-in link into the admin area is a 403 page on a ${px} phone, with a way to sign in`, async ({
      page,
    }) => {
      // a good link for the learner, as the partner system makes it, turned towards the admin area
      const { stdout } = await portal('bridge', 'link', '--user', 'learner1@example.com', '--program')
      const token = /\/ibridge\/program\/([^/\s]+)/.exec(stdout)?.[1]
      expect(token, stdout).toBeTruthy()
      const response = await page.goto(`/ibridge/admin/${token}`)
      expect(response?.status()).toBe(403)
      await expect(page.getByRole('heading', { name: 'This sign-in link cannot be used', level: 1 })).toBeVisible()
      await expect(
        page.getByText('This sign-in link opens the admin area, which your account cannot use.', { exact: true }),
      ).toBeVisible()
      await expectPlainWords(page)
      await page.getByRole('main').getByRole('link', { name: 'Sign in', exact: true }).tap()
      await expect(page).toHaveURL(/\/sign-in$/)
    })

    test(`a navigation that fails on a ${px} phone (the network gone) says so in plain words, with a way back`, async ({
      page,
      signInAs,
    }) => {
      await signInAs('learner1')
      await whenHydrated(page)
      // the course page's data never arrives: the app's own navigation fails, in the browser
      await page.route(/\/course\/[^/?]+\?_data=/, (route) => route.abort('internetdisconnected'))
      await startCourse(page, 'SQL Fundamentals')
      await expect(page.getByText('Error 500', { exact: true })).toBeVisible()
      await expect(page.getByRole('heading', { name: 'Something went wrong on our side', level: 1 })).toBeVisible()
      await expect(page.getByText(/We could not load this page\. Try again in a moment/)).toBeVisible()
      await expectPlainWords(page)
      await page.unroute(/\/course\/[^/?]+\?_data=/)
      await page.getByRole('main').getByRole('link', { name: 'Go to My Courses' }).tap()
      await expect(page.getByRole('heading', { name: 'My Courses', level: 1 })).toBeVisible()
    })
  })
}

import { type Page } from '@playwright/test'
import { expect, test } from './fixtures.ts'
import { expectAccessible, startCourse, whenHydrated } from './helpers.ts'

// Every page on a phone (390 × 844 CSS pixels, a touch screen): nothing makes the whole page scroll
// sideways; a wide table scrolls inside its own box instead. A learner on a phone can search their
// courses, and every menu, menu entry and video tab is reached by a tap, with or without JavaScript.

const phone = { width: 390, height: 844 }
test.use({ viewport: phone, hasTouch: true })

/** Opens the page and checks that it is no wider than the screen, naming what sticks out if it is. */
async function expectFits(page: Page, path?: string) {
  if (path) {
    const response = await page.goto(path)
    expect(response?.status(), path).toBeLessThan(400)
  }
  const where = new URL(page.url()).pathname
  const overflow = await page.evaluate(() => {
    const width = window.innerWidth
    // what sticks out past the screen's edge, leaving out what a scrolling or clipping box holds in
    // (an absolutely placed element escapes every box up to its nearest placed ancestor)
    const clipped = (el: Element) => {
      let loose = getComputedStyle(el).position === 'absolute'
      for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
        const style = getComputedStyle(up)
        if (loose && style.position === 'static') continue
        if (style.overflowX !== 'visible') return true
        loose = style.position === 'absolute'
      }
      return false
    }
    const wider = [...document.body.querySelectorAll('*')]
      .filter((el) => el.getBoundingClientRect().right > width + 0.5 && !clipped(el))
      .map((el) => `${el.tagName.toLowerCase()}.${String(el.getAttribute('class') ?? '').replace(/ +/g, '.')}`)
    return { scrollWidth: document.documentElement.scrollWidth, width, wider: wider.slice(0, 8) }
  })
  expect(overflow.scrollWidth, `${where} is wider than the screen: ${overflow.wider.join(' | ')}`).toBeLessThanOrEqual(
    overflow.width,
  )
}

test('the public pages fit a phone', async ({ page }) => {
  for (const path of ['/', '/sign-in', '/forgot-Password', '/contact-Us', '/explore-courses']) {
    await expectFits(page, path)
  }
  await page.getByRole('link', { name: 'View Course: SQL Fundamentals' }).click()
  await expect(page).toHaveURL(/\/course-view\//)
  await expectFits(page)
})

test('the learner pages fit a phone', async ({ page, signInAs }) => {
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
  await expectFits(page, '/editProfile')
  await expectFits(page, '/Passwordreset')
})

// every /admin page that takes no id (app/routes/admin+), then one course, one user and one program
const adminPages = [
  '/admin/dashboard',
  '/admin/courses',
  '/admin/programs',
  '/admin/users',
  '/admin/users/import',
  '/admin/adminUsers',
  '/admin/coach',
  '/admin/accesslog',
  '/admin/assignmentDocumentList',
  '/admin/exports',
  '/admin/addDocuments',
  '/admin/addScenarios',
  '/admin/newCourse',
  '/admin/newProgram',
  '/admin/newVideo',
  '/admin/editProfile',
  '/admin/passwordReset',
]

test('the admin pages fit a phone, and a wide table scrolls in its own box', async ({ page, signInAs }) => {
  await signInAs('superadmin')
  for (const path of adminPages) await expectFits(page, path)

  await page.goto('/admin/courses')
  const course = await page.locator('a[href^="/admin/course/"]').first().getAttribute('href')
  await expectFits(page, course!)

  await page.goto('/admin/users')
  const box = page.getByRole('region', { name: 'Users List' })
  // the table is wider than the phone, so its box scrolls, and a keyboard can reach it to scroll it
  expect(await box.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true)
  await expect(box).toHaveAttribute('tabindex', '0')
  const user = await page.locator('a[href^="/admin/user/"]').first().getAttribute('href')
  await expectFits(page, user!)

  await page.goto('/admin/programs')
  const program = await page.locator('a[href^="/admin/program/"]').first().getAttribute('href')
  for (const path of [program!, `${program}/edit`, `${program}/rearrange`]) await expectFits(page, path)
})

async function searchOnPhone(page: Page, path: string, query: string, found: string, missing: string) {
  await page.goto(path)
  const box = page.getByRole('search').getByRole('searchbox', { name: 'Search courses' })
  await expect(box).toHaveCount(1)
  await box.tap()
  await expect(box).toBeFocused()
  await box.fill(query)
  await box.press('Enter')
  await expect(page).toHaveURL(new RegExp(`${path}\\?q=${query}$`))
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

test('a learner on a phone searches My Courses and Explore Courses', async ({ page, signInAs }) => {
  await signInAs('learner1')
  await searches(page)
})

test('the course search works on a phone without JavaScript', async ({ browser, signInAs }) => {
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: phone, hasTouch: true })
  const page = await context.newPage()
  await signInAs('learner1', { page })
  await searches(page)
  await context.close()
})

for (const javaScriptEnabled of [true, false]) {
  test(`on a phone ${javaScriptEnabled ? 'with' : 'without'} JavaScript, every menu entry and video tab is a tap away`, async ({
    browser,
    signInAs,
  }) => {
    const context = await browser.newContext({ javaScriptEnabled, viewport: phone, hasTouch: true })
    const page = await context.newPage()
    const ready = async () => {
      if (javaScriptEnabled) await whenHydrated(page)
    }
    // with JavaScript a menu button and a menu; before it (or without it) a <details> of plain links
    const opener = (name: 'Menu' | 'User menu') =>
      javaScriptEnabled
        ? page.getByRole('button', { name: name === 'Menu' ? 'Open menu' : name })
        : page.locator('summary').filter({ hasText: new RegExp(`${name}$`) })
    const userEntry = (name: string) => page.getByRole(javaScriptEnabled ? 'menuitem' : 'link', { name, exact: true })

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

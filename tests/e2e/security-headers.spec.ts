import { type Page } from '@playwright/test'
import { expect, test } from './fixtures.ts'
import { createLearner, playFromVideoHost, signIn, startCourse, whenHydrated } from './helpers.ts'

// The pages under their Content-Security-Policy in Chromium (ADR 028): they work, the player loads
// from the video host, the app's own viewer frames a stored PDF, the dashboard draws its chart, and
// nothing of the app is refused; a script that did not come from the app is.

const COURSE = 'Data Warehousing and Dimensional Design'
const VIDEO = 'What a Data Warehouse Is For'
const DOCUMENT = 'Star Schema Design Guide'
const LEARNER = { userName: 'policy.learner', email: 'policy@example.com', password: 'Policy-1st!' }
let courseId = ''

/** What the browser reports against the page's policies: its console lines and the page's violation events. */
async function watchPolicy(page: Page) {
  const reports: string[] = []
  page.on('console', (message) => {
    const text = message.text()
    if (/Content Security Policy|X-Frame-Options|policy-violation/i.test(text)) reports.push(text)
  })
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (event) =>
      console.warn(`policy-violation: ${event.violatedDirective} ${event.blockedURI} on ${location.pathname}`),
    ),
  )
  return reports
}

test.describe('the security headers', () => {
  test.beforeAll(async ({ request }) => {
    await createLearner({ ...LEARNER, firstName: 'Paula', lastName: 'Policy' }, { courses: [COURSE], mayExist: true })
    // the course's first video plays from the stand-in host
    courseId = await playFromVideoHost(
      request,
      { course: COURSE, video: VIDEO },
      { path: '/embed/warehouse-intro?d=30', duration: 30, preview: true },
    )
  })

  test('the pages work under their policy and nothing of the app is refused', async ({ page, context, signInAs }) => {
    test.setTimeout(90_000)
    const reports = await watchPolicy(page)

    const signInPage = await page.goto('/sign-in')
    const policy = (await signInPage?.allHeaders())?.['content-security-policy'] ?? ''
    expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/)
    expect(policy).toContain(`frame-src 'self' https://www.youtube-nocookie.com https://player.vimeo.com`)
    expect(policy).toContain(process.env.E2E_VIDEO_HOST!)

    // the learner: sign in, My Courses, the course, the video with its player from the video host
    await signIn(page, LEARNER.userName, LEARNER.password)
    await expect(page).toHaveURL(/\/courses$/)
    await whenHydrated(page)
    await expect(page.getByTestId('course-card').filter({ hasText: COURSE })).toBeVisible()
    await startCourse(page, COURSE)
    await expect(page.getByRole('heading', { name: COURSE, level: 1 })).toBeVisible()
    await page.getByRole('link', { name: new RegExp(`^\\d+\\. ${VIDEO}`) }).click()
    await expect(page.getByRole('heading', { name: VIDEO, level: 1 })).toBeVisible()
    const player = page.frameLocator(`iframe[title="${VIDEO}"]`)
    await expect(player.getByText('Stand-in video')).toBeVisible()
    // the page and the player talk: the page's heartbeat carries the position the player reports
    const heartbeat = page.waitForResponse(
      (r) => r.url().endsWith('/api/category/videoProgress') && r.request().method() === 'POST',
    )
    await player.getByRole('button', { name: 'Play' }).click()
    await expect
      .poll(async () => Number(await player.getByTestId('current-time').textContent()), { timeout: 10_000 })
      .toBeGreaterThan(1)
    await player.getByRole('button', { name: 'Pause' }).click()
    expect((await heartbeat).status()).toBe(200)

    // the admin side: the dashboard's chart, a list page, a stored PDF in the document viewer
    await context.clearCookies()
    await signInAs('admin')
    await expect(page).toHaveURL(/\/admin\/dashboard$/)
    await expect(page.getByTestId('views-chart')).toHaveAttribute('data-drawn', 'true')
    await page.goto('/admin/users')
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
    await whenHydrated(page)
    await page.goto(`/admin/course/${courseId}?tab=documents`)
    await whenHydrated(page)
    await page.getByTestId('admin-document').filter({ hasText: DOCUMENT }).getByRole('link').first().click()
    const viewer = page.locator('iframe[src^="/files/"]')
    await expect(viewer).toBeVisible()
    // a frame the browser refused shows its error page instead of the file
    await expect
      .poll(() =>
        page
          .frames()
          .map((frame) => frame.url())
          .filter((url) => url.includes('/files/') || url.startsWith('chrome-error:')),
      )
      .toEqual([expect.stringContaining('/files/')])

    expect(reports).toEqual([])
  })

  test('a script that did not come from the app does not run', async ({ page }) => {
    const reports = await watchPolicy(page)
    await page.goto('/sign-in')
    await whenHydrated(page)

    // what an injection would add: a script element, and an event handler in HTML
    const ran = await page.evaluate(async () => {
      const script = document.createElement('script')
      script.textContent = 'window.injectedScriptRan = true'
      document.body.append(script)
      const holder = document.createElement('div')
      holder.innerHTML = '<img src="data:," onerror="window.injectedHandlerRan = true" alt="">'
      // listeners added here run after the attribute's handler would have
      await new Promise((resolve) => holder.querySelector('img')!.addEventListener('error', resolve))
      document.body.append(holder)
      return { script: 'injectedScriptRan' in window, handler: 'injectedHandlerRan' in window }
    })
    expect(ran).toEqual({ script: false, handler: false })
    await expect
      .poll(() => reports.filter((line) => line.startsWith('policy-violation')).map((line) => line.split(' ')[1]))
      .toEqual(expect.arrayContaining(['script-src-elem', 'script-src-attr']))

    // the app's own scripts still run: the form signs in
    await page.getByLabel('Username / Email').fill(LEARNER.userName)
    await page.getByLabel('Password', { exact: true }).fill(LEARNER.password)
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page).toHaveURL(/\/courses$/)
  })
})

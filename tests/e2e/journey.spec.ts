import { pdfBytes } from '../fixtures/files.ts'
import { expect, test } from './fixtures.ts'
import { createLearner, expectAccessible, playFromVideoHost, signIn } from './helpers.ts'

// A learner's journey on the seeded catalogue, in Chromium: explore, previews, sign in, a
// locked video, real watching through the stand-in video host, resume, an assessment, the profile,
// a new password. Every page is checked with axe on the way.

const COURSE = 'Building ETL Pipelines'
const PREREQUISITE = 'Extracting Data: Full and Incremental Loads'
const LOCKED = 'Transforming: Cleaning and Conforming Data'
const LEARNER = { userName: 'journey.learner', email: 'journey@example.com', password: 'Journey-1st!' }
const NEW_PASSWORD = 'Journey-2nd?'

test.describe('the learner journey', () => {
  test.beforeAll(async ({ request }) => {
    await createLearner({ ...LEARNER, firstName: 'Joanna', lastName: 'Journey' }, { courses: [COURSE] })
    // the prerequisite plays from the stand-in host, 20 s long at 2×
    await playFromVideoHost(
      request,
      { course: COURSE, video: PREREQUISITE },
      { path: '/embed/etl-extract?d=20&speed=2', duration: 20, preview: false },
    )
  })

  test('a learner explores, watches for real, resumes, hands in an assessment and changes the password', async ({
    page,
  }) => {
    test.setTimeout(150_000)

    // explore as a visitor: one preview refused, one allowed
    await page.goto('/')
    await expectAccessible(page, 'the landing page')
    await page.getByRole('link', { name: 'Courses' }).first().click()
    await expect(page.getByRole('heading', { name: 'Explore Courses' })).toBeVisible()
    await expectAccessible(page, 'Explore Courses')
    await page.getByRole('link', { name: `View Course: ${COURSE}` }).click()
    await expect(page.getByRole('heading', { name: COURSE, level: 1 })).toBeVisible()
    await expectAccessible(page, 'the course overview')
    await page.getByRole('link', { name: new RegExp(PREREQUISITE) }).click()
    await expect(page.getByText('Video is not available for preview!!!')).toBeVisible()
    await expect(page).toHaveURL(/\/course-view\//)
    await page.getByRole('link', { name: /What ETL Is and Where It Fits/ }).click()
    await expect(page.getByRole('heading', { name: 'What ETL Is and Where It Fits' })).toBeVisible()
    await expect(page.getByText('Free preview', { exact: false }).first()).toBeVisible()
    await expectAccessible(page, 'a preview')

    // sign in and find the course
    await page.getByRole('link', { name: 'Login' }).click()
    await expectAccessible(page, 'sign in')
    await signIn(page, LEARNER.userName, LEARNER.password)
    await expect(page).toHaveURL(/\/courses$/)
    await expectAccessible(page, 'My Courses')
    const card = page.getByTestId('course-card').filter({ hasText: COURSE })
    await expect(card.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '0')
    await card.getByRole('link', { name: 'Start Course' }).click()
    await expect(page.getByRole('heading', { name: COURSE, level: 1 })).toBeVisible()
    await expectAccessible(page, 'the course page')

    // the locked video answers with the lock toast
    await page.getByRole('link', { name: new RegExp(`^\\d+\\. ${LOCKED}`) }).click()
    await expect(page.getByText(`You have to finish ${PREREQUISITE} videos to unlock this video`)).toBeVisible()

    // watch part of the prerequisite, pause, and come back to it
    await page.getByRole('link', { name: new RegExp(`^\\d+\\. ${PREREQUISITE}`) }).click()
    await expect(page.getByRole('heading', { name: PREREQUISITE, level: 1 })).toBeVisible()
    await expectAccessible(page, 'the video page')
    const player = page.frameLocator(`iframe[title="${PREREQUISITE}"]`)
    const heartbeat = () =>
      page.waitForResponse((r) => r.url().endsWith('/api/category/videoProgress') && r.request().method() === 'POST')
    await player.getByRole('button', { name: 'Play' }).click()
    await expect
      .poll(async () => Number(await player.getByTestId('current-time').textContent()), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(8)
    const paused = heartbeat()
    await player.getByRole('button', { name: 'Pause' }).click()
    const pausedAnswer = (await (await paused).json()) as { lastPosition: number; completed: boolean }
    expect(pausedAnswer.completed).toBe(false)
    expect(pausedAnswer.lastPosition).toBeGreaterThanOrEqual(8)

    // reload: the player resumes where the learner stopped
    await page.reload()
    await player.getByRole('button', { name: 'Play' }).click()
    await expect
      .poll(async () => Number(await player.getByTestId('current-time').textContent()), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(pausedAnswer.lastPosition)

    // play to the end: the video completes, its check turns green and the next video unlocks
    await expect(player.getByTestId('state')).toHaveText(/ended/, { timeout: 20_000 })
    const entry = (title: string) =>
      page.getByRole('tabpanel').getByRole('link', { name: new RegExp(`^\\d+\\. ${title}`) })
    await expect(entry(PREREQUISITE).getByRole('img', { name: 'Completed' })).toBeVisible({
      timeout: 15_000,
    })
    await entry(LOCKED).click()
    await expect(page.getByRole('heading', { name: LOCKED, level: 1 })).toBeVisible()

    // the percent has risen on My Courses
    await page.getByRole('link', { name: 'My Courses' }).first().click()
    const percent = Number(await card.getByRole('progressbar').getAttribute('aria-valuenow'))
    expect(percent).toBeGreaterThan(0)

    // hand in an assessment against the course's scenario
    await card.getByRole('link', { name: 'Start Course' }).click()
    await page.getByRole('link', { name: 'Upload Assessment' }).click()
    const dialog = page.getByRole('dialog', { name: 'Upload Assessment' })
    await expect(dialog).toBeVisible()
    await expectAccessible(page, 'the assessment dialog')
    // nothing chosen: the action's answer puts each message beside its field
    await dialog.getByRole('button', { name: 'Submit' }).click()
    await expect(dialog.getByText('Please Upload a document')).toBeVisible()
    await expect(dialog.getByText('Please choose a scenario')).toBeVisible()
    await expect(dialog.getByLabel('Scenario')).toHaveAttribute('aria-invalid', 'true')
    await dialog
      .getByLabel('Your document')
      .setInputFiles({ name: 'my-load-plan.pdf', mimeType: 'application/pdf', buffer: await pdfBytes('Load plan') })
    await expect(dialog.getByText('Uploaded: my-load-plan.pdf')).toBeVisible()
    await dialog.getByLabel('Scenario').selectOption({ label: 'Scenario - Incremental Order Load.pdf' })
    await dialog.getByRole('button', { name: 'Submit' }).click()
    await expect(page.getByText('Assessment submitted.')).toBeVisible()
    await expect(dialog).toBeHidden()
    await expect(page.getByRole('list', { name: 'My assessments' })).toContainText('my-load-plan.pdf')

    // edit the profile
    await page.getByRole('button', { name: 'User menu' }).click()
    await page.getByRole('menuitem', { name: 'Edit Profile' }).click()
    await expect(page.getByRole('heading', { name: 'Edit Profile' })).toBeVisible()
    await expect(page.getByLabel('Email')).toBeDisabled()
    await expectAccessible(page, 'Edit Profile')
    await page.getByLabel('Last Name').fill('Journeyman')
    await page.getByRole('button', { name: 'Save' }).click()
    await expect(page.getByText('Profile updated.')).toBeVisible()

    // change the password: signed out, then in again with the new one
    await page.getByRole('button', { name: 'User menu' }).click()
    await page.getByRole('menuitem', { name: 'Reset Password' }).click()
    await expectAccessible(page, 'Reset Password')
    await page.getByLabel('Current Password').fill(LEARNER.password)
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD)
    await page.getByLabel('Confirm Password').fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Change Password' }).click()
    await expect(page).toHaveURL(/\/sign-in$/)
    await expect(page.getByText('Password changed. Please sign in with your new password.')).toBeVisible()
    await page.getByLabel('Username / Email').fill(LEARNER.email)
    await page.getByLabel('Password', { exact: true }).fill(LEARNER.password)
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page.getByText('Invalid Username/Email or Password.').first()).toBeVisible()
    await signIn(page, LEARNER.email, NEW_PASSWORD)
    await expect(page).toHaveURL(/\/courses$/)
  })
})

test('Contact Us is reachable from the mobile menu and sends a message', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 800 })
  await page.goto('/explore-courses')
  await page.getByRole('button', { name: 'Open menu' }).click()
  await page.getByRole('navigation', { name: 'Mobile' }).getByRole('link', { name: 'Contact Us' }).click()
  await expect(page.getByRole('heading', { name: 'Contact Us' })).toBeVisible()
  await expectAccessible(page, 'Contact Us')
  await page.getByLabel('Your name').fill('Visiting Vera')
  await page.getByLabel('Your email').fill('vera@example.com')
  await page.getByLabel('Subject').fill('Team training')
  await page.getByLabel('Message').fill('Do you offer training for a team of twelve?')
  await page.getByRole('button', { name: 'Send message' }).click()
  await expect(page.getByText('Thank you, your message is on its way.', { exact: false })).toBeVisible()
})

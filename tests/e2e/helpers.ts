import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { expect, type APIRequestContext, type Locator, type Page } from '@playwright/test'
import axe from 'axe-core'
import { DEMO_PASSWORD } from '../../db/seeds/demo-content.ts'
import { usersCreateArgs } from '../cli.ts'
import { pdfBytes, pngBytes } from '../fixtures/files.ts'

export const root = path.resolve(import.meta.dirname, '..', '..')

/** Sign in through the real form, where signing in is what is tested; the others use fixtures.ts's signInAs. */
export async function signIn(page: Page, login: string, password: string, from = '/sign-in') {
  await page.goto(from)
  await page.getByLabel('Username / Email').fill(login)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign In' }).click()
  await expect(page).not.toHaveURL(/\/sign-in/i)
}

/** Run the real CLI against the running app's DATA_DIR, as an operator would. */
export async function portal(...args: string[]) {
  return promisify(execFile)(process.execPath, [path.join(root, 'cli', 'bin.js'), ...args], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: process.env.E2E_DATA_DIR,
      PUBLIC_URL: process.env.E2E_BASE_URL,
      EMBEDDED_PG_PORT: process.env.E2E_PG_PORT ?? '54330',
    },
  })
}

/** The CLI with `input` on its standard input (a client secret is never an argument). */
export function portalWithInput(input: string, ...args: string[]) {
  return new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [path.join(root, 'cli', 'bin.js'), ...args],
      {
        cwd: root,
        env: {
          ...process.env,
          DATA_DIR: process.env.E2E_DATA_DIR,
          PUBLIC_URL: process.env.E2E_BASE_URL,
          EMBEDDED_PG_PORT: process.env.E2E_PG_PORT ?? '54330',
        },
      },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    )
    child.stdin!.end(`${input}\n`)
  })
}

type Learner = { userName: string; email: string; password: string; firstName: string; lastName: string }

/**
 * A learner of the test file's own, made with the CLI (so the demo accounts keep their passwords
 * for the other files), with the courses given. `mayExist`: a worker that starts again after a failed test
 * makes them again, and finds them there.
 */
export async function createLearner(learner: Learner, options: { courses?: string[]; mayExist?: boolean } = {}) {
  await portal(...usersCreateArgs({ role: 'learner', ...learner })).catch((error: Error) => {
    if (!options.mayExist || !error.message.includes('already exists')) throw error
  })
  for (const course of options.courses ?? [])
    await portal('assign', 'course', '--user', learner.userName, '--course', course)
}

/** The demo admin's bearer token for the /api, for a test's setup. */
export async function adminApiHeaders(request: APIRequestContext) {
  const login = await request.post('/api/user/login', { data: { email: 'admin', password: DEMO_PASSWORD } })
  expect(login.status()).toBe(200)
  const { token } = (await login.json()) as { token: string }
  return { Authorization: `Bearer ${token}` }
}

/**
 * A course of the test file's own, made through the /api as an admin would: an image and one short video that
 * plays from the stand-in video host (`path`, e.g. `/embed/x?d=4&speed=2`, lasting d seconds); with
 * `certificateIssuer`, certificates are on from the start. Its id.
 */
export async function createShortCourse(
  request: APIRequestContext,
  course: {
    title: string
    description: string
    video: { title: string; description: string; path: string }
    certificateIssuer?: string
  },
) {
  const headers = await adminApiHeaders(request)
  const image = await request.post('/api/category/addCourseImage', {
    headers,
    multipart: {
      courseImage: { name: 'course.png', mimeType: 'image/png', buffer: pngBytes({ width: 32, height: 18 }) },
    },
  })
  expect(image.status()).toBe(200)
  const { fileInfo } = (await image.json()) as { fileInfo: { key: string } }
  const created = await request.post('/api/category/course', {
    headers,
    data: { title: course.title, description: course.description, courseImage: fileInfo.key },
  })
  expect(created.status()).toBe(200)
  const { _id: courseId } = ((await created.json()) as { course: { _id: string } }).course
  const seconds = Number(new URL(course.video.path, 'http://host').searchParams.get('d'))
  const video = await request.put(`/api/category/courseVideo/${courseId}`, {
    headers,
    data: {
      title: course.video.title,
      description: course.video.description,
      embedUrl: `${process.env.E2E_VIDEO_HOST}${course.video.path}`,
      duration: seconds,
    },
  })
  expect(video.status()).toBe(200)
  if (course.certificateIssuer !== undefined) {
    const switched = await request.put('/api/category/editCourseDetails', {
      headers,
      data: {
        courseId,
        title: course.title,
        description: course.description,
        courseImage: fileInfo.key,
        certificates: true,
        certificateIssuer: course.certificateIssuer,
      },
    })
    expect(switched.status()).toBe(200)
  }
  return courseId
}

/**
 * An assessment handed in through the /api, as the old client did: the learner (a demo account's
 * password) uploads a PDF and registers it against a visible scenario of the course. Its id, file and scenario.
 */
export async function handInAssessment(
  request: APIRequestContext,
  {
    login,
    course: title,
    fileName,
    password = DEMO_PASSWORD,
  }: { login: string; course: string; fileName: string; password?: string },
) {
  const signedIn = await request.post('/api/user/login', { data: { email: login, password } })
  expect(signedIn.status()).toBe(200)
  const { token } = (await signedIn.json()) as { token: string }
  const headers = { Authorization: `Bearer ${token}` }

  const { user } = (await (await request.get('/api/user/profile', { headers })).json()) as { user: { _id: string } }
  const assigned = (await (await request.get(`/api/category/assignedCourses/${user._id}`, { headers })).json()) as {
    message: { assignedCourses: { _id: string; title: string }[] }
  }
  const courseId = assigned.message.assignedCourses.find((c) => c.title === title)?._id
  if (!courseId) throw new Error(`${login} is not assigned ${title}`)
  const course = (await (await request.get(`/api/category/course/${courseId}`, { headers })).json()) as {
    message: { scenarios: { _id: string; visibility: boolean; document: { name: string } }[] }
  }
  const scenario = course.message.scenarios.find((s) => s.visibility)
  if (!scenario) throw new Error(`${title} has no visible scenario`)

  const uploaded = await request.post('/api/category/addCourseDocument', {
    headers,
    multipart: {
      courseDocument: { name: fileName, mimeType: 'application/pdf', buffer: await pdfBytes('My answer to the case') },
    },
  })
  expect(uploaded.status()).toBe(200)
  const { fileInfo } = (await uploaded.json()) as { fileInfo: { key: string; link: string; name: string } }

  const registered = await request.post('/api/assignmentDocuments/uploadAssignmentDocument', {
    headers,
    data: { courseId, relatedScenarioId: scenario._id, document: fileInfo },
  })
  expect(registered.status()).toBe(200)
  const { data } = (await registered.json()) as { data: { _id: string } }
  return { id: data._id, fileInfo, scenarioName: scenario.document.name }
}

/**
 * Points a seeded video at the stand-in video host (which VIDEO_HOSTS allows in tests), through the
 * admin's /api calls, keeping its title, description and prerequisites. The course's id.
 */
export async function playFromVideoHost(
  request: APIRequestContext,
  where: { course: string; video: string },
  play: { path: string; duration: number; preview: boolean },
) {
  const login = await request.post('/api/user/login', { data: { email: 'admin', password: DEMO_PASSWORD } })
  const { token } = (await login.json()) as { token: string }
  const headers = { Authorization: `Bearer ${token}` }
  const { courses } = (await (await request.get('/api/category/coursesList', { headers })).json()) as {
    courses: { _id: string; title: string }[]
  }
  const courseId = courses.find((c) => c.title === where.course)?._id
  const detail = (await (await request.get(`/api/category/course/${courseId}`, { headers })).json()) as {
    message: { videos: { _id: string; title: string; description: string; prerequisiteVideos: { _id: string }[] }[] }
  }
  const video = detail.message.videos.find((v) => v.title === where.video)
  if (!courseId || !video) throw new Error(`the seeded course ${where.course} is not as expected`)
  const edited = await request.put(`/api/category/editVideo/${video._id}`, {
    headers,
    data: {
      courseId,
      title: video.title,
      description: video.description,
      embedUrl: `${process.env.E2E_VIDEO_HOST}${play.path}`,
      duration: play.duration,
      visibility: true,
      preview: play.preview,
      prerequisiteVideos: video.prerequisiteVideos.map((p) => p._id),
    },
  })
  expect(edited.status()).toBe(200)
  return courseId
}

/** On the Choose a new password page: sets `password` and lands on the sign-in page. */
export async function chooseNewPassword(page: Page, password: string) {
  await page.getByLabel('New Password').fill(password)
  await page.getByLabel('Confirm Password').fill(password)
  await page.getByRole('button', { name: 'Set password' }).click()
  await expect(page).toHaveURL(/\/sign-in$/)
}

/** Fills the Create New User / Coach / Admin dialog's fields; the password ones only when one is given. */
export async function fillPersonForm(
  dialog: Locator,
  person: { firstName: string; lastName: string; userName: string; email: string; password?: string },
) {
  await dialog.getByLabel('First Name').fill(person.firstName)
  await dialog.getByLabel('Last Name').fill(person.lastName)
  await dialog.getByLabel('UserName').fill(person.userName)
  await dialog.getByLabel('Email').fill(person.email)
  if (person.password === undefined) return
  await dialog.getByLabel('Password', { exact: true }).fill(person.password)
  await dialog.getByLabel('Confirm Password').fill(person.password)
}

/**
 * The phones the pages are checked on, in CSS pixels: the narrowest they are made for. Below the one layout
 * breakpoint (640 px) every page is fluid, so what fits 360 px fits any wider phone; the learner's journey
 * (journey.spec.ts) is driven on a 390 px one.
 */
export const PHONES = [{ width: 360, height: 740 }] as const

/**
 * Where axe reads the pages: a desktop, and the narrowest phone the pages are made for. Every phone width
 * is under the same layout breakpoint (640 px), so a wider phone shows the same page; that no page is wider
 * than the screen is phone.spec.ts's check.
 */
export const AXE_VIEWPORTS = [
  ['desktop', { width: 1280, height: 800 }],
  ['360 px phone', PHONES[0]],
] as const

/**
 * No serious or critical accessibility violation on the page as it is now. Waits first for running
 * CSS transitions (a dialog fading in) to end, so colours are judged as shown, not half-faded.
 * A toast is shown for three seconds, less than axe may take here: it is held open under the pointer
 * (as it is for a person reading it) once it has faded in, and one already fading out is let go.
 * Frames are left out: they hold the video host's page, the stand-in, or the browser's PDF viewer.
 */
export async function expectAccessible(page: Page, where: string) {
  await page.waitForFunction(() => !document.querySelector('[data-sonner-toast]:not([data-mounted="true"])'))
  const toast = page.locator('[data-sonner-toast][data-mounted="true"]:not([data-removed="true"])').last()
  if ((await toast.count()) > 0) await toast.hover({ timeout: 2000 }).catch(() => 'gone before it was held')
  await page.waitForFunction(() => !document.querySelector('[data-sonner-toast][data-removed="true"]'))
  await page.waitForFunction(() =>
    document
      .getAnimations()
      // a spinner turns forever; only what ends is waited for
      .filter((a) => a.effect?.getTiming().iterations !== Infinity)
      .every((a) => a.playState !== 'running'),
  )
  // axe-core itself, put in the page once per document, run on the page alone. Only the violations are read:
  // axe then stops collecting every node that passed each rule.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source)
  const results = await page.evaluate(() =>
    (window as unknown as { axe: typeof axe }).axe.run({ exclude: [['iframe']] }, { resultTypes: ['violations'] }),
  )
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect(
    bad.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    `axe on ${where}`,
  ).toEqual([])
}

/** On My Courses: the Start Course button of the course with this title. */
export async function startCourse(page: Page, title: string) {
  await page.getByTestId('course-card').filter({ hasText: title }).getByRole('link', { name: 'Start Course' }).click()
}

/**
 * The dry run of a user import as its page shows it: the counts, and as many rows in the table of
 * accounts to create and in the table of failing rows (each with its header row). Both tables.
 */
export async function expectDryRun(page: Page, fileName: string, counts: { toCreate: number; failed: number }) {
  await expect(page.getByRole('heading', { name: `Dry run of ${fileName}` })).toBeVisible()
  await expect(page.locator('[data-count="To create"]')).toHaveText(String(counts.toCreate))
  await expect(page.locator('[data-count="Failed"]')).toHaveText(String(counts.failed))
  const toCreate = page.getByRole('table', { name: 'Accounts to create' })
  await expect(toCreate.getByRole('row')).toHaveCount(1 + counts.toCreate)
  const problems = page.getByRole('table', { name: /Rows that will not be imported/ })
  await expect(problems.getByRole('row')).toHaveCount(1 + counts.failed)
  return { toCreate, problems }
}

/** Waits until Remix has taken the server-rendered page over in the browser (hydration). */
export async function whenHydrated(page: Page) {
  await page.waitForFunction(() => '__remixRouter' in window)
}

/**
 * Opens the page (when a path is given, expecting `status`, else any success) and checks that it is no
 * wider than the screen, naming what sticks out if it is. A wide table may scroll inside its own box.
 */
export async function expectFitsScreen(page: Page, path?: string, { status }: { status?: number } = {}) {
  if (path) {
    const response = await page.goto(path)
    if (status) expect(response?.status(), path).toBe(status)
    else expect(response?.status(), path).toBeLessThan(400)
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
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}.${String(el.getAttribute('class') ?? '').replace(/ +/g, '.')}`
    const wider = [...document.body.querySelectorAll('*')]
      .filter((el) => el.getBoundingClientRect().right > width + 0.5 && !clipped(el))
      .map(name)
    // text that runs out of its box (a word longer than the box is wide) sticks out while the box does not
    const words = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
    const range = document.createRange()
    for (let text = words.nextNode(); text; text = words.nextNode()) {
      const box = text.parentElement
      range.selectNodeContents(text)
      const inside = box && (getComputedStyle(box).overflowX !== 'visible' || clipped(box))
      if (box && range.getBoundingClientRect().right > width + 0.5 && !inside)
        wider.push(`text "${text.textContent?.trim().slice(0, 40)}" in ${name(box)}`)
    }
    // what the screen holds in place (an open dialog, a toast) never widens the page, so it is checked on its
    // own: it scrolls not sideways, and what it draws ends at the screen's edge
    const held = [...document.body.querySelectorAll('*')].filter((el) => getComputedStyle(el).position === 'fixed')
    const fixedWider = [
      ...held.filter((el) => getComputedStyle(el).overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 0.5),
      ...held
        .flatMap((el) => [...el.querySelectorAll('*')])
        .filter((el) => el.children.length === 0 && el.getBoundingClientRect().right > width + 0.5 && !clipped(el)),
    ].map(name)
    return { scrollWidth: document.documentElement.scrollWidth, width, wider: wider.slice(0, 8), fixedWider }
  })
  expect(overflow.scrollWidth, `${where} is wider than the screen: ${overflow.wider.join(' | ')}`).toBeLessThanOrEqual(
    overflow.width,
  )
  expect(overflow.fixedWider, `${where} holds in place something wider than the screen`).toEqual([])
}

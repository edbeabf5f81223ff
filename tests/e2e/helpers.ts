import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import AxeBuilder from '@axe-core/playwright'
import { expect, type Page } from '@playwright/test'

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

/**
 * No serious or critical accessibility violation on the page as it is now. Waits first for running
 * CSS transitions (a dialog fading in) to end, so colours are judged as shown, not half-faded.
 * Frames are left out: they hold the video host's page, the stand-in, or the browser's PDF viewer.
 */
export async function expectAccessible(page: Page, where: string) {
  await page.waitForFunction(() =>
    document
      .getAnimations()
      // a spinner turns forever; only what ends is waited for
      .filter((a) => a.effect?.getTiming().iterations !== Infinity)
      .every((a) => a.playState !== 'running'),
  )
  const results = await new AxeBuilder({ page }).exclude('iframe').analyze()
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

/** Waits until Remix has taken the server-rendered page over in the browser (hydration). */
export async function whenHydrated(page: Page) {
  await page.waitForFunction(() => '__remixRouter' in window)
}

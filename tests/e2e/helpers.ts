import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { expect, type Page } from '@playwright/test'

export const root = path.resolve(import.meta.dirname, '..', '..')

/** Sign in through the real form; only the sign-in tests need to drive it, the others reuse this. */
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

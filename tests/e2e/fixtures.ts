import path from 'node:path'
import { test as base, expect, type APIRequestContext, type Page } from '@playwright/test'
import { DEMO_PASSWORD } from '../../db/seeds/demo-content.ts'

// Signed in without the form: the tests about something else start with a session the real sign-in
// gave, once per account and worker, kept as Playwright storage state. The form itself is driven
// where it is what is tested (sign-in.spec.ts, sessions-nojs.spec.ts, a journey, a new account).
// Every spec takes `test` from here, even one that signs in no one: files with other fixtures would run as
// a separate group, and the specs share one server whose demo data some of them change, so they must run
// in one group, in file order.

type StorageState = Awaited<ReturnType<APIRequestContext['storageState']>>

type Sessions = {
  /** The storage state of a session of this account, signed in the first time it is asked for. */
  of(login: string, password: string): Promise<StorageState>
}

export const test = base.extend<
  {
    /**
     * Signs the browser of the test's page (or of `page`) in as this demo account and opens the page
     * the account lands on, as after signing in through the form.
     */
    signInAs: (login: string, options?: { page?: Page }) => Promise<void>
  },
  { sessions: Sessions }
>({
  sessions: [
    async ({ playwright }, provide, workerInfo) => {
      const baseURL = process.env.E2E_BASE_URL!
      const states = new Map<string, Promise<StorageState>>()
      // the real sign-in: the form's POST, as the browser sends it, and the session cookie it answers
      const signIn = async (login: string, password: string) => {
        const request = await playwright.request.newContext({ baseURL })
        try {
          const response = await request.post('/sign-in', {
            form: { email: login, password, redirectTo: '' },
            headers: { Origin: baseURL },
            maxRedirects: 0,
          })
          expect(response.status(), `signing in as ${login}`).toBe(302)
          const file = path.join(workerInfo.project.outputDir, '.auth', `${workerInfo.workerIndex}-${login}.json`)
          return await request.storageState({ path: file })
        } finally {
          await request.dispose()
        }
      }
      // a session a test ended (Log out everywhere, a new password) opens nothing: sign in afresh then
      const stillOpen = async (state: StorageState) => {
        const request = await playwright.request.newContext({ baseURL, storageState: state })
        try {
          const response = await request.get('/', { maxRedirects: 0 })
          return !response.headers()['location']?.startsWith('/sign-in') && response.status() === 302
        } finally {
          await request.dispose()
        }
      }
      await provide({
        async of(login, password) {
          const key = `${login}\n${password}`
          const known = states.get(key)
          if (known && (await stillOpen(await known))) return known
          const fresh = signIn(login, password)
          states.set(key, fresh)
          return fresh
        },
      })
    },
    { scope: 'worker' },
  ],

  signInAs: async ({ page: testPage, sessions }, provide) => {
    await provide(async (login, { page = testPage } = {}) => {
      const { cookies } = await sessions.of(login, DEMO_PASSWORD)
      await page.context().addCookies(cookies)
      // the home page sends a signed-in visitor where the sign-in form would have
      await page.goto('/')
      await expect(page).not.toHaveURL(/\/sign-in/i)
    })
  },
})

export { expect }
